import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// What a hostile client on the network can send, straight onto a socket: every request
/// gets a 4xx JSON error with a stable code (or, for bytes that are not HTTP at all, a bare
/// 400 and a closed connection), nothing stalls other clients, and the daemon keeps playing.
final class HostileRequestTests: XCTestCase {
    var daemon: Daemon!
    /// Short, so the stalled-request rows finish quickly.
    static let requestTimeout = 2.0

    override func setUpWithError() throws {
        daemon = try Daemon(extraArguments: ["--request-timeout", "\(Self.requestTimeout)"])
    }
    override func tearDown() { XCTAssertEqual(daemon.stop(), 0) }

    var port: Int { URL(string: daemon.url)!.port! }

    struct Row {
        var name: String
        var request: [UInt8]
        var status: Int
        /// The error code of the JSON body; nil for libsoup's bare answer to non-HTTP bytes.
        var code: String?
    }

    static func request(_ method: String, _ target: String, body: [UInt8] = [], headers: [String] = []) -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for header in headers { head += header + "\r\n" }
        if !body.isEmpty || method != "GET" { head += "Content-Length: \(body.count)\r\n" }
        return Array((head + "\r\n").utf8) + body
    }

    static func json(_ text: String) -> [UInt8] { Array(text.utf8) }

    static let rows: [Row] = [
        // Wrong types, and numbers JSON does not have.
        Row(name: "uri as an array", request: request("POST", "/v1/player/open", body: json(#"{"uri": ["a"]}"#)), status: 400, code: "invalid_argument"),
        Row(name: "position as a string", request: request("POST", "/v1/player/seek", body: json(#"{"position": "10"}"#)), status: 400, code: "invalid_argument"),
        Row(name: "NaN", request: request("POST", "/v1/player/seek", body: json(#"{"position": NaN}"#)), status: 400, code: "invalid_json"),
        Row(name: "1e400", request: request("PATCH", "/v1/player", body: json(#"{"volume": 1e400}"#)), status: 400, code: "invalid_json"),
        Row(name: "huge rate", request: request("PATCH", "/v1/player", body: json(#"{"rate": 1e308}"#)), status: 400, code: "invalid_argument"),
        Row(name: "negative audio delay", request: request("PATCH", "/v1/player", body: json(#"{"audioDelay": -1e300}"#)), status: 400, code: "invalid_argument"),
        Row(name: "negative timeshift window", request: request("POST", "/v1/player/open", body: json(#"{"uri": "demo://", "timeshift": {"window": -5}}"#)), status: 400, code: "invalid_argument"),
        Row(name: "negative start", request: request("POST", "/v1/player/open", body: json(#"{"uri": "demo://", "start": -1}"#)), status: 400, code: "invalid_argument"),
        Row(name: "rect out of the frame", request: request("POST", "/v1/pip", body: json(#"{"uri": "demo://", "rect": {"x": -1, "y": 0, "width": 5, "height": 0.3}}"#)), status: 400, code: "invalid_argument"),
        // Header injection through values that end up in outgoing requests.
        Row(name: "CR/LF in a source header", request: request("POST", "/v1/player/open", body: json(#"{"uri": "http://127.0.0.1:9/a.m3u8", "headers": {"X-A": "b\r\nInjected: 1"}}"#)), status: 400, code: "invalid_argument"),
        Row(name: "CR/LF in a header name", request: request("POST", "/v1/player/open", body: json(#"{"uri": "http://127.0.0.1:9/a.m3u8", "headers": {"X-A\r\nB": "c"}}"#)), status: 400, code: "invalid_argument"),
        Row(name: "CR/LF in the referer", request: request("POST", "/v1/player/open", body: json(#"{"uri": "http://127.0.0.1:9/a.m3u8", "referer": "x\r\nInjected: 1"}"#)), status: 400, code: "invalid_argument"),
        // Bytes that are not text, sizes no real request has.
        Row(name: "invalid UTF-8 in the body", request: request("POST", "/v1/player/open", body: json(#"{"uri": ""#) + [0xFF, 0xFE, 0xC0] + json(#""}"#)), status: 400, code: "invalid_json"),
        Row(name: "invalid UTF-8 in the path", request: Array("GET /v1/pl".utf8) + [0xFF, 0xFE] + Array("ayer HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8), status: 404, code: "route_not_found"),
        Row(name: "a 100 KB uri", request: request("POST", "/v1/player/open", body: json(#"{"uri": "/"# + String(repeating: "a", count: 100_000) + #""}"#)), status: 400, code: "invalid_argument"),
        Row(name: "a 100 KB content id", request: request("POST", "/v1/player/open", body: json(#"{"uri": "demo://", "contentId": ""# + String(repeating: "a", count: 100_000) + #""}"#)), status: 400, code: "invalid_argument"),
        Row(name: "a 100 KB watermark", request: request("PUT", "/v1/overlays/watermark", body: json(#"{"text": ""# + String(repeating: "a", count: 100_000) + #""}"#)), status: 400, code: "invalid_argument"),
        Row(name: "JSON nested 100 000 deep", request: request("POST", "/v1/player/open", body: Array(repeating: UInt8(ascii: "["), count: 100_000) + Array(repeating: UInt8(ascii: "]"), count: 100_000)), status: 400, code: "invalid_json"),
        Row(name: "a body over 1 MiB", request: request("POST", "/v1/player/open", body: Array(repeating: 0x20, count: (1 << 20) + 1)), status: 413, code: "payload_too_large"),
        Row(name: "a chunked body", request: Array("POST /v1/player/open HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n".utf8), status: 413, code: "payload_too_large"),
        Row(name: "a 40 KB header", request: request("GET", "/v1/player", headers: ["X-Big: " + String(repeating: "a", count: 40_000)]), status: 431, code: "headers_too_large"),
        Row(name: "500 headers", request: request("GET", "/v1/player", headers: (0..<500).map { "X-H\($0): v" }), status: 431, code: "headers_too_large"),
        Row(name: "a DNS name as Host (rebinding)", request: Array("GET /v1/player HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n".utf8), status: 403, code: "forbidden"),
        Row(name: "a foreign Origin", request: request("POST", "/v1/player/stop", headers: ["Origin: https://attacker.example"]), status: 403, code: "forbidden"),
        Row(name: "an unknown method", request: request("BREW", "/v1/player"), status: 405, code: "method_not_allowed"),
        Row(name: "a bad wait", request: request("POST", "/v1/player/pause?wait=%FF%FE"), status: 400, code: "invalid_argument"),
        Row(name: "a WebSocket handshake without a key", request: request("GET", "/v1/events", headers: ["Upgrade: websocket", "Connection: Upgrade"]), status: 400, code: "invalid_argument"),
        // Not HTTP at all: libsoup answers before any handler sees it.
        Row(name: "raw garbage", request: [0x00, 0xFF, 0xFE] + Array(" garbage\r\n\r\n".utf8), status: 400, code: nil),
        Row(name: "a bad Content-Length", request: Array("POST /v1/player/open HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n".utf8), status: 400, code: nil),
    ]

    func testHostileRequestsTable() throws {
        for row in Self.rows {
            let connection = try TCPConnection(host: "127.0.0.1", port: port)
            defer { connection.close() }
            try connection.write(Data(row.request))
            let (reply, _) = try readUntilClosed(connection, timeout: 10)
            guard let (status, body) = parseResponse(reply) else {
                XCTFail("\(row.name): no HTTP response, got \(reply.count) bytes")
                continue
            }
            XCTAssertEqual(status, row.status, "\(row.name): \(String(decoding: body.prefix(300), as: UTF8.self))")
            if let code = row.code {
                let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
                XCTAssertEqual(object?.errorCode, code, "\(row.name): \(String(decoding: body.prefix(300), as: UTF8.self))")
                XCTAssertNotNil((object?["error"] as? [String: Any])?["message"] as? String, row.name)
            }
        }
        try daemon.assertStillPlays()
    }

    /// A client that sends half a request, or connects and says nothing, is cut off after the
    /// request timeout, and meanwhile everyone else is served at once.
    func testStalledClientsAreCutOffAndBlockNobody() throws {
        let halfRequest = try TCPConnection(host: "127.0.0.1", port: port)
        let silent = try TCPConnection(host: "127.0.0.1", port: port)
        let halfBody = try TCPConnection(host: "127.0.0.1", port: port)
        defer { [halfRequest, silent, halfBody].forEach { $0.close() } }
        try halfRequest.write(Data("GET /v1/player HTTP/1.1\r\nHost: 127".utf8))
        try halfBody.write(Data("POST /v1/player/open HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{\"uri\":".utf8))
        // Others are served while those three hang.
        for _ in 0..<20 { XCTAssertEqual(try daemon.client.get("/v1/player").status, 200) }
        try daemon.assertStillPlays()
        // Cut off within the timeout plus the once-a-second sweep (generous for slow runs).
        for (name, connection) in [("half request", halfRequest), ("silent", silent), ("half body", halfBody)] {
            let (reply, closed) = try readUntilClosed(connection, timeout: Self.requestTimeout + 8)
            XCTAssertTrue(closed, "\(name) is still open")
            XCTAssertTrue(reply.isEmpty, "\(name) got \(reply.count) bytes")
        }
        let metrics = try daemon.client.get("/metrics").text
        let closed = metrics.split(separator: "\n").first { $0.hasPrefix("marquee_http_requests_timed_out_total ") }
        XCTAssertGreaterThanOrEqual(Int(closed?.split(separator: " ").last ?? "") ?? 0, 3, metrics)
    }

    /// Many connections that each send a few bytes and stop: the daemon's descriptors come
    /// back once they are cut off.
    func testAFloodOfStalledConnectionsIsReleased() throws {
        let before = try openDescriptors()
        let timedOutBefore = try timedOutRequests()
        var connections: [TCPConnection] = []
        for _ in 0..<100 {
            let connection = try TCPConnection(host: "127.0.0.1", port: port)
            try connection.write(Data("GET /v1/".utf8))
            connections.append(connection)
        }
        XCTAssertEqual(try daemon.client.get("/v1/player").status, 200)
        for connection in connections {
            XCTAssertTrue(try readUntilClosed(connection, timeout: Self.requestTimeout + 8).closed)
        }
        // Each was accepted and cut off by the request deadline (how many are open at one
        // moment depends on how fast this machine connects 100 sockets against a 2 s deadline).
        XCTAssertGreaterThanOrEqual(try timedOutRequests() - timedOutBefore, 100, "every stalled connection was cut off")
        connections.forEach { $0.close() }
        let deadline = Date().addingTimeInterval(5)
        while try openDescriptors() > before + 2, Date() < deadline { usleep(100_000) }
        XCTAssertLessThanOrEqual(try openDescriptors(), before + 2)
    }

    // MARK: Helpers

    private func timedOutRequests() throws -> Int {
        let metrics = try daemon.client.get("/metrics").text
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("marquee_http_requests_timed_out_total ") }
        return Int(line?.split(separator: " ").last ?? "") ?? 0
    }

    private func openDescriptors() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.pid)/fd").count
    }

    /// Everything the daemon sends until it closes the connection; `closed` is false when
    /// the time ran out first.
    private func readUntilClosed(_ connection: TCPConnection, timeout: Double) throws -> (reply: Data, closed: Bool) {
        var reply = Data()
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            do {
                let chunk = try connection.read(timeout: max(0.05, deadline.timeIntervalSinceNow))
                if chunk.isEmpty { return (reply, true) }
                reply.append(chunk)
            } catch ClientError.closed {
                return (reply, true)  // reset by the peer
            } catch ClientError.timeout {
                continue
            }
        }
        return (reply, false)
    }

    private func parseResponse(_ data: Data) -> (Int, Data)? {
        let bytes = [UInt8](data)
        guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
        let statusLine = head.split(separator: "\r\n").first ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
        return (status, Data(bytes[end.upperBound...]))
    }
}
