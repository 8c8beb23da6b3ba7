import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Socket and HTTP/1.1 pieces that the loopback test servers (`RecordingHTTPServer`,
// `AnalyticsCollector`) and `LiveUDPSender.freeUDPPort()` share. Internal to TestMedia.

// MARK: Sockets

/// `strerror(errno)` as a String.
func errnoText() -> String { String(cString: strerror(errno)) }

/// Binds `fd` to 127.0.0.1 on a port the kernel picks, then listens with `backlog` when one
/// is given; returns the port, or nil with `errno` saying why.
func bindToLoopback(_ fd: Int32, listenBacklog backlog: Int32? = nil) -> Int? {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
            bind(fd, pointer, length) == 0 && (backlog.map { listen(fd, $0) == 0 } ?? true)
                && getsockname(fd, pointer, &length) == 0
        }
    }
    return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
}

/// A close-on-exec TCP listener on 127.0.0.1, on a free port: (descriptor, port). A failure
/// is thrown as `makeError("socket: …")` or `makeError("bind/listen on 127.0.0.1: …")`.
func makeLoopbackListener<E: Error>(backlog: Int32, makeError: (String) -> E) throws(E) -> (Int32, Int) {
    #if os(Linux)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    #else
    let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw makeError("socket: \(errnoText())") }
    #if !os(Linux)
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    #endif
    guard let port = bindToLoopback(fd, listenBacklog: backlog) else {
        let reason = errnoText()
        close(fd)
        throw makeError("bind/listen on 127.0.0.1: \(reason)")
    }
    return (fd, port)
}

/// Sets SO_NOSIGPIPE where there is one (not Linux, where `sendAll` passes MSG_NOSIGNAL).
func setNoSigPipe(_ fd: Int32) {
    #if !os(Linux)
    var one: Int32 = 1
    _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
    #endif
}

/// Waits up to `milliseconds` for a connection on `listener` and accepts it, close-on-exec
/// (or children of runProcess would inherit it; accept4 is not visible to Swift without
/// _GNU_SOURCE). nil when none came in time or accept failed. Polling with a timeout lets
/// the caller notice a stop: shutdown() on a listening socket does not wake accept()
/// everywhere.
func acceptConnection(_ listener: Int32, waitingMilliseconds milliseconds: Int32) -> Int32? {
    var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
    guard poll(&descriptor, 1, milliseconds) > 0 else { return nil }
    let fd = accept(listener, nil, nil)
    guard fd >= 0 else { return nil }
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    return fd
}

/// Sends every byte (retrying short sends and EINTR); false when the peer is gone or the
/// send failed or timed out.
func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    #if os(Linux)
    let flags = Int32(MSG_NOSIGNAL)
    #else
    let flags: Int32 = 0  // SO_NOSIGPIPE is set on the socket
    #endif
    var sent = 0
    while sent < bytes.count {
        let count = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, flags) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return false }
        sent += count
    }
    return true
}

/// One read (up to 16 KiB) appended to `buffer`; false on EOF or error. Without `stopped`
/// it blocks in recv; with it, it waits in 100 ms polls and gives up (false) once
/// `stopped()` is true.
func receive(_ fd: Int32, into buffer: inout [UInt8], stopped: (() -> Bool)? = nil) -> Bool {
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    while true {
        if let stopped {
            if stopped() { return false }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 100)
            if ready == 0 || (ready < 0 && errno == EINTR) { continue }
            guard ready > 0 else { return false }
        }
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            buffer += chunk[..<count]
            return true
        }
        if count < 0, errno == EINTR { continue }
        return false
    }
}

/// Reads until `buffer` holds at least `count` bytes; false when `receive` gave up first.
func fill(_ fd: Int32, _ buffer: inout [UInt8], to count: Int, stopped: (() -> Bool)? = nil) -> Bool {
    while buffer.count < count {
        guard receive(fd, into: &buffer, stopped: stopped) else { return false }
    }
    return true
}

// MARK: HTTP/1.1

/// Where the first request head in `buffer` ends, looking for its blank line from index
/// `start` on: `head` is the index before the line break that ends the last header line (a
/// CRLF's CR included), `next` where what follows the blank line starts. Accepts CRLF and
/// bare LF. nil when there is no blank line yet.
func findHeadEnd(_ buffer: [UInt8], from start: Int = 0) -> (head: Int, next: Int)? {
    var index = start
    while index + 1 < buffer.count {
        if buffer[index] == 0x0A {
            if buffer[index + 1] == 0x0A { return (index, index + 2) }  // bare LF LF
            if index + 2 < buffer.count, buffer[index + 1] == 0x0D, buffer[index + 2] == 0x0A {
                return (index > 0 && buffer[index - 1] == 0x0D ? index - 1 : index, index + 3)
            }
        }
        index += 1
    }
    return nil
}

/// A request line and header fields as `parseRequestHead` read them.
struct HTTPRequestHead {
    var method: String
    /// The request target as sent ("/a/b?q", or absolute-form).
    var target: String
    /// Header names lowercased; repeated headers joined with ", ".
    var headers: [String: String]
    /// HTTP/1.0: only with `Connection: keep-alive`; later versions: unless `Connection: close`.
    var keepAlive: Bool
}

/// Parses a request head split into lines (line ends removed; empty lines are skipped):
/// the request line "METHOD target HTTP/x.y", then "Name: value" fields. nil when malformed.
func parseRequestHead(_ lines: [String]) -> HTTPRequestHead? {
    let lines = lines.filter { !$0.isEmpty }
    guard let requestLine = lines.first else { return nil }
    let parts = requestLine.split(separator: " ", omittingEmptySubsequences: true)
    guard parts.count == 3, parts[2].hasPrefix("HTTP/") else { return nil }
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        headers[name] = headers[name].map { "\($0), \(value)" } ?? value
    }
    let connectionTokens = (headers["connection"] ?? "").lowercased()
        .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    let keepAlive = parts[2] == "HTTP/1.0"
        ? connectionTokens.contains("keep-alive")
        : !connectionTokens.contains("close")
    return HTTPRequestHead(method: String(parts[0]), target: String(parts[1]), headers: headers, keepAlive: keepAlive)
}

/// A response's status line and header fields through the blank line: Content-Type,
/// Content-Length, then `extra` (whole "Name: value\r\n" lines), then Connection.
func responseHead(
    _ status: Int, contentType: String, contentLength: Int, extra: String = "", keepAlive: Bool
) -> String {
    "HTTP/1.1 \(status) \(reasonPhrase(status))\r\nContent-Type: \(contentType)\r\n"
        + "Content-Length: \(contentLength)\r\n" + extra
        + "Connection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n"
}

/// The reason phrase for `status`; "Status N" for one not listed.
func reasonPhrase(_ status: Int) -> String {
    switch status {
    case 200: return "OK"
    case 201: return "Created"
    case 202: return "Accepted"
    case 204: return "No Content"
    case 206: return "Partial Content"
    case 400: return "Bad Request"
    case 401: return "Unauthorized"
    case 403: return "Forbidden"
    case 404: return "Not Found"
    case 405: return "Method Not Allowed"
    case 408: return "Request Timeout"
    case 410: return "Gone"
    case 413: return "Content Too Large"
    case 416: return "Range Not Satisfiable"
    case 422: return "Unprocessable Content"
    case 429: return "Too Many Requests"
    case 431: return "Request Header Fields Too Large"
    case 500: return "Internal Server Error"
    case 501: return "Not Implemented"
    case 502: return "Bad Gateway"
    case 503: return "Service Unavailable"
    case 504: return "Gateway Timeout"
    default: return "Status \(status)"
    }
}
