import Foundation
import GLibRuntime
import GStreamerKit
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif



/// A fresh folder under the temporary directory (not created).
func temporaryFolder(_ prefix: String) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
}

struct HTTPResponse: Sendable {
    var status: Int
    /// Header names lowercased.
    var headers: [String: String]
    var body: Data
    var text: String { String(decoding: body, as: UTF8.self) }
}

struct HTTPGetError: Error, CustomStringConvertible {
    var description: String
}

/// A blocking HTTP/1.1 GET on 127.0.0.1 with `Connection: close` (unless `keepAlive`: then
/// the server must close), the path sent as it is (no normalisation); reads to EOF. Run it off the GLib thread, which serves the request.
func httpGet(port: Int, path: String, timeout: Int = 10, keepAlive: Bool = false) throws -> HTTPResponse {
    #if os(Linux)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw HTTPGetError(description: "socket: errno \(errno)") }
    defer { close(fd) }
    var wait = timeval(tv_sec: timeout, tv_usec: 0)
    _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port)).bigEndian
    address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
    guard connected else { throw HTTPGetError(description: "connect to port \(port): errno \(errno)") }
    let connection = keepAlive ? "" : "Connection: close\r\n"
    let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(connection)\r\n".utf8)
    guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else {
        throw HTTPGetError(description: "send: errno \(errno)")
    }
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count == 0 { break }
        guard count > 0 else { throw HTTPGetError(description: "recv (\(received.count) bytes so far): errno \(errno)") }
        received += chunk[0..<count]
    }
    let separator: [UInt8] = [13, 10, 13, 10]
    guard let headEnd = (0...max(0, received.count - 4)).first(where: { Array(received[$0..<min($0 + 4, received.count)]) == separator }) else {
        throw HTTPGetError(description: "no response head in \(received.count) bytes")
    }
    let lines = String(decoding: received[0..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
    let statusParts = lines[0].split(separator: " ")
    guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
        throw HTTPGetError(description: "bad status line \(lines[0])")
    }
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return HTTPResponse(status: status, headers: headers, body: Data(received[(headEnd + 4)...]))
}

/// `httpGet` on a detached task, so the calling actor (the GLib one) stays free to serve.
func fetch(port: Int, path: String) async throws -> HTTPResponse {
    try await Task.detached { try httpGet(port: port, path: path) }.value
}

/// A flag set from any thread.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var set = false
    var value: Bool { lock.withLock { set } }
    func raise() { lock.withLock { set = true } }
}
