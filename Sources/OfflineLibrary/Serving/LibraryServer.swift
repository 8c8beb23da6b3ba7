import CSoup
import FoundationEssentials
import GLibRuntime
import HTTPFetch
import Logging
import TextSupport

/// One file a publication serves: its plaintext, read on demand, and its media type.
public struct ServedFile: Sendable {
    public var media: any RandomAccessMedia
    public var contentType: String
    public init(media: any RandomAccessMedia, contentType: String) {
        self.media = media
        self.contentType = contentType
    }
}

public struct LibraryServerError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// Serves the offline library's copies to playbin3 over loopback HTTP, decrypting as it
/// serves: the copies stay encrypted at rest, and GStreamer reads plaintext from
/// `<baseURL>/lib/<token>/<name>` (a whole file, or an HLS set: playlists, segments, keys).
///
/// A publication is a set of files under a random token (16 bytes, hex); anything not
/// published, or unpublished since, is a 404, so a URL is good for one playback and no
/// other copy is reachable. GET and HEAD, with a single byte range (`bytes=a-b`, `a-`, `-n`:
/// 206; past the end: 416), which qtdemux needs for an MP4 whose index is at its end and
/// playbin3 for every seek. Bodies are streamed a chunk at a time (`BodyStream`): a Range in
/// the middle of a 48 MiB file had its first byte in 0.5 to 0.75 ms (median of 20, connect
/// included), and a full GET ran at 0.5 to 2.2 GB/s where curl read the plain file at 4 to
/// 8.6 GB/s (`LibraryServerThroughputTests`, debug build, 2 shared cores): far beyond what
/// playback asks.
///
/// It runs on a thread and GLib context of its own ("marquee-library-server"), never on the
/// daemon's GLib thread: souphttpsrc and hlsdemux2 read from GStreamer's threads while the
/// GLib thread may be blocked in a call into that very pipeline (`ServiceThread` has the
/// freezes this caused). The thread, its SoupServer and its port live as long as the process.
/// All methods are thread-safe.
public final class LibraryServer: Sendable {
    private let thread = ServiceThread(name: "marquee-library-server")
    private let server: LoopbackServer
    private let publications = Publications()
    private let bodies = BodyCounter()
    private let log = Logger(category: "library")

    /// "http://127.0.0.1:PORT", no trailing slash.
    public var baseURL: String { server.baseURL }

    /// Response bodies still alive: being written, or not yet let go by libsoup. 0 once every
    /// client has its bytes or has left.
    public var bodiesInFlight: Int { bodies.value.load(ordering: .relaxed) }

    /// Starts the server thread and its listener on 127.0.0.1 (a free port).
    public init() throws(LibraryServerError) {
        let owner = Owner()
        do {
            server = try LoopbackServer(on: thread) { message, path in owner.server?.handle(message, path: path) }
        } catch {
            throw LibraryServerError(message: "cannot listen on 127.0.0.1 for the library")
        }
        owner.set(self)
    }

    // MARK: Publications (any thread)

    /// Serves `files` under a new token until `unpublish`: each at `<baseURL>/lib/<token>/<name>`.
    /// Names are relative paths ("media", "index.m3u8", "v1/seg00001.ts") made of URL path
    /// characters that need no escaping; a leading "/", an empty, "." or ".." segment, or
    /// any other character is refused, so a name is its own URL path.
    public func publish(_ files: [String: ServedFile]) throws(LibraryServerError) -> (token: String, baseURL: String) {
        for name in files.keys where !Self.isServable(name) {
            throw LibraryServerError(message: "cannot serve a file named \"\(name)\"")
        }
        let token = (0..<16).map { _ in String(printf: "%02x", UInt8.random(in: 0...255)) }.joined()
        publications.set(files, for: token)
        return (token, baseURL)
    }

    /// Ends a publication: its URLs answer 404, and bodies still being written end at their
    /// next chunk (short of their length: the client sees a truncated transfer).
    public func unpublish(_ token: String) {
        publications.set(nil, for: token)
    }

    /// `<baseURL>/lib/<token>/<name>`.
    public func url(token: String, name: String) -> String { "\(baseURL)/lib/\(token)/\(name)" }

    static func isServable(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("/") else { return false }
        let segments = name.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { return false }
        // RFC 3986 pchar without "%" (unreserved, sub-delims, ":" and "@"), and "/".
        return name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "-._~!$&'()*+,;=:@/".utf8.contains(byte)
            }
        }
    }

    // MARK: Requests (server thread)

    private func handle(_ message: OpaquePointer, path: String) {
        let headers = soup_server_message_get_response_headers(message)!
        soup_message_headers_replace(headers, "Cache-Control", "no-cache")
        guard let (token, name) = Self.route(path), let file = publications.file(name, of: token) else {
            soup_server_message_set_status(message, 404, nil)
            return
        }
        let method = soup_server_message_get_method(message).map { String(cString: $0) } ?? ""
        guard method == "GET" || method == "HEAD" else {
            soup_message_headers_replace(headers, "Allow", "GET, HEAD")
            soup_server_message_set_status(message, 405, nil)
            return
        }
        soup_message_headers_replace(headers, "Accept-Ranges", "bytes")
        let size = file.media.size
        let rangeHeader = soup_message_headers_get_one(soup_server_message_get_request_headers(message), "Range")
        let first: Int64, length: Int64, status: UInt32
        switch ByteRangeRequest(header: rangeHeader.map { String(cString: $0) }, size: size) {
        case .whole:
            (first, length, status) = (0, size, 200)
        case .partial(let start, let last):
            (first, length, status) = (start, last - start + 1, 206)
        case .unsatisfiable:
            soup_message_headers_replace(headers, "Content-Range", "bytes */\(size)")
            soup_message_headers_set_content_length(headers, 0)
            soup_server_message_set_status(message, 416, nil)
            return
        }
        var stream: BodyStream?
        if method == "GET" && length > 0 {
            do {
                stream = try BodyStream(media: file.media, first: first, length: length, counter: bodies)
            } catch {
                log.warning("a copy could not be read", ["name": name, "offset": "\(first)", "error": "\(error)"])
                soup_message_headers_set_content_length(headers, 0)
                soup_server_message_set_status(message, 500, nil)
                return
            }
        }
        soup_server_message_set_status(message, status, nil)
        soup_message_headers_set_content_type(headers, file.contentType.isEmpty ? "application/octet-stream" : file.contentType, nil)
        soup_message_headers_set_content_length(headers, goffset(length))
        if status == 206 {
            soup_message_headers_set_content_range(headers, goffset(first), goffset(first + length - 1), goffset(size))
        }
        if let stream {
            let publications = publications
            stream.start(on: message, thread: thread) { publications.file(name, of: token) != nil }
        } else if let body = soup_server_message_get_response_body(message) {
            soup_message_body_complete(body)  // HEAD, or an empty file
        }
    }

    /// "/lib/<token>/<name>" → (token, name); nil for any other path.
    static func route(_ path: String) -> (token: String, name: String)? {
        guard path.hasPrefix("/lib/") else { return nil }
        let rest = path.dropFirst("/lib/".count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        let token = rest[..<slash], name = rest[rest.index(after: slash)...]
        guard !token.isEmpty, !name.isEmpty else { return nil }
        return (String(token), String(name))
    }
}

/// The published files by token, behind a lock: written from any thread, read on the
/// server's thread for each request (and before each chunk).
private final class Publications: @unchecked Sendable {
    private let lock = ThreadLock()
    // Guarded by `lock`:
    private var files: [String: [String: ServedFile]] = [:]

    func set(_ files: [String: ServedFile]?, for token: String) {
        lock.withLock { self.files[token] = files }
    }

    func file(_ name: String, of token: String) -> ServedFile? {
        lock.withLock { files[token]?[name] }
    }
}

/// The way back from the server's C callbacks to the server object, set once it exists.
private final class Owner: @unchecked Sendable {
    private let lock = ThreadLock()
    private weak var owner: LibraryServer?
    func set(_ server: LibraryServer) { lock.withLock { owner = server } }
    var server: LibraryServer? { lock.withLock { owner } }
}
