import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One request as `RecordingHTTPServer` received it.
public struct RecordedRequest: Sendable {
    public let method: String
    /// The request target's path, percent-decoded, without query: "/v0/segment00003.ts".
    public let path: String
    /// Header names lowercased; repeated headers joined with ", ".
    public let headers: [String: String]
    public let time: Date
    /// Which TCP connection carried it, numbered from 1 in accept order: equal numbers
    /// mean the client reused a keep-alive connection.
    public let connection: Int
    /// The request's own number, from 1 in arrival order over all connections.
    public let number: Int
    /// The status answered; nil while unanswered (held, stalled before the head).
    public internal(set) var status: Int?
    /// Body bytes handed to the socket so far: what a cut or stalled body let through, or
    /// where a client that went away stopped it. The kernel's buffers hold some of them, so
    /// a client that closes early may have read less (throttle to keep that small).
    public internal(set) var bytesSent: Int = 0
    /// The request target's query, without the "?" (nil: none).
    public internal(set) var query: String? = nil
}

public struct RecordingHTTPServerError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { "RecordingHTTPServer: \(message)" }
}

/// A static file server on 127.0.0.1 (a free port) for feeding HLS to GStreamer, which
/// records every request and can be told to fail, hang or hold back chosen paths, or to
/// answer a path with text made at request time (a live playlist).
///
/// HTTP/1.1 GET and HEAD, persistent connections, one thread per connection (at most 64
/// at a time; more get 503), single `Range: bytes=` requests answered with 206, request
/// heads up to 64 KiB. Content-Type: application/vnd.apple.mpegurl for .m3u8, video/mp2t
/// for .ts, application/octet-stream otherwise. Paths with ".." are refused (404).
///
/// Faults for download tests: `failNext(path:count:status:)`, `dropConnection(path:afterBytes:count:)`,
/// `stall(path:afterBytes:count:)` (a body that goes silent), `ignoreRange(_:)` (an origin
/// without range support) and `throttle(bytesPerSecond:)`; `bytesSent` on each request counts
/// what its body cost.
///
/// `stop()` (also run by deinit) closes the listener and every connection, including
/// stalled ones, and returns once their threads are done.
public final class RecordingHTTPServer: @unchecked Sendable {
    private let core: ServerCore
    /// The port the listener got.
    public let port: Int

    public init(root: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory),
              isDirectory.boolValue
        else { throw RecordingHTTPServerError(message: "root \(root.path) is not a directory") }
        let (listener, port) = try makeLoopbackListener(backlog: 128) { RecordingHTTPServerError(message: $0) }
        self.port = port
        core = ServerCore(root: root.standardizedFileURL, listener: listener)
        core.start()
    }

    deinit { core.stop() }

    /// "http://127.0.0.1:PORT", no trailing slash.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Every request received so far, oldest first (a snapshot).
    public var requests: [RecordedRequest] { core.withLock { core.requests } }

    public func clearRequests() { core.withLock { core.clearRequests() } }

    /// Answers every later request for `path` ("/v0/segment00003.ts"; the leading slash
    /// may be left out) with `status` and a short text body instead of the file.
    public func respond(to path: String, with status: Int) {
        let key = Self.normalize(path)
        core.withLock { core.statusOverrides[key] = status }
    }

    /// Reads and records every later request for `path`, then never answers it: the
    /// connection stays open, silent, until the client gives up or `stop()`.
    public func stall(path: String) {
        let key = Self.normalize(path)
        core.withLock { _ = core.stalledPaths.insert(key) }
    }

    /// Holds every later request for `path` unanswered until `release(path:)` (or
    /// `clearFaults()`), then serves it normally: a slow server, not a dead one.
    public func hold(path: String) {
        let key = Self.normalize(path)
        core.withLock { _ = core.heldPaths.insert(key) }
    }

    /// The next `count` requests for `path` are answered with `status` (a short text body)
    /// instead of the file; later ones are served again. Counted before `respond(to:with:)`.
    public func failNext(path: String, count: Int, status: Int) {
        let key = Self.normalize(path)
        core.withLock { core.pendingFailures[key] = count > 0 ? (status, count) : nil }
    }

    /// Cuts the body of the next `count` file responses for `path` (nil: every later one)
    /// after `afterBytes` bytes of it, and closes the connection: a body that ends early.
    public func dropConnection(path: String, afterBytes: Int, count: Int? = 1) {
        let key = Self.normalize(path)
        core.withLock { core.bodyCuts[key] = BodyCut(afterBytes: afterBytes, remaining: count, action: .close) }
    }

    /// Sends `afterBytes` bytes of the body of the next `count` file responses for `path`
    /// (nil: every later one), then goes silent with the connection open, until the client
    /// gives up or `stop()`: a stalled transfer.
    public func stall(path: String, afterBytes: Int, count: Int? = 1) {
        let key = Self.normalize(path)
        core.withLock { core.bodyCuts[key] = BodyCut(afterBytes: afterBytes, remaining: count, action: .stall) }
    }

    /// On: Range requests are answered 200 with the whole file, as by an origin without
    /// range support (and no `Accept-Ranges`).
    public func ignoreRange(_ on: Bool) {
        core.withLock { core.rangeIgnored = on }
    }

    /// Sends every later file body at about `bytesPerSecond` (per response); nil: as fast as
    /// the socket takes it.
    public func throttle(bytesPerSecond: Int?) {
        core.withLock { core.throttle = bytesPerSecond.flatMap { $0 > 0 ? $0 : nil } }
    }

    /// Body bytes sent for `path` over all the recorded requests.
    public func bytesSent(path: String) -> Int {
        let key = Self.normalize(path)
        return requests.filter { $0.path == key }.reduce(0) { $0 + $1.bytesSent }
    }

    /// Lets the held requests for `path` (and later ones) through.
    public func release(path: String) {
        let key = Self.normalize(path)
        core.withLock { _ = core.heldPaths.remove(key) }
        core.wakeAll()
    }

    /// Asks `check` about every later request (after the faults above): a status answers it
    /// with that status instead of the file, nil serves it. For origins that authorise
    /// requests, e.g. signed URLs that are spent after one use.
    public func authorize(_ check: (@Sendable (RecordedRequest) -> Int?)?) {
        core.withLock { core.authorizer = check }
    }

    /// Answers `path` with what `body` returns at the time of each request, as
    /// `Content-Type` `contentType`: a live playlist that grows while the test runs.
    public func serve(
        _ path: String, contentType: String = "application/vnd.apple.mpegurl",
        body: @escaping @Sendable () -> String
    ) {
        let key = Self.normalize(path)
        core.withLock { core.dynamicBodies[key] = (contentType, body) }
    }

    /// Forgets every `respond(to:with:)`, `failNext`, `stall`, `dropConnection` and `hold`,
    /// releasing held requests, and ends `ignoreRange` and `throttle`: a healthy server again.
    /// Requests already stalled stay stalled.
    public func clearFaults() {
        core.withLock {
            core.statusOverrides.removeAll()
            core.stalledPaths.removeAll()
            core.heldPaths.removeAll()
            core.pendingFailures.removeAll()
            core.bodyCuts.removeAll()
            core.rangeIgnored = false
            core.throttle = nil
        }
        core.wakeAll()
    }

    /// Closes the listener and all connections; idempotent.
    public func stop() { core.stop() }

    private static func normalize(_ path: String) -> String {
        path.hasPrefix("/") ? path : "/" + path
    }
}

/// The state the threads share; separate from `RecordingHTTPServer` so that threads do
/// not keep the server alive and deinit can stop them.
private final class ServerCore: @unchecked Sendable {
    static let maxConnections = 64
    static let maxHeadBytes = 64 * 1024

    let root: URL
    private let lock = NSCondition()
    // Guarded by `lock`:
    private(set) var requests: [RecordedRequest] = []
    /// The number of `requests[0]`, or of the next request when the list is empty.
    private var firstNumber = 1
    private var requestCount = 0
    var statusOverrides: [String: Int] = [:]
    var pendingFailures: [String: (status: Int, remaining: Int)] = [:]
    var bodyCuts: [String: BodyCut] = [:]
    var rangeIgnored = false
    var throttle: Int?
    var stalledPaths: Set<String> = []
    var heldPaths: Set<String> = []
    var authorizer: (@Sendable (RecordedRequest) -> Int?)?
    var dynamicBodies: [String: (contentType: String, body: @Sendable () -> String)] = [:]
    private var listener: Int32
    private var connections: Set<Int32> = []
    private var connectionSerial = 0
    private var acceptThreadRunning = false
    private var stopped = false

    init(root: URL, listener: Int32) {
        self.root = root
        self.listener = listener
    }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    func start() {
        lock.lock()
        acceptThreadRunning = true
        lock.unlock()
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "RecordingHTTPServer accept"
        thread.start()
    }

    func wakeAll() { withLock { lock.broadcast() } }

    /// Under `lock`.
    func clearRequests() {
        requests.removeAll()
        firstNumber = requestCount + 1
    }

    /// Records a request and returns its number.
    private func record(_ make: (Int) -> RecordedRequest) -> Int {
        withLock {
            requestCount += 1
            requests.append(make(requestCount))
            return requestCount
        }
    }

    /// Updates request `number` unless `clearRequests()` dropped it meanwhile.
    private func update(_ number: Int, _ change: (inout RecordedRequest) -> Void) {
        withLock {
            let index = number - firstNumber
            if requests.indices.contains(index) { change(&requests[index]) }
        }
    }

    /// Takes one of `failNext`'s answers for `path`, if any are left.
    private func takeFailure(_ path: String) -> Int? {
        withLock {
            guard let (status, remaining) = pendingFailures[path] else { return nil }
            pendingFailures[path] = remaining > 1 ? (status, remaining - 1) : nil
            return status
        }
    }

    /// Takes the cut for the body about to be sent for `path`, if any.
    private func takeCut(_ path: String) -> BodyCut? {
        withLock {
            guard var cut = bodyCuts[path] else { return nil }
            if let remaining = cut.remaining {
                cut.remaining = remaining - 1
                bodyCuts[path] = remaining > 1 ? cut : nil
            }
            return cut
        }
    }

    /// Blocks while `path` is held; false when the server stopped meanwhile.
    private func waitWhileHeld(_ path: String) -> Bool {
        withLock {
            while heldPaths.contains(path) && !stopped { lock.wait() }
            return !stopped
        }
    }

    func stop() {
        lock.lock()
        if !stopped {
            stopped = true
            lock.broadcast()
            // shutdown, not close: the owning threads close their descriptors, so a
            // number is never reused while another thread may still use it.
            _ = shutdown(listener, Int32(SHUT_RDWR))
            for fd in connections { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        }
        let deadline = Date().addingTimeInterval(10)
        while acceptThreadRunning || !connections.isEmpty {
            if !lock.wait(until: deadline) { break }
        }
        lock.unlock()
    }

    private func isStopped() -> Bool { withLock { stopped } }

    private func acceptLoop() {
        defer {
            lock.lock()
            close(listener)
            listener = -1
            acceptThreadRunning = false
            lock.broadcast()
            lock.unlock()
        }
        while !isStopped() {
            guard let fd = acceptConnection(listener, waitingMilliseconds: 100) else { continue }
            configure(fd)

            lock.lock()
            let admitted = !stopped && connections.count < Self.maxConnections
            var serial = 0
            if admitted {
                connections.insert(fd)
                connectionSerial += 1
                serial = connectionSerial
            }
            lock.unlock()
            guard admitted else {
                let body = "too many connections\n"
                _ = sendAll(fd, Array((responseHead(503, contentType: "text/plain", contentLength: body.utf8.count,
                                                    keepAlive: false) + body).utf8))
                close(fd)
                continue
            }
            let thread = Thread { [self, serial] in
                serve(fd, serial: serial)
                lock.lock()
                connections.remove(fd)
                close(fd)
                lock.broadcast()
                lock.unlock()
            }
            thread.name = "RecordingHTTPServer connection \(serial)"
            thread.start()
        }
    }

    private func configure(_ fd: Int32) {
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        setNoSigPipe(fd)
        // A client that stops reading must not pin the thread forever.
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    // MARK: Connection

    private func serve(_ fd: Int32, serial: Int) {
        var buffer: [UInt8] = []
        while true {
            let headEnd: Int, bodyStart: Int
            switch readHead(fd, into: &buffer) {
            case let .head(end, next): (headEnd, bodyStart) = (end, next)
            case .closed: return
            case .tooLarge:
                respondSimple(fd, 431, keepAlive: false, head: false)
                return
            }
            let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
            buffer.removeFirst(bodyStart)
            guard var request = parse(head, connection: serial) else {
                respondSimple(fd, 400, keepAlive: false, head: false)
                return
            }
            let number = record { request.recorded.numbered($0) }
            request.recorded = request.recorded.numbered(number)

            // Bodies are unexpected (GET/HEAD); skip a small declared one, refuse others.
            if let length = request.recorded.headers["content-length"].flatMap(Int.init), length > 0 {
                guard length <= 1 << 20, discard(fd, length, buffered: &buffer) else {
                    respondSimple(fd, 413, keepAlive: false, head: false, number: number)
                    return
                }
            }
            if request.recorded.headers["transfer-encoding"] != nil {
                respondSimple(fd, 501, keepAlive: false, head: false, number: number)
                return
            }

            let (stalled, override, dynamic, authorize) = withLock {
                (stalledPaths.contains(request.recorded.path), statusOverrides[request.recorded.path],
                 dynamicBodies[request.recorded.path], authorizer)
            }
            if stalled {
                waitForClose(fd)
                return
            }
            guard waitWhileHeld(request.recorded.path) else { return }
            let isHead = request.recorded.method == "HEAD"
            guard request.recorded.method == "GET" || isHead else {
                respondSimple(fd, 405, keepAlive: false, head: false, extra: "Allow: GET, HEAD\r\n", number: number)
                return
            }
            let keepAlive = request.keepAlive
            let sent: Bool
            if let status = takeFailure(request.recorded.path) ?? override ?? authorize?(request.recorded) {
                sent = respondSimple(fd, status, keepAlive: keepAlive, head: isHead, number: number)
            } else if let dynamic {
                update(number) { $0.status = 200 }
                sent = respondText(fd, dynamic.body(), contentType: dynamic.contentType, keepAlive: keepAlive, head: isHead)
            } else {
                sent = serveFile(fd, request.recorded, keepAlive: keepAlive, head: isHead)
            }
            if !sent || !keepAlive { return }
        }
    }

    private struct ParsedRequest {
        var recorded: RecordedRequest
        var keepAlive: Bool
    }

    private enum HeadResult {
        /// Where the head ends (before the blank line) and where what follows starts.
        case head(Int, Int)
        case closed
        case tooLarge
    }

    /// Fills `buffer` until it holds a whole request head. `.closed` on EOF, error or stop.
    private func readHead(_ fd: Int32, into buffer: inout [UInt8]) -> HeadResult {
        var searchFrom = 0
        while true {
            let found = findHeadEnd(buffer, from: searchFrom)
            if let found {
                return found.1 > Self.maxHeadBytes ? .tooLarge : .head(found.0, found.1)
            }
            if buffer.count > Self.maxHeadBytes { return .tooLarge }
            searchFrom = max(0, buffer.count - 3)
            guard receive(fd, into: &buffer) else { return .closed }
        }
    }

    private func discard(_ fd: Int32, _ length: Int, buffered buffer: inout [UInt8]) -> Bool {
        guard fill(fd, &buffer, to: length) else { return false }
        buffer.removeFirst(length)
        return true
    }

    private func waitForClose(_ fd: Int32) {
        var sink: [UInt8] = []
        while receive(fd, into: &sink) { sink.removeAll(keepingCapacity: true) }
    }

    private func parse(_ head: String, connection: Int) -> ParsedRequest? {
        // \r\n is one Character in Swift, so it splits once; parseRequestHead drops stray empties.
        let lines = head.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
        guard let parsed = parseRequestHead(lines) else { return nil }
        var target = parsed.target
        var query: String?
        if let scheme = target.range(of: "://") {  // absolute-form
            let afterAuthority = target[scheme.upperBound...].firstIndex(of: "/")
            target = afterAuthority.map { String(target[$0...]) } ?? "/"
        }
        if let mark = target.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            if target[mark] == "?" { query = String(target[target.index(after: mark)...].prefix { $0 != "#" }) }
            target = String(target[..<mark])
        }
        let path = target.removingPercentEncoding ?? target
        var recorded = RecordedRequest(method: parsed.method, path: path, headers: parsed.headers, time: Date(), connection: connection)
        recorded.query = query
        return ParsedRequest(recorded: recorded, keepAlive: parsed.keepAlive)
    }

    // MARK: Responses

    /// A short text answer; `number`: the request whose status it records.
    @discardableResult
    private func respondSimple(
        _ fd: Int32, _ status: Int, keepAlive: Bool, head: Bool, extra: String = "", number: Int? = nil
    ) -> Bool {
        if let number { update(number) { $0.status = status } }
        let body = "\(status) \(reasonPhrase(status))\n"
        var text = responseHead(status, contentType: "text/plain", contentLength: body.utf8.count, extra: extra,
                                keepAlive: keepAlive)
        if !head { text += body }
        return sendAll(fd, Array(text.utf8))
    }

    private func respondText(_ fd: Int32, _ body: String, contentType: String, keepAlive: Bool, head: Bool) -> Bool {
        var text = responseHead(200, contentType: contentType, contentLength: body.utf8.count,
                                extra: "Cache-Control: no-cache\r\n", keepAlive: keepAlive)
        if !head { text += body }
        return sendAll(fd, Array(text.utf8))
    }

    private func serveFile(_ fd: Int32, _ request: RecordedRequest, keepAlive: Bool, head: Bool) -> Bool {
        let components = request.path.split(separator: "/", omittingEmptySubsequences: true)
        let number = request.number
        guard request.path.hasPrefix("/"), !components.contains(".."), !components.contains(".") else {
            return respondSimple(fd, 404, keepAlive: keepAlive, head: head, number: number)
        }
        let file = components.reduce(root) { $0.appendingPathComponent(String($1)) }
        let handle = open(file.path, O_RDONLY | O_CLOEXEC)
        guard handle >= 0 else { return respondSimple(fd, 404, keepAlive: keepAlive, head: head, number: number) }
        defer { close(handle) }
        var info = stat()
        guard fstat(handle, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            return respondSimple(fd, 404, keepAlive: keepAlive, head: head, number: number)
        }
        let size = Int(info.st_size)

        var status = 200
        var range = 0..<size
        var extra = ""
        let ignoringRange = withLock { self.rangeIgnored }
        if let header = request.headers["range"], !ignoringRange {
            switch Self.byteRange(header, size: size) {
            case .none: break
            case .unsatisfiable:
                return respondSimple(fd, 416, keepAlive: keepAlive, head: head,
                                     extra: "Content-Range: bytes */\(size)\r\n", number: number)
            case let .satisfiable(requested):
                status = 206
                range = requested
                extra = "Content-Range: bytes \(requested.lowerBound)-\(requested.upperBound - 1)/\(size)\r\n"
            }
        }
        let headText = responseHead(status, contentType: Self.contentType(request.path), contentLength: range.count,
                                    extra: (ignoringRange ? "" : "Accept-Ranges: bytes\r\n") + extra, keepAlive: keepAlive)
        update(number) { $0.status = status }
        guard sendAll(fd, Array(headText.utf8)) else { return false }
        if head { return true }
        return sendBody(fd, handle, range, number: number, cut: takeCut(request.path), throttle: withLock { self.throttle })
    }

    /// Sends `range` of the file, recording the bytes as they go; `cut` ends it early
    /// (closing the connection or going silent), `throttle` paces it. False when the
    /// connection must close.
    private func sendBody(_ fd: Int32, _ handle: Int32, _ range: Range<Int>, number: Int, cut: BodyCut?, throttle: Int?) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        // Small pieces when throttled, so the pace is even (a twentieth of a second each).
        let piece = throttle.map { min(chunk.count, max(1024, $0 / 20)) } ?? chunk.count
        let started = Date()
        var offset = range.lowerBound
        var sent = 0
        while offset < range.upperBound {
            var wanted = min(piece, range.upperBound - offset)
            if let cut {
                wanted = min(wanted, cut.afterBytes - sent)
                if wanted <= 0 {
                    if cut.action == .stall { waitForClose(fd) }
                    return false
                }
            }
            if let throttle {
                let due = started.addingTimeInterval(Double(sent) / Double(throttle)).timeIntervalSinceNow
                if due > 0 { Thread.sleep(forTimeInterval: due) }
                if isStopped() { return false }
            }
            let count = chunk.withUnsafeMutableBytes { pread(handle, $0.baseAddress, wanted, off_t(offset)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0, sendAll(fd, Array(chunk[..<count])) else { return false }
            offset += count
            sent += count
            update(number) { $0.bytesSent += count }
        }
        return true
    }

    private enum ByteRange {
        case none
        case unsatisfiable
        case satisfiable(Range<Int>)
    }

    /// One `bytes=` range (RFC 9110 14.1.2); several ranges or a malformed header are
    /// answered with the whole file, which the RFC allows.
    private static func byteRange(_ header: String, size: Int) -> ByteRange {
        let value = header.trimmingCharacters(in: .whitespaces)
        guard value.lowercased().hasPrefix("bytes="), !value.contains(",") else { return .none }
        let spec = value.dropFirst(6).trimmingCharacters(in: .whitespaces)
        guard let dash = spec.firstIndex(of: "-") else { return .none }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            guard let suffix = Int(last) else { return .none }
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            return .satisfiable(max(0, size - suffix)..<size)
        }
        guard let start = Int(first), start >= 0 else { return .none }
        var end = size - 1
        if !last.isEmpty {
            guard let requested = Int(last), requested >= start else { return .none }
            end = min(requested, size - 1)
        }
        guard start < size else { return .unsatisfiable }
        return .satisfiable(start..<(end + 1))
    }

    private static func contentType(_ path: String) -> String {
        let lowered = path.lowercased()
        if lowered.hasSuffix(".m3u8") { return "application/vnd.apple.mpegurl" }
        if lowered.hasSuffix(".ts") { return "video/mp2t" }
        if lowered.hasSuffix(".vtt") { return "text/vtt" }
        return "application/octet-stream"
    }
}

/// How `dropConnection` and `stall(path:afterBytes:count:)` end a body early.
struct BodyCut {
    enum Action { case close, stall }
    var afterBytes: Int
    /// Responses left to cut; nil: every one.
    var remaining: Int?
    var action: Action
}

extension RecordedRequest {
    init(method: String, path: String, headers: [String: String], time: Date, connection: Int) {
        self.init(method: method, path: path, headers: headers, time: time, connection: connection, number: 0)
    }

    /// This request as number `number`.
    func numbered(_ number: Int) -> RecordedRequest {
        RecordedRequest(method: method, path: path, headers: headers, time: time, connection: connection, number: number,
                        status: status, bytesSent: bytesSent, query: query)
    }
}
