#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FoundationEssentials

/// Errors thrown by every MarqueeClient type.
public enum ClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No TCP connection could be made to any address the host resolved to (refused, unreachable,
    /// unresolvable, or not established within the timeout).
    case connectFailed
    /// An operation did not complete within its timeout.
    case timeout
    /// The peer closed or reset the connection before the exchange was complete, or the
    /// connection was already closed locally.
    case closed
    /// The peer sent something that is not valid HTTP / SSE / WebSocket, or the caller passed an
    /// unusable URL, method or header.
    case protocolError(String)
    /// An HTTP error status with its body (for the Marquee API, `{"error": {"code", "message"}}`).
    case http(status: Int, body: Data)

    public var description: String {
        switch self {
        case .connectFailed: return "could not connect"
        case .timeout: return "timed out"
        case .closed: return "connection closed"
        case .protocolError(let message): return "protocol error: \(message)"
        case .http(let status, let body):
            let text = String(decoding: body.prefix(500), as: UTF8.self)
            return text.isEmpty ? "HTTP \(status)" : "HTTP \(status): \(text)"
        }
    }
}

/// A point in monotonic time that bounds one whole operation, so that an operation made of many
/// reads (a response head, a chunked body) cannot exceed its timeout by restarting it per read.
struct Deadline {
    /// nil: wait forever.
    private let end: UInt64?

    /// `timeout` in seconds; infinite (or absurdly large) waits forever; zero, negative or NaN
    /// only takes what is already available.
    init(timeout: Double) {
        if timeout.isNaN || timeout <= 0 {
            end = Deadline.now()
        } else if timeout > 1e9 {
            end = nil
        } else {
            end = Deadline.now() &+ UInt64(timeout * 1e9)
        }
    }

    var hasExpired: Bool {
        guard let end else { return false }
        return Deadline.now() >= end
    }

    /// The remaining time as poll(2) wants it: -1 forever, 0 expired, else milliseconds rounded up
    /// (rounding down would spin on 0 ms polls in the last millisecond).
    var pollMilliseconds: Int32 {
        guard let end else { return -1 }
        let now = Deadline.now()
        if now >= end { return 0 }
        let ms = (end - now + 999_999) / 1_000_000
        return Int32(clamping: ms)
    }

    private static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}

/// A TCP connection with a read buffer, over POSIX sockets.
///
/// Blocking: every call waits on the calling thread, up to its timeout, which bounds the whole
/// call (poll-based; the socket itself is non-blocking). Not thread-safe: use an instance from one
/// thread at a time. Useful on its own to send raw (even malformed) bytes to a server.
public final class TCPConnection {
    private var fd: Int32
    /// Bytes received but not yet consumed. Protocols above parse from here, so bytes that arrive
    /// together with a message head (an HTTP body, the first WebSocket frame) are never lost.
    private(set) var buffer: [UInt8] = []
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    /// Connects to `host` (IPv4 or IPv6 literal, with or without brackets, or a name such as
    /// "localhost") on `port`, trying each resolved address in turn within `timeout` seconds.
    public convenience init(host: String, port: Int, timeout: Double = 10) throws {
        try self.init(host: host, port: port, deadline: Deadline(timeout: timeout))
    }

    init(host: String, port: Int, deadline: Deadline) throws {
        fd = try TCPConnection.connect(host: host, port: port, deadline: deadline)
    }

    deinit { close() }

    public var isOpen: Bool { fd >= 0 }

    /// Closes the socket. Idempotent.
    public func close() {
        if fd >= 0 {
            #if canImport(Glibc)
            _ = Glibc.close(fd)
            #else
            _ = Darwin.close(fd)
            #endif
            fd = -1
        }
        buffer.removeAll()
    }

    /// Half-closes: the peer reads EOF, and responses can still be read.
    public func shutdownWrite() {
        if fd >= 0 { _ = shutdown(fd, Int32(SHUT_WR)) }
    }

    /// Writes all of `data` within `timeout` seconds.
    public func write(_ data: Data, timeout: Double = 10) throws {
        try write(Array(data), deadline: Deadline(timeout: timeout))
    }

    /// Returns up to `maxLength` bytes: what is buffered, else what arrives first.
    /// An empty result means the peer closed its side (EOF).
    public func read(upTo maxLength: Int = 64 * 1024, timeout: Double = 10) throws -> Data {
        if buffer.isEmpty {
            guard try fill(Deadline(timeout: timeout)) else { return Data() }
        }
        return Data(take(upTo: maxLength))
    }

    /// Reads one line ending in LF (a preceding CR is dropped), decoded as UTF-8.
    /// Throws `.closed` if the connection ends first.
    public func readLine(maxLength: Int = 64 * 1024, timeout: Double = 10) throws -> String {
        String(decoding: try readLineBytes(Deadline(timeout: timeout), limit: maxLength), as: UTF8.self)
    }

    // MARK: - Internal, deadline-based operations for the protocol layers

    func write(_ bytes: [UInt8], deadline: Deadline) throws {
        guard fd >= 0 else { throw ClientError.closed }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + offset, raw.count - offset, TCPConnection.sendFlags)
            }
            if n > 0 {
                offset += n
                continue
            }
            let err = errno
            if n < 0 && err == EINTR { continue }
            if n < 0 && (err == EAGAIN || err == EWOULDBLOCK) {
                try wait(for: Int16(POLLOUT), deadline)
                continue
            }
            throw ClientError.closed
        }
    }

    /// Reads once from the socket into `buffer`. Returns false at EOF. On timeout the buffer is
    /// untouched, so a caller may retry later and carry on where it was.
    @discardableResult
    func fill(_ deadline: Deadline) throws -> Bool {
        guard fd >= 0 else { throw ClientError.closed }
        while true {
            let n = scratch.withUnsafeMutableBytes { raw in recv(fd, raw.baseAddress, raw.count, 0) }
            if n > 0 {
                buffer.append(contentsOf: scratch[0..<n])
                return true
            }
            if n == 0 { return false }
            let err = errno
            if err == EINTR { continue }
            if err == EAGAIN || err == EWOULDBLOCK {
                try wait(for: Int16(POLLIN), deadline)
                continue
            }
            throw ClientError.closed
        }
    }

    /// Removes and returns up to `n` buffered bytes.
    func take(upTo n: Int) -> [UInt8] {
        let count = min(n, buffer.count)
        let out = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return out
    }

    func consume(_ n: Int) {
        buffer.removeFirst(min(n, buffer.count))
    }

    /// A line without its CR LF (or bare LF). Nothing is consumed unless a whole line is there,
    /// so a timeout can be retried.
    func readLineBytes(_ deadline: Deadline, limit: Int) throws -> [UInt8] {
        var searchFrom = 0
        while true {
            if let lf = buffer[searchFrom...].firstIndex(of: 0x0A) {
                var line = Array(buffer[0..<lf])
                buffer.removeFirst(lf + 1)
                if line.last == 0x0D { line.removeLast() }
                return line
            }
            searchFrom = buffer.count
            if buffer.count > limit {
                throw ClientError.protocolError("line longer than \(limit) bytes")
            }
            guard try fill(deadline) else { throw ClientError.closed }
        }
    }

    func readExactly(_ n: Int, _ deadline: Deadline) throws -> [UInt8] {
        while buffer.count < n {
            guard try fill(deadline) else { throw ClientError.closed }
        }
        return take(upTo: n)
    }

    // MARK: - Private

    private func wait(for events: Int16, _ deadline: Deadline) throws {
        while true {
            var pfd = pollfd(fd: fd, events: events, revents: 0)
            let rc = poll(&pfd, 1, deadline.pollMilliseconds)
            if rc > 0 { return }
            if rc == 0 { throw ClientError.timeout }
            if errno == EINTR { continue }
            throw ClientError.closed
        }
    }

    #if os(Linux)
    // MSG_NOSIGNAL: a write to a connection the daemon dropped must fail with EPIPE rather than
    // kill the CLI or the test runner with SIGPIPE.
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let sendFlags: Int32 = 0
    #endif

    private static func connect(host rawHost: String, port: Int, deadline: Deadline) throws -> Int32 {
        guard (1...65535).contains(port) else { throw ClientError.connectFailed }
        var host = rawHost
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }

        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        // No AI_ADDRCONFIG: on a box whose only IPv6 address is ::1 it would hide ::1.
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            throw ClientError.connectFailed
        }
        defer { freeaddrinfo(first) }

        // "localhost" may resolve to ::1 first while the daemon listens on 127.0.0.1 only; a refusal
        // is immediate, so trying the next address costs nothing.
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let ai = cursor, !deadline.hasExpired {
            cursor = ai.pointee.ai_next
            let fd = socket(ai.pointee.ai_family, ai.pointee.ai_socktype, ai.pointee.ai_protocol)
            if fd < 0 { continue }
            // Close-on-exec so a daemon the CLI spawns does not inherit our connections.
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            #if canImport(Darwin)
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            if establish(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen, deadline) {
                // Small request/frame writes must not wait for Nagle's delayed ACK dance.
                var one: Int32 = 1
                _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                return fd
            }
            #if canImport(Glibc)
            _ = Glibc.close(fd)
            #else
            _ = Darwin.close(fd)
            #endif
        }
        throw ClientError.connectFailed
    }

    private static func establish(_ fd: Int32, _ addr: UnsafeMutablePointer<sockaddr>?,
                                  _ len: socklen_t, _ deadline: Deadline) -> Bool {
        #if canImport(Glibc)
        let rc = Glibc.connect(fd, addr, len)
        #else
        let rc = Darwin.connect(fd, addr, len)
        #endif
        if rc == 0 { return true }
        guard errno == EINPROGRESS || errno == EINTR else { return false }
        while true {
            var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            let n = poll(&pfd, 1, deadline.pollMilliseconds)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            break
        }
        var soError: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &size) == 0 else { return false }
        return soError == 0
    }
}
