import ControlAPI
import FoundationEssentials
import GLibRuntime
import HLS
import Logging
import Storage
import TextSupport

/// The offline library as the API and the player see it (API-2 §1), on the GLib thread.
///
/// It keeps the items in memory and answers reads at once; everything that touches the disk
/// or the network runs on `LibraryWorker`'s thread, in order, and reports back. At most
/// `maxConcurrentDownloads` items download at once, the others wait `queued`, oldest first.
@GLibActor
public final class Library {
    public struct Configuration: Sendable {
        public var dataDirectory: String
        public var quotaBytes: Int64?
        public var downloadRate: Int64?
        public var keyFile: String?
        /// `--license-url`: asked for a new licence before an expired copy is refused.
        public var licenseURL: String?
        public var maxConcurrentDownloads = 2
        public init(dataDirectory: String, quotaBytes: Int64? = nil, downloadRate: Int64? = nil, keyFile: String? = nil,
                    licenseURL: String? = nil) {
            self.dataDirectory = dataDirectory
            self.quotaBytes = quotaBytes
            self.downloadRate = downloadRate
            self.keyFile = keyFile
            self.licenseURL = licenseURL
        }
    }

    let configuration: Configuration
    private let worker: LibraryWorker
    private let keyWrap: KeyWrap
    /// Made at the first offline play: a box that never plays a copy keeps no thread or
    /// socket for it.
    private var server: LibraryServer?
    private let log = Logger(category: "library")
    private lazy var renewal = LicenseRenewal(url: configuration.licenseURL)
    private(set) var records: [String: LibraryItemRecord] = [:]
    /// The latest time seen on the system clock (the licence clock rule).
    private(set) var latestSeen: Date?
    /// Where each complete item is served, once published.
    private var served: [String: String] = [:]
    private var lastDownloadEvent: [String: ContinuousClock.Instant] = [:]
    /// Items with a `download` event waiting for the end of their half-second window.
    private var trailingDownloadEvents: Set<String> = []
    /// Replies waiting for the worker (an add, a delete), by a number the worker carries back:
    /// the worker's closures must be Sendable, a caller's completion need not be.
    private var waiting: [Int: (Result<LibraryItem, APIError>) -> Void] = [:]
    private var nextWaiting = 0
    /// Events for clients (`download`, `library`): the daemon hands them to the player's stream.
    public var onEvent: ((PlayerEvent) -> Void)?

    /// Loads the device key and the books (at start: a damaged key or database stops it).
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        let deviceKey = try configuration.keyFile.map { try DeviceKey.load(keyFile: $0) }
            ?? DeviceKey.loadOrCreate(at: configuration.dataDirectory + "/device.key")
        keyWrap = KeyWrap(deviceKey: deviceKey)
        worker = LibraryWorker(root: URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("library", isDirectory: true),
                               databasePath: configuration.dataDirectory + "/" + DaemonStorage.fileName,
                               downloadRate: configuration.downloadRate)
        let (items, latest) = try worker.open()
        latestSeen = latest
        for var item in items {
            // A download the last run left going (a restart, a kill -9) goes on from what is stored.
            if item.state == .downloading { item.state = .queued }
            records[item.id] = item
        }
        worker.report = { report in Task { @GLibActor [weak self] in self?.handle(report) } }
        noteTime()
        schedule()
    }

    /// Shutdown: downloads commit what they have and stop.
    public func shutdown() { worker.stopAll() }

    // MARK: Reads

    public func list() -> LibraryList {
        let items = ordered.map(wire)
        return LibraryList(items: items, usedBytes: usedBytes, quotaBytes: configuration.quotaBytes)
    }

    public func item(_ id: String) throws(APIError) -> LibraryItem { wire(try record(id)) }

    var usedBytes: Int64 { records.values.reduce(0) { $0 + $1.storedBytes } }

    private var ordered: [LibraryItemRecord] {
        records.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    func record(_ id: String) throws(APIError) -> LibraryItemRecord {
        guard let record = records[id] else { throw APIError(.notFound, "no library item '\(id)'") }
        return record
    }

    /// The item of this content for this user, if any.
    func record(contentId: String, userId: String?) -> LibraryItemRecord? {
        records.values.first { $0.contentId == contentId && $0.userId == (userId ?? "") }
    }

    // MARK: Commands

    /// `POST /v1/library`: recorded durably before the reply (202), then queued.
    public func add(_ request: LibraryAddRequest, completion: @escaping (Result<LibraryItem, APIError>) -> Void) {
        do throws(APIError) {
            let record = try makeRecord(request)
            let ticket = wait(completion)
            worker.insert(record) { [weak self] outcome in
                guard let self, let completion = self.waiting.removeValue(forKey: ticket) else { return }
                switch outcome {
                case .failure(let error):
                    completion(.failure(APIError(.internalError, "cannot record the item: \(error)")))
                case .success:
                    self.records[record.id] = record
                    self.log.info("library item added", ["id": record.id, "contentId": record.contentId])
                    self.onEvent?(.library(LibraryChange(id: record.id, change: .added)))
                    self.publishDownload(record, force: true)
                    self.schedule()
                    completion(.success(self.wire(self.records[record.id] ?? record)))
                }
            }
        } catch {
            completion(.failure(error))
        }
    }

    private func makeRecord(_ request: LibraryAddRequest) throws(APIError) -> LibraryItemRecord {
        if let existing = record(contentId: request.contentId, userId: request.userId) {
            throw APIError(.alreadyInLibrary, "'\(request.contentId)' is already in the library as \(existing.id) (\(existing.state.rawValue))")
        }
        guard let scheme = request.uri.split(separator: ":").first?.lowercased(), ["http", "https"].contains(scheme) else {
            throw APIError(.unsupportedURI, "library items are downloaded from http(s) URLs")
        }
        let path = request.uri.lowercased().split(separator: "?").first ?? ""
        let kind: LibraryItemRecord.Kind = path.hasSuffix(".m3u8") || path.hasSuffix(".m3u") ? .hls : .file
        var options: String?
        if kind == .hls {
            let choices = HLSItemDownload.Choices(variant: request.variant, audio: request.audio, subtitles: request.subtitles)
            options = String(decoding: JSONCoding.encode(choices), as: UTF8.self)
        }
        let terms = try Self.terms(request.license)
        let id = "lib-" + (0..<6).map { _ in String(printf: "%02x", UInt8.random(in: 0...255)) }.joined()
        do {
            let key = try SymmetricKey(bytes: SecureRandom.bytes(SymmetricKey.byteCount))
            let wrapped = try keyWrap.seal(key: key, associatedData: KeyWrap.context(.mediaKey, item: id))
            var sealedHeaders: Data?
            let headers = ItemHeaders(headers: request.headers ?? [:], keyHeaders: request.keyHeaders)
            if !headers.isEmpty {
                sealedHeaders = try keyWrap.seal(JSONCoding.encode(headers), associatedData: KeyWrap.context(.headers, item: id))
            }
            // A file item has its one file from the start; an HLS item learns its files from
            // its playlists (`HLSItemDownload`).
            let files = kind == .hls ? [] : [LibraryFileRecord(name: LibraryLayout.mediaName, role: .media, remoteURI: request.uri,
                                                               iv: Data(try MediaCipher.randomIV()))]
            return LibraryItemRecord(id: id, contentId: request.contentId, userId: request.userId ?? "", title: request.title,
                                     uri: request.uri, kind: kind, options: options, sealedHeaders: sealedHeaders, wrappedKey: wrapped,
                                     createdAt: Date(), license: terms, files: files)
        } catch {
            throw APIError(.internalError, "cannot make the item's key: \(error)")
        }
    }

    static func terms(_ license: LicenseTerms?) throws(APIError) -> LibraryItemRecord.LicenseTerms {
        guard let license else { return .init() }
        var expires: Date?
        if let text = license.expires {
            guard let date = DateTime.parse(text) else {
                throw APIError(.invalidArgument, "'license.expires' must be an RFC 3339 time (2026-12-31T23:59:59Z)")
            }
            expires = date
        }
        return .init(expires: expires, maxPlays: license.maxPlays, maxPlayTime: license.maxPlayTime)
    }

    public func pause(_ id: String) throws(APIError) -> LibraryItem {
        var item = try record(id)
        guard item.state == .queued || item.state == .downloading else {
            throw APIError(.invalidArgument, "\(id) is \(item.state.rawValue): only queued or downloading items pause")
        }
        item.state = .paused
        records[id] = item
        worker.pause(id)
        publishDownload(item, force: true)
        schedule()
        return wire(item)
    }

    public func resume(_ id: String) throws(APIError) -> LibraryItem {
        var item = try record(id)
        guard item.state == .paused || item.state == .failed else {
            throw APIError(.invalidArgument, "\(id) is \(item.state.rawValue): only paused or failed items resume")
        }
        item.state = .queued
        item.failure = nil
        records[id] = item
        worker.setState(id, .queued)
        publishDownload(item, force: true)
        schedule()
        return wire(records[id] ?? item)
    }

    /// `DELETE /v1/library/{id}`: the files are gone when `completion` runs.
    public func remove(_ id: String, completion: @escaping (Result<LibraryItem, APIError>) -> Void) {
        guard let item = records.removeValue(forKey: id) else {
            completion(.failure(APIError(.notFound, "no library item '\(id)'")))
            return
        }
        if let url = served.removeValue(forKey: id), let token = Self.token(in: url) { server?.unpublish(token) }
        lastDownloadEvent[id] = nil
        let ticket = wait(completion)
        worker.remove(id) { [weak self] in
            guard let self, let completion = self.waiting.removeValue(forKey: ticket) else { return }
            self.onEvent?(.library(LibraryChange(id: id, change: .removed)))
            self.schedule()
            completion(.success(self.wire(item)))
        }
    }

    private func wait(_ completion: @escaping (Result<LibraryItem, APIError>) -> Void) -> Int {
        nextWaiting += 1
        waiting[nextWaiting] = completion
        return nextWaiting
    }

    /// `PUT /v1/library/{id}/license`: the new terms, with their usage from 0.
    public func replaceLicense(_ id: String, _ license: LicenseTerms) throws(APIError) -> LibraryItem {
        var item = try record(id)
        item.license = try Self.terms(license)
        item.plays = 0
        item.playTime = 0
        records[id] = item
        worker.replaceLicense(id, item.license)
        onEvent?(.library(LibraryChange(id: id, change: .license)))
        return wire(item)
    }

    // MARK: Renewal (`--license-url`)

    /// True when an open of `request` would be refused for a spent licence that the licence
    /// server may renew: the caller renews first (`renew`), then opens.
    public func mayRenew(before request: OpenRequest) -> Bool {
        guard renewal.isConfigured, let contentId = request.contentId,
              let item = record(contentId: contentId, userId: request.userId), item.state == .complete else { return false }
        return verdict(item).expired && renewal.mayAsk(for: item.id)
    }

    /// Asks the licence server for a new licence for the content of `request`; `completion`
    /// runs once, on the GLib thread, whatever the answer (a refusal then follows at the open).
    public func renew(before request: OpenRequest, completion: @escaping () -> Void) {
        guard let contentId = request.contentId, let item = record(contentId: contentId, userId: request.userId) else {
            completion()
            return
        }
        renewal.ask(itemID: item.id, contentId: contentId, userId: request.userId) { [weak self] terms in
            if let self, let terms, self.records[item.id] != nil {
                self.log.info("licence renewed online", ["id": item.id])
                _ = try? self.replaceLicense(item.id, terms)
            }
            completion()
        }
    }

    // MARK: Downloads

    private func schedule() {
        var running = records.values.filter { $0.state == .downloading }.count
        for item in ordered where item.state == .queued && running < configuration.maxConcurrentDownloads {
            guard let key = try? keyWrap.openKey(item.wrappedKey, associatedData: KeyWrap.context(.mediaKey, item: item.id)) else {
                fail(item.id, DownloadFailure(code: "storage", message: "the item's key does not open with this device key"))
                continue
            }
            var headers = ItemHeaders(headers: [:])
            if let sealed = item.sealedHeaders,
               let json = try? keyWrap.open(sealed, associatedData: KeyWrap.context(.headers, item: item.id)),
               let decoded = try? JSONCoding.decodeBody(ItemHeaders.self, from: json) {
                headers = decoded
            }
            var started = item
            started.state = .downloading
            records[item.id] = started
            running += 1
            worker.start(started, key: key, headers: headers, usedElsewhere: usedBytes - item.storedBytes, quota: configuration.quotaBytes)
            publishDownload(started, force: true)
        }
    }

    private func handle(_ report: WorkerReport) {
        switch report {
        case .progress(let id, let stored, let total):
            guard var item = records[id], item.state == .downloading else { return }
            setStored(&item, stored)
            item.totalBytes = total ?? item.totalBytes
            item.failure = nil
            records[id] = item
            publishDownload(item, force: false)
        case .planned(let id, let files):
            guard var item = records[id] else { return }
            item.files = files
            records[id] = item
            publishDownload(item, force: true)
        case .fileStored(let id, let name, let stored, let complete):
            guard var item = records[id], item.state == .downloading, let index = item.files.firstIndex(where: { $0.name == name }) else { return }
            item.files[index].storedBytes = stored
            item.files[index].complete = complete
            item.failure = nil
            records[id] = item
            publishDownload(item, force: false)
        case .retrying(let id, let failure, let delay):
            guard var item = records[id], item.state == .downloading else { return }
            // Still downloading: the error says what it rides out, until bytes arrive again.
            item.failure = .init(code: failure.code, message: "\(failure.message); trying again in \(String(printf: "%.1f", delay)) s")
            records[id] = item
            publishDownload(item, force: true)
            log.info("download retrying", ["id": id, "error": failure.code, "delay": String(printf: "%.1f", delay)])
        case .completed(let id, let stored):
            guard var item = records[id] else { return }
            if item.kind == .file { setStored(&item, stored) } else { item.files = item.files.map { var f = $0; f.complete = true; return f } }
            item.totalBytes = stored
            item.state = .complete
            item.failure = nil
            item.completedAt = Date()
            records[id] = item
            log.info("download complete", ["id": id, "bytes": "\(stored)"])
            publishDownload(item, force: true)
            schedule()
        case .failed(let id, let failure):
            fail(id, failure)
        }
    }

    private func fail(_ id: String, _ failure: DownloadFailure) {
        guard var item = records[id] else { return }
        item.state = .failed
        item.failure = .init(code: failure.code, message: failure.message)
        records[id] = item
        worker.setState(id, .failed, failure: item.failure)
        log.warning("download failed", ["id": id, "error": failure.code, "message": failure.message])
        publishDownload(item, force: true)
        schedule()
    }

    private func setStored(_ item: inout LibraryItemRecord, _ stored: Int64) {
        if let index = item.files.firstIndex(where: { $0.name == LibraryLayout.mediaName }) { item.files[index].storedBytes = stored }
    }

    /// At most twice a second per item, and at once at every state change (`force`). A change
    /// inside the half-second window is not dropped: the item's latest goes out at its end.
    private func publishDownload(_ item: LibraryItemRecord, force: Bool) {
        let now = ContinuousClock.now
        if !force, let last = lastDownloadEvent[item.id], now - last < Self.downloadEventInterval {
            guard !trailingDownloadEvents.contains(item.id) else { return }
            trailingDownloadEvents.insert(item.id)
            let wait = Self.downloadEventInterval - (now - last)
            let milliseconds = UInt32(max(1, wait.components.attoseconds / 1_000_000_000_000_000 + wait.components.seconds * 1000))
            runAfter(milliseconds: milliseconds) { [weak self] in
                guard let self else { return }
                self.trailingDownloadEvents.remove(item.id)
                if let latest = self.records[item.id] { self.publishDownload(latest, force: true) }
            }
            return
        }
        lastDownloadEvent[item.id] = now
        onEvent?(.download(DownloadUpdate(wire(item))))
    }

    static let downloadEventInterval: Duration = .milliseconds(500)

    // MARK: Playing (the feature's side)

    /// The loopback URL a complete item plays from: published on first use.
    func playbackURL(_ item: LibraryItemRecord) throws(APIError) -> String {
        if let url = served[item.id] { return url }
        guard let key = try? keyWrap.openKey(item.wrappedKey, associatedData: KeyWrap.context(.mediaKey, item: item.id)) else {
            throw APIError(.internalError, "the copy of \(item.id) cannot be opened with this device key")
        }
        var files: [String: ServedFile] = [:]
        for file in item.files {
            let url = LibraryLayout.file(root: worker.root, item: item.id, name: file.name)
            let media = LazyEncryptedMedia(url: url, key: key, iv: Array(file.iv), size: file.storedBytes)
            files[file.name] = ServedFile(media: media, contentType: Self.contentType(of: file.name))
        }
        let entry = item.kind == .hls ? "index.m3u8" : LibraryLayout.mediaName
        do {
            let server = try self.server ?? LibraryServer()
            self.server = server
            let (token, _) = try server.publish(files)
            let url = server.url(token: token, name: entry)
            served[item.id] = url
            return url
        } catch {
            throw APIError(.internalError, "cannot serve the copy: \(error)")
        }
    }

    /// What the loopback server says a file is: hlsdemux2 goes by the playlists' type, the
    /// segments are typefound.
    static func contentType(of name: String) -> String {
        if name.hasSuffix(".m3u8") { return "application/vnd.apple.mpegurl" }
        if name.hasSuffix(".ts") { return "video/mp2t" }
        if name.hasSuffix(".vtt") || name.hasSuffix(".webvtt") { return "text/vtt" }
        if name.hasSuffix(".aac") { return "audio/aac" }
        if name.hasSuffix(".mp4") || name.hasSuffix(".m4s") { return "video/mp4" }
        return "application/octet-stream"
    }

    private static func token(in url: String) -> String? {
        let parts = url.split(separator: "/")
        guard let index = parts.firstIndex(of: "lib"), index + 1 < parts.count else { return nil }
        return String(parts[index + 1])
    }

    func countPlay(_ id: String) {
        guard var item = records[id] else { return }
        item.plays += 1
        records[id] = item
        worker.addPlay(id)
        onEvent?(.library(LibraryChange(id: id, change: .license)))
    }

    func addPlayTime(_ id: String, seconds: Double) {
        guard seconds > 0, var item = records[id] else { return }
        item.playTime += seconds
        records[id] = item
        worker.addPlayTime(id, seconds: seconds)
    }

    /// Moves the latest time seen forward (never back), in memory and in the books.
    func noteTime(_ now: Date = Date()) {
        if let latestSeen, latestSeen >= now { return }
        latestSeen = now
        worker.advanceLatestSeen(now)
    }

    func verdict(_ item: LibraryItemRecord, now: Date = Date()) -> LicenseVerdict {
        LicenseRules.evaluate(License(expires: item.license.expires, maxPlays: item.license.maxPlays, maxPlayTime: item.license.maxPlayTime),
                              usage: LicenseUsage(plays: item.plays, playTime: item.playTime), now: now, latestSeen: latestSeen)
    }

    // MARK: Wire

    func wire(_ item: LibraryItemRecord) -> LibraryItem {
        let verdict = verdict(item)
        let license = LicenseState(expires: item.license.expires.map(RFC3339.string), maxPlays: item.license.maxPlays, plays: item.plays,
                                   maxPlayTime: item.license.maxPlayTime, playTime: item.playTime,
                                   expired: verdict.expired, reason: verdict.reason?.rawValue)
        var wire = LibraryItem(id: item.id, contentId: item.contentId, userId: item.userId.isEmpty ? nil : item.userId, title: item.title,
                               uri: item.uri, kind: item.kind == .hls ? .hls : .file, state: LibraryItem.State(rawValue: item.state.rawValue) ?? .failed,
                               bytes: item.storedBytes, totalBytes: item.totalBytes,
                               error: item.failure.map { APIErrorBody(code: $0.code, message: $0.message) }, license: license,
                               createdAt: RFC3339.string(item.createdAt), completedAt: item.completedAt.map(RFC3339.string))
        if item.kind == .hls, item.state != .complete {
            // Its size is known only once every segment is stored: progress counts its files.
            wire.progress = item.files.isEmpty ? nil : Double(item.files.filter(\.complete).count) / Double(item.files.count)
        }
        return wire
    }
}
