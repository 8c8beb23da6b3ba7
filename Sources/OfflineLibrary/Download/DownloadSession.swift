import CSoup
import GLibRuntime

/// The libsoup client session the library's downloads share, bound to the `ServiceThread`
/// they run on: made there, used there, released there (libsoup objects belong to the
/// thread-default context they were made on). The downloads hold it, so it goes after them.
///
/// It sends no session-wide user agent: libsoup would put it over an item's own
/// `User-Agent`, so each request carries `userAgent` only when its headers name none (as
/// `SoupClient` does). No content decoder: the bytes are stored as the origin sends them, so
/// that a resume's `Range` counts the same bytes as what is stored.
public final class DownloadSession {
    public let thread: ServiceThread
    /// Shared by every download of the process (nil: unlimited).
    public let rateLimiter: DownloadRateLimiter?
    public let userAgent: String
    let soup: UnsafeMutablePointer<SoupSession>

    /// On `thread`. `ioTimeoutSeconds` bounds connecting and each socket read or write: a
    /// backstop behind each download's own stall watchdog.
    public init(thread: ServiceThread, rateLimiter: DownloadRateLimiter? = nil, userAgent: String = "marquee",
                ioTimeoutSeconds: UInt32 = 30, maxConnectionsPerHost: Int32 = 6) {
        precondition(thread.isCurrent, "a DownloadSession is made on its own ServiceThread")
        self.thread = thread
        self.rateLimiter = rateLimiter
        self.userAgent = userAgent
        soup = csoup_download_session_new(ioTimeoutSeconds, maxConnectionsPerHost)!  // only fails out of memory
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(soup))
    }
}
