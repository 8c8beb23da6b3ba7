import FoundationEssentials
import Storage

/// A progressive file's download on the worker thread: its encrypted file, the `FileDownload` that
/// fills it, and the checks at the end. Worker thread only.
final class FileItemDownload: ItemDownload, FileDownloadDelegate {
    let id: String
    private let file: EncryptedFile
    private let fileURL: URL
    private let key: SymmetricKey
    private let iv: [UInt8]
    private let books: LibraryBooks
    private var download: FileDownload?
    /// Bytes the rest of the library holds, and the quota (nil: none).
    private let usedElsewhere: Int64
    private let quota: Int64?
    private let report: (WorkerReport) -> Void
    private var total: Int64?

    init(record: LibraryItemRecord, media: LibraryFileRecord, fileURL: URL, key: SymmetricKey, headers: [String: String],
         books: LibraryBooks, session: DownloadSession, usedElsewhere: Int64, quota: Int64?,
         report: @escaping (WorkerReport) -> Void) throws {
        id = record.id
        self.fileURL = fileURL
        self.key = key
        iv = Array(media.iv)
        self.books = books
        self.usedElsewhere = usedElsewhere
        self.quota = quota
        self.report = report
        total = media.totalBytes
        file = try EncryptedFile(url: fileURL, key: key, iv: iv, storedBytes: media.storedBytes,
                                 recorder: BooksFileProgressRecorder(books: books, itemId: record.id, name: media.name))
        download = FileDownload(url: record.uri, headers: headers, destination: file, session: session,
                                knownTotal: media.totalBytes, delegate: self)
    }

    func start() { download?.start() }

    func cancel() {
        download?.cancel()
        download = nil
        file.close()
    }

    // MARK: FileDownloadDelegate

    func download(_ download: FileDownload, learnedTotal total: Int64) -> DownloadFailure? {
        self.total = total
        _ = try? books.updateTotalBytes(id: id, totalBytes: total)
        _ = try? books.updateFileTotalBytes(itemId: id, name: LibraryLayout.mediaName, totalBytes: total)
        if let quota, usedElsewhere + total > quota {
            return DownloadFailure(code: "quota_exceeded",
                                   message: "the copy needs \(total) bytes; the library holds \(usedElsewhere) of its \(quota)-byte quota")
        }
        report(.progress(id: id, stored: file.storedBytes, total: total))
        return nil
    }

    func download(_ download: FileDownload, stored bytes: Int64) {
        report(.progress(id: id, stored: bytes, total: total))
    }

    func download(_ download: FileDownload, willRetryIn delay: Duration, after failure: DownloadFailure) {
        let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        report(.retrying(id: id, failure: failure, delay: seconds))
    }

    func downloadFinished(_ download: FileDownload) {
        self.download = nil
        do {
            try file.finish()
            file.close()
            // Read back and check every chunk: a copy damaged on its way to the disk (or since
            // a crash) fails here with a clear code, never half-plays.
            let reader = try EncryptedFileReader(url: fileURL, key: key, iv: iv, size: file.storedBytes)
            defer { reader.close() }
            let checksums = try books.chunkChecksums(itemId: id, name: LibraryLayout.mediaName)
            if let bad = try reader.verify(checksums: checksums) {
                // The stored bytes are not what arrived: forget them, so a resume fetches the
                // file again instead of finding the same damage.
                try books.resetFile(itemId: id, name: LibraryLayout.mediaName)
                try? FileManager.default.removeItem(at: fileURL)
                report(.progress(id: id, stored: 0, total: total))
                fail(DownloadFailure(code: "damaged", message: "chunk \(bad) of the copy does not match its checksum; resume fetches it again"))
                return
            }
            try books.updateState(id: id, state: .complete)
            report(.completed(id: id, stored: file.storedBytes))
        } catch {
            fail(DownloadFailure(code: "storage", message: "\(error)"))
        }
    }

    func download(_ download: FileDownload, failed failure: DownloadFailure) {
        self.download = nil
        file.close()
        fail(failure)
    }

    private func fail(_ failure: DownloadFailure) {
        _ = try? books.updateState(id: id, state: .failed, failure: .init(code: failure.code, message: failure.message))
        report(.failed(id: id, failure: failure))
    }
}
