/// What a `FileDownload` tells its owner, on the download's thread, in order. Each download
/// ends in exactly one `downloadFinished` or `download(_:failed:)`, unless the owner cancels
/// it first: after `cancel()` nothing more is said. The owner may cancel from inside any of
/// these calls.
public protocol FileDownloadDelegate: AnyObject {
    /// The file's full size, once a response tells it (again when a later one says
    /// otherwise). Answer a failure to stop here, before any of the body is stored (a quota:
    /// `quota_exceeded`); the download then ends with that failure.
    func download(_ download: FileDownload, learnedTotal total: Int64) -> DownloadFailure?
    /// After each commit: `bytes` are durably stored.
    func download(_ download: FileDownload, stored bytes: Int64)
    /// A fault; the download asks again, from what is stored, after `delay`.
    func download(_ download: FileDownload, willRetryIn delay: Duration, after failure: DownloadFailure)
    /// Every byte of the file is stored and committed.
    func downloadFinished(_ download: FileDownload)
    /// A failure another try will not mend (`origin_refused`, `storage`, or the owner's own).
    func download(_ download: FileDownload, failed failure: DownloadFailure)
}
