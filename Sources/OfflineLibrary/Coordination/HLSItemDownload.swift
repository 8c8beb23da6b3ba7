import ControlAPI
import FoundationEssentials
import HTTPFetch
import Logging
import Storage

/// An HLS VOD item's download on the worker thread. First the plan: the master playlist and
/// the chosen media playlists are fetched into memory (`MemoryDestination`), the files to keep
/// are decided (`HLSOfflineSelection`, `HLSOfflineMedia`) and recorded in the books, and the
/// rewritten playlists are written, encrypted like the media. Then every segment, init segment
/// and key, one after another, each resumed from what is stored (`FileDownload` into an
/// `EncryptedFile`); keys with the item's `keyHeaders` on top of its headers, or, for an item
/// with a key service (API-2 §2), POSTed for to it (`KeyServiceClient`) and never fetched from
/// their URIs; either way a key is stored encrypted like the media. When all are
/// whole, every file's checksums are checked, then the item is complete.
///
/// A plan cut short (a crash between recording the files and writing the playlists) is made
/// again: its rows are forgotten and its folder emptied. Worker thread only.
final class HLSItemDownload: ItemDownload, FileDownloadDelegate {
    struct Choices: Codable, Sendable {
        var variant: LibraryVariantChoice?
        var audio: LibraryRenditionChoice?
        var subtitles: LibraryRenditionChoice?
    }

    let id: String
    private var record: LibraryItemRecord
    private let key: SymmetricKey
    private let headers: [String: String]
    private let keyHeaders: [String: String]
    /// The item's keys come from here; nil: from their URIs.
    private let keyService: KeyService?
    private lazy var keyClient = KeyServiceClient(thread: session.thread, userAgent: session.userAgent)
    private var keyRequest: KeyRequest?
    private let books: LibraryBooks
    private let session: DownloadSession
    private let root: URL
    private let usedElsewhere: Int64
    private let quota: Int64?
    private let report: (WorkerReport) -> Void
    private let log = Logger(category: "library")
    private var download: FileDownload?
    /// The file being fetched, and (for media) where it goes.
    private var current: (name: String, file: EncryptedFile?, memory: MemoryDestination?)?
    private var plannedStep: ((Data) throws -> Void)?
    private var cancelled = false

    init(record: LibraryItemRecord, key: SymmetricKey, headers: [String: String], keyHeaders: [String: String],
         keyService: KeyService? = nil, books: LibraryBooks,
         session: DownloadSession, root: URL, usedElsewhere: Int64, quota: Int64?, report: @escaping (WorkerReport) -> Void) {
        id = record.id
        self.record = record
        self.key = key
        self.headers = headers
        self.keyHeaders = keyHeaders
        self.keyService = keyService
        self.books = books
        self.session = session
        self.root = root
        self.usedElsewhere = usedElsewhere
        self.quota = quota
        self.report = report
    }

    func start() {
        let playlists = record.files.filter { $0.role == .playlist }
        if record.files.isEmpty || playlists.contains(where: { !$0.complete }) {
            replan()
        } else {
            next()
        }
    }

    func cancel() {
        cancelled = true
        download?.cancel()
        download = nil
        keyRequest?.cancel()
        keyRequest = nil
        current?.file?.close()
        current = nil
    }

    // MARK: The plan

    private func replan() {
        do {
            if !record.files.isEmpty {
                try books.removeFiles(of: id)
                try? FileManager.default.removeItem(at: LibraryLayout.folder(root: root, item: id))
                record.files = []
            }
            try FileManager.default.createDirectory(at: LibraryLayout.folder(root: root, item: id), withIntermediateDirectories: true)
        } catch {
            fail(DownloadFailure(code: "storage", message: "\(error)"))
            return
        }
        fetchText(record.uri) { [self] text in
            let choices = record.options.flatMap { try? JSONCoding.decodeBody(Choices.self, from: Data($0.utf8)) } ?? Choices()
            let selection: HLSOfflineSelection
            do throws(HLSOfflineError) {
                selection = try HLSOfflineSelection.choose(playlist: String(decoding: text, as: UTF8.self), url: record.uri,
                                                           variant: choices.variant, audio: choices.audio, subtitles: choices.subtitles)
            } catch {
                throw DownloadFailure(code: error.code, message: error.message)
            }
            planMedia(selection.media[...], master: selection.masterPlaylist, definitions: selection.definitions, playlists: [], files: [])
        }
    }

    /// Fetches each media playlist in turn, then records the plan.
    private func planMedia(_ remaining: ArraySlice<HLSOfflineMediaRef>, master: String, definitions: [String: String],
                           playlists: [(name: String, text: String)], files: [HLSOfflineFile]) {
        guard let media = remaining.first else {
            recordPlan(master: master, playlists: playlists, files: files)
            return
        }
        fetchText(media.url) { [self] text in
            let planned: HLSOfflineMedia
            do throws(HLSOfflineError) {
                planned = try HLSOfflineMedia.plan(playlist: String(decoding: text, as: UTF8.self), url: media.url, folder: media.folder,
                                                   importing: definitions, keysFromService: keyService != nil)
            } catch {
                throw DownloadFailure(code: error.code, message: error.message)
            }
            planMedia(remaining.dropFirst(), master: master, definitions: definitions,
                      playlists: playlists + [(media.playlistName, planned.playlist)], files: files + planned.files)
        }
    }

    private func recordPlan(master: String, playlists: [(name: String, text: String)], files: [HLSOfflineFile]) {
        do {
            let texts = [(name: "index.m3u8", text: master)] + playlists
            var records = try texts.enumerated().map { index, entry in
                LibraryFileRecord(name: entry.name, role: .playlist, position: index, remoteURI: nil, iv: Data(try MediaCipher.randomIV()))
            }
            for (index, file) in files.enumerated() {
                let role: LibraryFileRecord.Role = file.role == .key ? .key : .segment
                records.append(LibraryFileRecord(name: file.name, role: role, position: texts.count + index, remoteURI: file.url,
                                                 iv: Data(try MediaCipher.randomIV())))
            }
            try books.addFiles(records, to: id)
            // The rewritten playlists, encrypted like the media (they name every segment).
            for (index, entry) in texts.enumerated() {
                let url = fileURL(entry.name)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                let file = try EncryptedFile(url: url, key: key, iv: Array(records[index].iv), storedBytes: 0,
                                             recorder: BooksFileProgressRecorder(books: books, itemId: id, name: entry.name))
                try Data(entry.text.utf8).withUnsafeBytes { try file.append($0) }
                try file.finish()
                file.close()
                records[index].storedBytes = Int64(entry.text.utf8.count)
                records[index].complete = true
            }
            record.files = records
            log.info("HLS item planned", ["id": id, "files": "\(records.count)"])
            report(.planned(id: id, files: records))
            next()
        } catch {
            fail(DownloadFailure(code: "storage", message: "\(error)"))
        }
    }

    /// Fetches a playlist into memory with the item's headers, then `then` (which may throw
    /// a `DownloadFailure`).
    private func fetchText(_ url: String, then: @escaping (Data) throws -> Void) {
        let memory = MemoryDestination()
        current = (name: url, file: nil, memory: memory)
        plannedStep = then
        let fetch = FileDownload(url: url, headers: headers, destination: memory, session: session, delegate: self)
        download = fetch
        fetch.start()
    }

    // MARK: The files

    private func next() {
        guard !cancelled else { return }
        guard let index = record.files.firstIndex(where: { !$0.complete }) else {
            verifyAndComplete()
            return
        }
        let file = record.files[index]
        guard let remote = file.remoteURI else {
            fail(DownloadFailure(code: "storage", message: "\(file.name) has no origin to fetch it from"))
            return
        }
        do {
            let url = fileURL(file.name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let destination = try EncryptedFile(url: url, key: key, iv: Array(file.iv), storedBytes: file.storedBytes,
                                                recorder: BooksFileProgressRecorder(books: books, itemId: id, name: file.name))
            current = (name: file.name, file: destination, memory: nil)
            plannedStep = nil
            if file.role == .key, let keyService {
                fetchKey(remote, from: keyService, into: destination, name: file.name)
                return
            }
            let requestHeaders = file.role == .key ? headers.merging(keyHeaders) { _, key in key } : headers
            let fetch = FileDownload(url: remote, headers: requestHeaders, destination: destination, session: session,
                                     knownTotal: file.totalBytes, delegate: self)
            download = fetch
            fetch.start()
        } catch {
            fail(DownloadFailure(code: "storage", message: "\(error)"))
        }
    }

    /// Asks the key service for the key of `keyURI` and stores it like a fetched file.
    private func fetchKey(_ keyURI: String, from service: KeyService, into destination: EncryptedFile, name: String) {
        keyRequest = keyClient.fetch(keyURI, from: service) { [self] outcome in
            keyRequest = nil
            switch outcome {
            case .key(let key):
                do {
                    try key.withUnsafeBytes { try destination.append($0) }
                } catch {
                    fail(DownloadFailure(code: "storage", message: "\(error)"))
                    return
                }
                downloadFinished()
            case .refused(let reason):
                fail(DownloadFailure(code: "key_error", message: reason))
            case .unavailable(let reason):
                fail(DownloadFailure(code: "network", message: reason))
            }
        }
    }

    private func verifyAndComplete() {
        do {
            for file in record.files {
                let reader = try EncryptedFileReader(url: fileURL(file.name), key: key, iv: Array(file.iv), size: file.storedBytes)
                defer { reader.close() }
                if let bad = try reader.verify(checksums: try books.chunkChecksums(itemId: id, name: file.name)) {
                    // Forget the damaged file, so a resume fetches it again (a playlist: plans again).
                    try books.resetFile(itemId: id, name: file.name)
                    try? FileManager.default.removeItem(at: fileURL(file.name))
                    report(.fileStored(id: id, name: file.name, stored: 0, complete: false))
                    fail(DownloadFailure(code: "damaged", message: "chunk \(bad) of \(file.name) does not match its checksum; resume fetches it again"))
                    return
                }
            }
            try books.updateTotalBytes(id: id, totalBytes: record.storedBytes)
            try books.updateState(id: id, state: .complete)
            report(.completed(id: id, stored: record.storedBytes))
        } catch {
            fail(DownloadFailure(code: "storage", message: "\(error)"))
        }
    }

    private func fileURL(_ name: String) -> URL { LibraryLayout.file(root: root, item: id, name: name) }

    private func fail(_ failure: DownloadFailure) {
        download = nil
        current?.file?.close()
        current = nil
        _ = try? books.updateState(id: id, state: .failed, failure: .init(code: failure.code, message: failure.message))
        report(.failed(id: id, failure: failure))
    }

    private var storedElsewhere: Int64 {
        record.files.filter { $0.name != current?.name }.reduce(0) { $0 + $1.storedBytes }
    }

    // MARK: FileDownloadDelegate

    func download(_ download: FileDownload, learnedTotal total: Int64) -> DownloadFailure? {
        guard let name = current?.name, current?.file != nil else { return nil }
        _ = try? books.updateFileTotalBytes(itemId: id, name: name, totalBytes: total)
        if let index = record.files.firstIndex(where: { $0.name == name }) { record.files[index].totalBytes = total }
        if let quota, usedElsewhere + storedElsewhere + total > quota {
            return DownloadFailure(code: "quota_exceeded",
                                   message: "the copy needs more than the \(quota)-byte quota leaves (\(usedElsewhere + storedElsewhere) bytes held)")
        }
        return nil
    }

    func download(_ download: FileDownload, stored bytes: Int64) {
        guard let name = current?.name, current?.file != nil, let index = record.files.firstIndex(where: { $0.name == name }) else { return }
        record.files[index].storedBytes = bytes
        report(.fileStored(id: id, name: name, stored: bytes, complete: false))
    }

    func download(_ download: FileDownload, willRetryIn delay: Duration, after failure: DownloadFailure) {
        let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        report(.retrying(id: id, failure: failure, delay: seconds))
    }

    func downloadFinished(_ download: FileDownload) {
        self.download = nil
        downloadFinished()
    }

    /// The current file (or playlist) has all its bytes.
    private func downloadFinished() {
        guard let current else { return }
        self.current = nil
        if let memory = current.memory, let step = plannedStep {
            plannedStep = nil
            do {
                try step(memory.data)
            } catch let failure as DownloadFailure {
                fail(failure)
            } catch {
                fail(DownloadFailure(code: "invalid_source", message: "\(error)"))
            }
            return
        }
        guard let file = current.file, let index = record.files.firstIndex(where: { $0.name == current.name }) else { return }
        do {
            try file.finish()
            file.close()
            record.files[index].storedBytes = file.storedBytes
            record.files[index].complete = true
            report(.fileStored(id: id, name: current.name, stored: file.storedBytes, complete: true))
            next()
        } catch {
            fail(DownloadFailure(code: "storage", message: "\(error)"))
        }
    }

    func download(_ download: FileDownload, failed failure: DownloadFailure) {
        fail(failure)
    }
}
