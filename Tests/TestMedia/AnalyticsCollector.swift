import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One POST as `AnalyticsCollector` received it, with the status it was answered.
public struct CollectedPost: Sendable {
    /// The request target's path, without query: "/collect".
    public let path: String
    public let body: Data
    /// Header names lowercased.
    public let headers: [String: String]
    /// What the collector answered: 200 when up, else what `answer(_:)` set.
    public let status: Int
    public let time: Date
    /// Which TCP connection carried it, numbered from 1 in accept order.
    public let connection: Int

    /// The body as a JSON object; nil when it is not one.
    public var json: [String: Any]? { try? JSONSerialization.jsonObject(with: body) as? [String: Any] }
    public var seq: Int? { json?["seq"] as? Int }
    public var event: String? { json?["event"] as? String }
    /// Answered 2xx: the sender may count it delivered.
    public var accepted: Bool { (200..<300).contains(status) }
}

public struct AnalyticsCollectorError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { "AnalyticsCollector: \(message)" }
}

/// A tiny HTTP/1.1 collector on 127.0.0.1 (a free port) for the daemon's analytics events:
/// records every POSTed body in arrival order with the status it answered, and can be told
/// to answer 503 (down), 400 (refusing) or any other status; 200 `{}` by default.
///
/// Persistent connections, one thread per connection, `Content-Length` and chunked request
/// bodies (up to 1 MiB), `Expect: 100-continue`. Requests other than POST get 405 and are
/// not recorded. `stop()` (also run by deinit) closes the listener and every connection and
/// returns once their threads are done.
public final class AnalyticsCollector: @unchecked Sendable {
    private let core: CollectorCore
    public let port: Int

    public init() throws {
        let (listener, port) = try CollectorCore.makeListener()
        self.port = port
        core = CollectorCore(listener: listener)
        core.start()
    }

    deinit { core.stop() }

    /// The URL to pass as `--analytics-url`.
    public var url: String { "http://127.0.0.1:\(port)/collect" }

    /// Answers every later POST with `status` (200 again for "up"). A request being answered
    /// at the moment of the call gets whichever status it read first.
    public func answer(_ status: Int) {
        core.withLock { core.status = status }
    }

    /// Every POST so far, oldest first (a snapshot).
    public var posts: [CollectedPost] { core.withLock { core.posts } }

    /// The POSTs answered 2xx, oldest first.
    public var accepted: [CollectedPost] { posts.filter(\.accepted) }

    /// Polls until `condition` holds for the posts so far or `timeout` passes; returns the
    /// posts of the last check and whether the condition held.
    public func waitFor(timeout: Double, _ condition: ([CollectedPost]) -> Bool) -> (posts: [CollectedPost], met: Bool) {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let now = posts
            if condition(now) { return (now, true) }
            if Date() >= deadline { return (now, false) }
            core.waitForPost(until: min(deadline, Date().addingTimeInterval(0.1)))
        }
    }

    /// Waits until no client connection is open (each client closed its side or died, and
    /// what it had sent is recorded). True when that happened within `timeout`.
    public func waitUntilNoConnections(timeout: Double) -> Bool {
        core.waitUntilNoConnections(until: Date().addingTimeInterval(timeout))
    }

    /// Closes the listener and all connections; idempotent.
    public func stop() { core.stop() }
}

/// The state the threads share; separate so that threads do not keep the collector alive.
private final class CollectorCore: @unchecked Sendable {
    static let maxHeadBytes = 64 * 1024
    static let maxBodyBytes = 1 << 20

    private let lock = NSCondition()
    // Guarded by `lock`:
    var status = 200
    var posts: [CollectedPost] = []
    private let listener: Int32
    private var connections: Set<Int32> = []
    private var threads = 0
    private var connectionSerial = 0
    private var stopped = false

    init(listener: Int32) { self.listener = listener }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    func waitForPost(until deadline: Date) {
        withLock { _ = lock.wait(until: deadline) }
    }

    func waitUntilNoConnections(until deadline: Date) -> Bool {
        withLock {
            while !connections.isEmpty {
                guard lock.wait(until: deadline) else { return connections.isEmpty }
            }
            return true
        }
    }

    static func makeListener() throws -> (Int32, Int) {
        #if os(Linux)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw AnalyticsCollectorError(message: "socket: \(errnoText())") }
        #if !os(Linux)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(fd, pointer, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            let reason = errnoText()
            close(fd)
            throw AnalyticsCollectorError(message: "bind/listen on 127.0.0.1: \(reason)")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    func start() {
        withLock { threads += 1 }
        let thread = Thread { [self] in
            acceptLoop()
            threadDone()
        }
        thread.name = "AnalyticsCollector accept"
        thread.start()
    }

    func stop() {
        lock.lock()
        if !stopped {
            stopped = true
            // shutdown, not close: each owning thread closes its descriptor, so a number is
            // never reused while another thread may still use it.
            for fd in connections { shutdown(fd, Int32(SHUT_RDWR)) }
            lock.broadcast()
        }
        while threads > 0 { lock.wait() }
        lock.unlock()
    }

    private func threadDone() {
        withLock {
            threads -= 1
            lock.broadcast()
        }
    }

    private var isStopped: Bool { withLock { stopped } }

    private func acceptLoop() {
        defer { close(listener) }
        while !isStopped {
            var pfd = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 100) > 0 else { continue }
            // Close-on-exec, or children of runProcess would inherit it. (accept4 is not
            // visible to Swift without _GNU_SOURCE.)
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { continue }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            #if !os(Linux)
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let serial: Int? = withLock {
                guard !stopped else { return nil }
                connections.insert(fd)
                connectionSerial += 1
                threads += 1
                return connectionSerial
            }
            guard let serial else {
                close(fd)
                return
            }
            let thread = Thread { [self] in
                serve(fd, connection: serial)
                withLock {
                    _ = connections.remove(fd)
                    lock.broadcast()
                }
                close(fd)
                threadDone()
            }
            thread.name = "AnalyticsCollector connection \(serial)"
            thread.start()
        }
    }

    // MARK: One connection

    private func serve(_ fd: Int32, connection: Int) {
        var buffer: [UInt8] = []
        while true {
            guard let headEnd = readHead(fd, into: &buffer) else { return }
            let head = String(decoding: buffer[..<headEnd.head], as: UTF8.self)
            buffer.removeFirst(headEnd.next)
            guard let request = parse(head) else {
                respond(fd, 400, keepAlive: false)
                return
            }
            if request.headers["expect"]?.lowercased() == "100-continue" {
                guard sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return }
            }
            let body: [UInt8]
            if request.headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
                guard let chunked = readChunked(fd, buffered: &buffer) else {
                    respond(fd, 400, keepAlive: false)
                    return
                }
                body = chunked
            } else {
                let length = request.headers["content-length"].flatMap { Int($0) } ?? 0
                guard (0...Self.maxBodyBytes).contains(length) else {
                    respond(fd, 413, keepAlive: false)
                    return
                }
                guard fill(fd, &buffer, to: length) else { return }
                body = Array(buffer[..<length])
                buffer.removeFirst(length)
            }
            guard request.method == "POST" else {
                guard respond(fd, 405, keepAlive: request.keepAlive, extra: "Allow: POST\r\n") else { return }
                if !request.keepAlive { return }
                continue
            }
            let status: Int = withLock {
                let status = self.status
                posts.append(CollectedPost(path: request.path, body: Data(body), headers: request.headers, status: status,
                                           time: Date(), connection: connection))
                lock.broadcast()
                return status
            }
            guard respond(fd, status, keepAlive: request.keepAlive) else { return }
            if !request.keepAlive { return }
        }
    }

    private struct Request {
        var method: String
        var path: String
        var headers: [String: String]
        var keepAlive: Bool
    }

    private func parse(_ head: String) -> Request? {
        // Split on the bytes: "\r\n" is one Character in Swift and would not match "\n".
        let lines = head.utf8.split(separator: 0x0A, omittingEmptySubsequences: true)
            .map { String(decoding: $0.last == 0x0D ? $0.dropLast() : $0[...], as: UTF8.self) }
            .filter { !$0.isEmpty }
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
        var path = String(parts[1])
        if let query = path.firstIndex(of: "?") { path = String(path[..<query]) }
        let tokens = (headers["connection"] ?? "").lowercased().split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let keepAlive = parts[2] == "HTTP/1.0" ? tokens.contains("keep-alive") : !tokens.contains("close")
        return Request(method: String(parts[0]), path: path, headers: headers, keepAlive: keepAlive)
    }

    /// Reads until `buffer` holds a whole head; returns where it ends (before the blank
    /// line) and where what follows starts; nil on EOF, error, stop or an oversized head.
    private func readHead(_ fd: Int32, into buffer: inout [UInt8]) -> (head: Int, next: Int)? {
        while true {
            if let end = findHeadEnd(buffer) { return end }
            guard buffer.count <= Self.maxHeadBytes, receive(fd, into: &buffer) else { return nil }
        }
    }

    private func findHeadEnd(_ buffer: [UInt8]) -> (head: Int, next: Int)? {
        var index = 0
        while index + 1 < buffer.count {
            if buffer[index] == 0x0A {
                if buffer[index + 1] == 0x0A { return (index, index + 2) }
                if index + 2 < buffer.count, buffer[index + 1] == 0x0D, buffer[index + 2] == 0x0A {
                    return (index > 0 && buffer[index - 1] == 0x0D ? index - 1 : index, index + 3)
                }
            }
            index += 1
        }
        return nil
    }

    /// Reads a chunked body (trailers skipped); nil when malformed, too large or cut off.
    private func readChunked(_ fd: Int32, buffered buffer: inout [UInt8]) -> [UInt8]? {
        var body: [UInt8] = []
        while true {
            guard let line = readLine(fd, &buffer) else { return nil }
            let sizeText = line.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0,
                  body.count + size <= Self.maxBodyBytes else { return nil }
            if size == 0 {
                while let trailer = readLine(fd, &buffer), !trailer.isEmpty {}
                return body
            }
            guard fill(fd, &buffer, to: size + 2) else { return nil }
            body += buffer[..<size]
            buffer.removeFirst(size + 2)
        }
    }

    private func readLine(_ fd: Int32, _ buffer: inout [UInt8]) -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                var line = Array(buffer[..<newline])
                if line.last == 0x0D { line.removeLast() }
                buffer.removeFirst(newline + 1)
                return String(decoding: line, as: UTF8.self)
            }
            guard buffer.count <= Self.maxHeadBytes, receive(fd, into: &buffer) else { return nil }
        }
    }

    private func fill(_ fd: Int32, _ buffer: inout [UInt8], to count: Int) -> Bool {
        while buffer.count < count {
            guard receive(fd, into: &buffer) else { return false }
        }
        return true
    }

    /// One read; false on EOF, error or stop. Wakes every 100 ms to notice `stop()`.
    private func receive(_ fd: Int32, into buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while !isStopped {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, 100)
            if ready == 0 || (ready < 0 && errno == EINTR) { continue }
            guard ready > 0 else { return false }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer += chunk[..<count]
                return true
            }
            if count < 0, errno == EINTR { continue }
            return false
        }
        return false
    }

    @discardableResult
    private func respond(_ fd: Int32, _ status: Int, keepAlive: Bool, extra: String = "") -> Bool {
        let body = (200..<300).contains(status) ? "{}" : "{\"error\":\"\(status)\"}"
        let text = "HTTP/1.1 \(status) \(Self.reason(status))\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n" + extra
            + "Connection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n" + body
        return sendAll(fd, Array(text.utf8))
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 413: return "Content Too Large"
        case 422: return "Unprocessable Content"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return "Status \(status)"
        }
    }
}

private func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
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

private func errnoText() -> String { String(cString: strerror(errno)) }
