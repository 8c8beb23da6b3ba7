import FoundationEssentials

// The seams between the library's parts: the downloader writes through a
// `DownloadDestination`, the loopback server reads through `RandomAccessMedia`. The
// encrypted files implement both ends; tests use plain ones.

/// Where a download's plaintext goes. Used on the library thread only.
///
/// Durability rule (what "acknowledged as stored" means): `commit()` first makes the data
/// durable (fsync), then records the new offset; a crash between the two loses only bytes
/// that were never acknowledged, and the next start truncates the file to the recorded
/// offset. A resumed download asks the origin for `Range: bytes=storedBytes-`.
public protocol DownloadDestination: AnyObject {
    /// Plaintext bytes durably stored (acknowledged by the last `commit()`).
    var storedBytes: Int64 { get }
    /// Bytes appended since the last `commit()`: not yet acknowledged.
    var pendingBytes: Int64 { get }
    /// Appends plaintext after what is stored and pending. Not durable until `commit()`.
    func append(_ bytes: UnsafeRawBufferPointer) throws
    /// Makes everything appended durable: data first, then the offset (and checksums).
    func commit() throws
    /// Drops everything stored and pending: the origin ignored the Range request (a 200 to a
    /// resume), so the file starts again from byte 0.
    func restart() throws
}

/// Plaintext read at any offset (a seek is a read elsewhere). Safe from any thread: the
/// loopback server reads from its own thread, several requests at once.
public protocol RandomAccessMedia: Sendable {
    /// The plaintext size in bytes.
    var size: Int64 { get }
    /// Reads up to `buffer.count` plaintext bytes at `offset` into `buffer`; returns how many
    /// (0 at or past the end).
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// Why a download stopped or is being retried, with the stable code the API reports.
public struct DownloadFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// `network` (refused, reset, timeout), `origin_error` (5xx), `origin_refused` (4xx),
    /// `quota_exceeded`, `storage` (a write failed), `damaged` (a checksum did not match),
    /// `invalid_source` (not a playable playlist).
    public var code: String
    public var message: String
    /// The origin's HTTP status, when it answered.
    public var status: Int?
    public init(code: String, message: String, status: Int? = nil) {
        self.code = code
        self.message = message
        self.status = status
    }
    public var description: String { "\(code): \(message)" }
}
