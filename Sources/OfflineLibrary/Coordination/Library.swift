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
        /// `--key-service`: where the keys of HLS items added without `keyService` come from.
        public var keyService: KeyServiceRequest?
        public init(dataDirectory: String, quotaBytes: Int64? = nil, downloadRate: Int64? = nil, keyFile: String? = nil,
                    licenseURL: String? = nil, keyService: KeyServiceRequest? = nil) {
            self.keyService = keyService
            self.dataDirectory = dataDirectory
            self.quotaBytes = quotaBytes
            self.downloadRate = downloadRate
            self.keyFile = keyFile
            self.licenseURL = licenseURL
        }
    }

    let configuration: Configuration
    let worker: LibraryWorker
    let keyWrap: KeyWrap
    /// Made at the first offline play: a box that never plays a copy keeps no thread or
    /// socket for it.
    var server: LibraryServer?
    let log = Logger(category: "library")
    lazy var renewal = LicenseRenewal(url: configuration.licenseURL)
    var records: [String: LibraryItemRecord] = [:]
    /// The latest time seen on the system clock (the licence clock rule).
    var latestSeen: Date?
    /// Where each complete item is served, once published.
    var served: [String: String] = [:]
    var lastDownloadEvent: [String: ContinuousClock.Instant] = [:]
    /// Items with a `download` event waiting for the end of their half-second window.
    var trailingDownloadEvents: Set<String> = []
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

    var ordered: [LibraryItemRecord] {
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

    /// Content being added (recorded by the worker, not yet in `records`): a second add of it
    /// meanwhile is a 409 too, not a database constraint's 500.
    private var adding: Set<String> = []

    private static func contentKey(_ contentId: String, _ userId: String?) -> String { contentId + "\u{0}" + (userId ?? "") }

    // MARK: Commands

    /// `POST /v1/library`: recorded durably before the reply (202), then queued.
    public func add(_ request: LibraryAddRequest, completion: @escaping (Result<LibraryItem, APIError>) -> Void) {
        do throws(APIError) {
            let record = try makeRecord(request)
            let key = Self.contentKey(request.contentId, request.userId)
            adding.insert(key)
            let ticket = wait(completion)
            worker.insert(record) { [weak self] outcome in
                self?.adding.remove(key)
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
        if adding.contains(Self.contentKey(request.contentId, request.userId)) {
            throw APIError(.alreadyInLibrary, "'\(request.contentId)' is being added to the library")
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
            let headers = ItemHeaders(headers: request.headers ?? [:], keyHeaders: request.keyHeaders,
                                      keyService: kind == .hls ? request.keyService ?? configuration.keyService : nil)
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
            throw APIError(.invalidState, "\(id) is \(item.state.rawValue): only queued or downloading items pause")
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
            throw APIError(.invalidState, "\(id) is \(item.state.rawValue): only paused or failed items resume")
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
        if let url = served.removeValue(forKey: id) {
            if CopySource.token(in: url) != nil { CopySource.unpublish(url) } else if let token = Self.token(in: url) { server?.unpublish(token) }
        }
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
}
