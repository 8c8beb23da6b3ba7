#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import XCTest

/// A failed expectation inside a server script; reported by `ServerRun.wait()`.
struct ScriptFailure: Error, CustomStringConvertible {
    var description: String
}

func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw ScriptFailure(description: message()) }
}

/// A scripted one-shot TCP server on a loopback port chosen by the kernel (port 0), so tests
/// need no fixed port and can run in parallel.
final class LoopbackServer: @unchecked Sendable {
    let listenFD: Int32
    let port: Int

    /// Throws XCTSkip when `ipv6` is asked for and the box has no ::1.
    init(ipv6: Bool = false) throws {
        #if canImport(Glibc)
        let stream = Int32(SOCK_STREAM.rawValue)
        #else
        let stream = SOCK_STREAM
        #endif
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, stream, 0)
        guard fd >= 0 else { throw ScriptFailure(description: "socket() failed") }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))

        var bound: Int32
        if ipv6 {
            var addr = sockaddr_in6()
            addr.sin6_family = sa_family_t(AF_INET6)
            addr.sin6_addr = in6addr_loopback
            addr.sin6_port = 0
            bound = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            addr.sin_port = 0
            bound = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            _ = close(fd)
            if ipv6 { throw XCTSkip("no IPv6 loopback here") }
            throw ScriptFailure(description: "bind/listen failed: errno \(errno)")
        }

        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        let rawPort: UInt16 = withUnsafePointer(to: &storage) { p in
            ipv6 ? p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port }
                 : p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port }
        }
        listenFD = fd
        port = Int(UInt16(bigEndian: rawPort))
    }

    deinit { _ = close(listenFD) }

    /// Accepts one connection on a background thread and runs `script` on it, then closes it.
    func serveOne(_ script: @escaping @Sendable (Peer) throws -> Void) -> ServerRun {
        let run = ServerRun()
        let fd = listenFD
        let thread = Thread {
            do {
                // Bounded waits everywhere, so a client that never comes cannot hang the suite.
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&pfd, 1, 5000) == 1 else { throw ScriptFailure(description: "no client connected") }
                let client = accept(fd, nil, nil)
                guard client >= 0 else { throw ScriptFailure(description: "accept failed") }
                let peer = Peer(fd: client)
                defer { peer.close() }
                try script(peer)
                run.finish(nil)
            } catch {
                run.finish(error)
            }
        }
        thread.start()
        return run
    }
}

/// Completion of one server script.
final class ServerRun: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var error: Error?

    fileprivate func finish(_ error: Error?) {
        lock.lock()
        self.error = error
        lock.unlock()
        done.signal()
    }

    /// Waits for the script and fails the test if it failed or did not finish.
    func assertFinished(timeout: Double = 5, file: StaticString = #filePath, line: UInt = #line) {
        guard done.wait(timeout: .now() + timeout) == .success else {
            XCTFail("server script did not finish", file: file, line: line)
            return
        }
        lock.lock()
        defer { lock.unlock() }
        if let error { XCTFail("server script: \(error)", file: file, line: line) }
    }
}

/// Values a server script hands back to the test.
final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: Any] = [:]

    subscript(key: String) -> Any? {
        get { lock.lock(); defer { lock.unlock() }; return values[key] }
        set { lock.lock(); values[key] = newValue; lock.unlock() }
    }
}

/// The server's side of one connection, with the raw reads and writes a script needs.
final class Peer {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32) {
        self.fd = fd
        var tv = timeval(tv_sec: 5, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    func close() {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }

    /// Reads more into the buffer; false at EOF.
    private func fill() throws -> Bool {
        var tmp = [UInt8](repeating: 0, count: 65536)
        let n = tmp.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0 { throw ScriptFailure(description: "server recv failed: errno \(errno)") }
        if n == 0 { return false }
        buffer += tmp[0..<n]
        return true
    }

    /// The request head up to and including the blank line, as text.
    func readHead() throws -> String {
        let end: [UInt8] = [13, 10, 13, 10]
        while true {
            if buffer.count >= 4, let i = (0...(buffer.count - 4)).first(where: { Array(buffer[$0..<($0 + 4)]) == end }) {
                let head = String(decoding: buffer[0..<(i + 4)], as: UTF8.self)
                buffer.removeFirst(i + 4)
                return head
            }
            guard try fill() else { throw ScriptFailure(description: "EOF before end of request head") }
        }
    }

    func readExactly(_ n: Int) throws -> [UInt8] {
        while buffer.count < n {
            guard try fill() else { throw ScriptFailure(description: "EOF after \(buffer.count) of \(n) bytes") }
        }
        let out = Array(buffer[0..<n])
        buffer.removeFirst(n)
        return out
    }

    /// True when the client closed without sending anything more.
    func readsEOF() throws -> Bool {
        if !buffer.isEmpty { return false }
        return try !fill()
    }

    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            #if os(Linux)
            let flags = Int32(MSG_NOSIGNAL)
            #else
            let flags: Int32 = 0
            #endif
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, flags) }
            if n <= 0 { throw ScriptFailure(description: "server send failed: errno \(errno)") }
            offset += n
        }
    }

    func write(_ text: String) throws { try write(Array(text.utf8)) }

    // MARK: WebSocket, server side

    struct Frame {
        var fin: Bool
        var opcode: UInt8
        var masked: Bool
        var payload: [UInt8]
    }

    /// Reads one frame from the client, unmasking it.
    func readFrame() throws -> Frame {
        let h = try readExactly(2)
        var length = Int(h[1] & 0x7F)
        if length == 126 {
            let e = try readExactly(2)
            length = Int(e[0]) << 8 | Int(e[1])
        } else if length == 127 {
            let e = try readExactly(8)
            length = e.reduce(0) { $0 << 8 | Int($1) }
        }
        let masked = h[1] & 0x80 != 0
        let mask = masked ? try readExactly(4) : [0, 0, 0, 0]
        var payload = try readExactly(length)
        for i in payload.indices { payload[i] ^= mask[i & 3] }
        return Frame(fin: h[0] & 0x80 != 0, opcode: h[0] & 0x0F, masked: masked, payload: payload)
    }

    /// An unmasked server frame, as RFC 6455 requires.
    static func frame(opcode: UInt8, payload: [UInt8], fin: Bool = true) -> [UInt8] {
        var out: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        if payload.count < 126 {
            out.append(UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            out += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            out.append(127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: payload.count >> shift)) }
        }
        return out + payload
    }
}

/// Header lines of a request head, names lowercased.
func headerFields(_ head: String) -> [String: String] {
    var fields: [String: String] = [:]
    for line in head.components(separatedBy: "\r\n").dropFirst() where !line.isEmpty {
        guard let colon = line.firstIndex(of: ":") else { continue }
        fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return fields
}

func requestLine(_ head: String) -> String {
    head.components(separatedBy: "\r\n").first ?? ""
}

/// `text` as one HTTP/1.1 chunk.
func chunk(_ text: String, extensions: String = "") -> String {
    String(text.utf8.count, radix: 16) + extensions + "\r\n" + text + "\r\n"
}
