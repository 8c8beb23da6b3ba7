/// A download's tunables; the defaults are the daemon's, tests shorten the waits.
public struct FileDownloadOptions: Sendable {
    /// No body byte (nor response) for this long aborts the request and retries.
    public var stallTimeout: Duration = .seconds(15)
    /// Commit (fsync, then record the offset) after this many bytes…
    public var commitBytes: Int64 = 1 << 20
    /// …or once this long has passed since the last commit, whichever comes first.
    public var commitInterval: Duration = .seconds(1)
    public var backoff = DownloadBackoff()
    /// The most one read asks for: the body is streamed, never held.
    public var readSize = 64 << 10

    public init(stallTimeout: Duration = .seconds(15), backoff: DownloadBackoff = DownloadBackoff()) {
        self.stallTimeout = stallTimeout
        self.backoff = backoff
    }
}
