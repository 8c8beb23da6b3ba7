import Dispatch
import Glibc
import FoundationEssentials
import GLibRuntime
import HTTPFetch
import Logging
import Storage

/// The library's thread (`marquee-library`): its own SQLite connection to the daemon's
/// database (WAL lets it write while the GLib thread reads and writes its own tables), the
/// download session, the active downloads and every file operation. The GLib side gives it
/// jobs in order and hears back through `report`; it never waits for it, except once at
/// start to load the books.
final class LibraryWorker: @unchecked Sendable {
    let thread = ServiceThread(name: "marquee-library")
    let root: URL
    private let databasePath: String
    private let rate: Int64?
    private let log = Logger(category: "library")
    // Worker thread only:
    private var books: LibraryBooks?
    private var session: DownloadSession?
    private var active: [String: ItemDownload] = [:]
    /// Set once, before the first download starts; called on the worker thread.
    var report: (@Sendable (WorkerReport) -> Void)?

    static let notOpen = StorageError(kind: .cannotOpen, message: "the library's books are not open", context: "library")

    init(root: URL, databasePath: String, downloadRate: Int64?) {
        self.root = root
        self.databasePath = databasePath
        rate = downloadRate
    }

    /// Opens the books and loads every item (at start, before the API serves: the one wait).
    func open() throws -> (items: [LibraryItemRecord], latestSeen: Date?) {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<([LibraryItemRecord], Date?), any Error> = .failure(Self.notOpen)
        thread.perform { [self] in
            outcome = Result {
                try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
                let books = try LibraryBooks(database: SQLiteDatabase(path: databasePath))
                self.books = books
                session = DownloadSession(thread: thread, rateLimiter: rate.map { DownloadRateLimiter(bytesPerSecond: $0) })
                let items = try books.loadAll().map { checked($0, books: books) }
                return (items, try books.latestSeenTime())
            }
            done.signal()
        }
        done.wait()
        let (items, latest) = try outcome.get()
        return (items, latest)
    }

    /// A complete copy whose file is gone or shorter than recorded (removed by hand, a disk
    /// restored from an old backup) fails now with `missing` or `damaged`, rather than at
    /// its next play. Each chunk's checksum was checked when the copy completed; reading every
    /// copy again at each start would cost minutes of I/O on an SD card.
    private func checked(_ item: LibraryItemRecord, books: LibraryBooks) -> LibraryItemRecord {
        guard item.state == .complete else { return item }
        var item = item
        for file in item.files {
            let url = LibraryLayout.file(root: root, item: item.id, name: file.name)
            var status = stat()
            let size: Int64? = stat(url.path, &status) == 0 ? Int64(status.st_size) : nil
            let failure: LibraryItemRecord.Failure?
            if size == nil {
                failure = .init(code: "missing", message: "the copy's file \(file.name) is gone; resume downloads it again")
            } else if let size, size < file.storedBytes {
                failure = .init(code: "damaged", message: "the copy's file \(file.name) is \(size) bytes, not \(file.storedBytes); resume downloads it again")
            } else {
                failure = nil
            }
            guard let failure else { continue }
            log.warning("a library copy is unusable", ["id": item.id, "error": failure.code])
            item.state = .failed
            item.failure = failure
            _ = try? books.updateState(id: item.id, state: .failed, failure: failure)
            break
        }
        return item
    }

    // MARK: Jobs (from the GLib thread; run in order on the worker)

    /// Records a new item with its file rows; `completion` runs on the GLib thread.
    func insert(_ record: LibraryItemRecord, completion: @escaping @GLibActor @Sendable (Result<Void, any Error>) -> Void) {
        thread.perform { [self] in
            let outcome = Result<Void, any Error> {
                guard let books else { throw Self.notOpen }
                try books.insert(record)
            }
            Task { @GLibActor in completion(outcome) }
        }
    }

    func start(_ given: LibraryItemRecord, key: SymmetricKey, headers: ItemHeaders, usedElsewhere: Int64, quota: Int64?) {
        thread.perform { [self] in
            guard let books, let session, active[given.id] == nil else { return }
            // The books, not the loop's copy, say what is stored: a pause commits its last
            // bytes after the loop heard of the commit before.
            let record = (try? books.load(id: given.id)) ?? given
            let report = self.report ?? { _ in }
            let relay: (WorkerReport) -> Void = { [weak self] event in
                switch event {
                case .completed(let id, _), .failed(let id, _): self?.active[id] = nil
                default: break
                }
                report(event)
            }
            do {
                try FileManager.default.createDirectory(at: LibraryLayout.folder(root: root, item: record.id), withIntermediateDirectories: true)
                try books.updateState(id: record.id, state: .downloading)
                let download: ItemDownload
                switch record.kind {
                case .file:
                    guard let media = record.files.first(where: { $0.name == LibraryLayout.mediaName }) else {
                        throw DownloadFailure(code: "storage", message: "the item has no media file in its books")
                    }
                    download = try FileItemDownload(record: record, media: media,
                                                    fileURL: LibraryLayout.file(root: root, item: record.id, name: media.name),
                                                    key: key, headers: headers.headers, books: books, session: session,
                                                    usedElsewhere: usedElsewhere, quota: quota, report: relay)
                case .hls:
                    let keyService = headers.keyService.map {
                        KeyService(url: $0.uri, headers: $0.headers ?? [:], contentId: record.contentId,
                                   userId: record.userId.isEmpty ? nil : record.userId)
                    }
                    download = HLSItemDownload(record: record, key: key, headers: headers.headers, keyHeaders: headers.keyHeaders ?? [:],
                                               keyService: keyService, books: books, session: session, root: root, usedElsewhere: usedElsewhere, quota: quota,
                                               report: relay)
                }
                active[record.id] = download
                download.start()
            } catch {
                _ = try? books.updateState(id: record.id, state: .failed, failure: .init(code: "storage", message: "\(error)"))
                report(.failed(id: record.id, failure: DownloadFailure(code: "storage", message: "\(error)")))
            }
        }
    }

    /// Stops a download (pause) and records the state.
    func pause(_ id: String) {
        thread.perform { [self] in
            active.removeValue(forKey: id)?.cancel()
            // A download that completed just before the pause stays complete (the loop hears
            // its `completed` after asking for the pause).
            guard (try? books?.load(id: id))??.state != .complete else { return }
            _ = try? books?.updateState(id: id, state: .paused)
        }
    }

    func setState(_ id: String, _ state: LibraryItemRecord.State, failure: LibraryItemRecord.Failure? = nil) {
        thread.perform { [self] in _ = try? books?.updateState(id: id, state: state, failure: failure) }
    }

    /// Stops its download, forgets its books and removes its files; `completion` on GLib.
    func remove(_ id: String, completion: @escaping @GLibActor @Sendable () -> Void) {
        thread.perform { [self] in
            active.removeValue(forKey: id)?.cancel()
            do { try books?.delete(id: id) } catch { log.error("cannot delete an item's books", ["id": id, "error": "\(error)"]) }
            try? FileManager.default.removeItem(at: LibraryLayout.folder(root: root, item: id))
            Task { @GLibActor in completion() }
        }
    }

    func addPlay(_ id: String) {
        thread.perform { [self] in _ = try? books?.addPlay(id: id) }
    }

    func addPlayTime(_ id: String, seconds: Double) {
        thread.perform { [self] in _ = try? books?.addPlayTime(id: id, seconds: seconds) }
    }

    func replaceLicense(_ id: String, _ terms: LibraryItemRecord.LicenseTerms) {
        thread.perform { [self] in _ = try? books?.replaceLicense(id: id, license: terms, resetUsage: true) }
    }

    func advanceLatestSeen(_ time: Date) {
        thread.perform { [self] in _ = try? books?.advanceLatestSeenTime(to: time) }
    }

    /// Shutdown: every download commits what it has and stops; waits for that.
    func stopAll() {
        let done = DispatchSemaphore(value: 0)
        thread.perform { [self] in
            for download in active.values { download.cancel() }
            active.removeAll()
            done.signal()
        }
        done.wait()
    }
}
