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

/// What `AnalyticsCollector.respond(with:)` answers a POST with.
public struct PostReply: Sendable {
    public var status: Int
    public var contentType: String
    public var body: Data
    /// Seconds to wait before answering (a slow server).
    public var delay: Double

    public init(status: Int = 200, contentType: String = "application/json", body: Data = Data("{}".utf8), delay: Double = 0) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.delay = delay
    }

    /// A JSON reply made from a JSON-serialisable object.
    public static func json(_ object: Any, status: Int = 200, delay: Double = 0) -> PostReply {
        PostReply(status: status, body: (try? JSONSerialization.data(withJSONObject: object)) ?? Data("{}".utf8), delay: delay)
    }
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
        let (listener, port) = try makeLoopbackListener(backlog: 64) { AnalyticsCollectorError(message: $0) }
        setNoSigPipe(listener)
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
        core.withLock {
            core.status = status
            core.responder = nil
        }
    }

    /// Answers 2xx with this JSON text instead of `{}` (a licence server answering a licence).
    public func answer(_ status: Int, body json: String) {
        core.withLock {
            core.status = status
            core.successBody = json
            core.responder = nil
        }
    }

    /// Answers each later POST with what `responder` makes of it (a session server's verdict,
    /// a key service's raw key, a resolver's fresh URL); it runs on the connection's thread,
    /// after the POST is recorded with the reply's status. Replaces `answer(_:)`'s status
    /// until `answer` is called again.
    public func respond(with responder: @escaping @Sendable (CollectedPost) -> PostReply) {
        core.withLock { core.responder = responder }
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
    /// The body of a 2xx answer (a licence server's licence).
    var successBody = "{}"
    /// When set, makes each reply instead of `status` and `successBody`.
    var responder: (@Sendable (CollectedPost) -> PostReply)?
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
            guard let fd = acceptConnection(listener, waitingMilliseconds: 100) else { continue }
            setNoSigPipe(fd)
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
                guard fill(fd, &buffer, to: length, stopped: { self.isStopped }) else { return }
                body = Array(buffer[..<length])
                buffer.removeFirst(length)
            }
            guard request.method == "POST" else {
                guard respond(fd, 405, keepAlive: request.keepAlive, extra: "Allow: POST\r\n") else { return }
                if !request.keepAlive { return }
                continue
            }
            let (status, responder) = withLock { (self.status, self.responder) }
            var post = CollectedPost(path: request.path, body: Data(body), headers: request.headers, status: status,
                                     time: Date(), connection: connection)
            let reply = responder?(post)
            if let reply { post = CollectedPost(path: post.path, body: post.body, headers: post.headers, status: reply.status,
                                                time: post.time, connection: connection) }
            withLock {
                posts.append(post)
                lock.broadcast()
            }
            if let reply {
                if reply.delay > 0 { Thread.sleep(forTimeInterval: reply.delay) }
                let head = responseHead(reply.status, contentType: reply.contentType, contentLength: reply.body.count,
                                        extra: "", keepAlive: request.keepAlive)
                guard sendAll(fd, Array(head.utf8) + Array(reply.body)) else { return }
            } else {
                guard respond(fd, status, keepAlive: request.keepAlive) else { return }
            }
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
        guard let request = parseRequestHead(lines) else { return nil }
        var path = request.target
        if let query = path.firstIndex(of: "?") { path = String(path[..<query]) }
        return Request(method: request.method, path: path, headers: request.headers, keepAlive: request.keepAlive)
    }

    /// Reads until `buffer` holds a whole head; returns where it ends (before the blank
    /// line) and where what follows starts; nil on EOF, error, stop or an oversized head.
    private func readHead(_ fd: Int32, into buffer: inout [UInt8]) -> (head: Int, next: Int)? {
        while true {
            if let end = findHeadEnd(buffer) { return end }
            guard buffer.count <= Self.maxHeadBytes, receive(fd, into: &buffer, stopped: { self.isStopped }) else {
                return nil
            }
        }
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
            guard fill(fd, &buffer, to: size + 2, stopped: { self.isStopped }) else { return nil }
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
            guard buffer.count <= Self.maxHeadBytes, receive(fd, into: &buffer, stopped: { self.isStopped }) else {
                return nil
            }
        }
    }

    @discardableResult
    private func respond(_ fd: Int32, _ status: Int, keepAlive: Bool, extra: String = "") -> Bool {
        let body = (200..<300).contains(status) ? withLock { successBody } : "{\"error\":\"\(status)\"}"
        let text = responseHead(status, contentType: "application/json", contentLength: body.utf8.count, extra: extra,
                                keepAlive: keepAlive) + body
        return sendAll(fd, Array(text.utf8))
    }
}
