import FoundationEssentials

/// A media file could not be opened, read, written or synced, or is not what the books say.
/// Names the file and the operation; never its contents or key.
public struct MediaFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    /// What was being done: "write", "sync", "open", ...
    public var operation: String
    /// The OS error, when the failure came from a system call.
    public var errno: Int32?
    public var message: String

    public init(path: String, operation: String, errno: Int32? = nil, message: String) {
        self.path = path
        self.operation = operation
        self.errno = errno
        self.message = message
    }

    /// A failed system call: `message` is strerror's text for `code`.
    static func system(_ path: String, _ operation: String, _ code: Int32) -> MediaFileError {
        MediaFileError(path: path, operation: operation, errno: code, message: errnoText(code))
    }

    public var description: String { "\(operation) \(path): \(message)" }

    /// The download failure to report: a write that failed is `storage`.
    public var downloadFailure: DownloadFailure {
        DownloadFailure(code: "storage", message: description)
    }
}
