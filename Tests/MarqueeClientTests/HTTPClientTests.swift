import Foundation
import XCTest
@testable import MarqueeClient

final class HTTPClientTests: XCTestCase {
    func testPostJSONWithChunkedResponse() throws {
        let server = try LoopbackServer()
        let seen = Recorder()
        let run = server.serveOne { peer in
            let head = try peer.readHead()
            let fields = headerFields(head)
            seen["line"] = requestLine(head)
            seen["fields"] = fields
            let length = Int(fields["content-length"] ?? "") ?? -1
            try expect(length > 0, "no Content-Length in \(head)")
            seen["body"] = Data(try peer.readExactly(length))

            // Written in pieces, with pauses, so chunks and even the head straddle reads.
            try peer.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Custom-Header: yes\r\n")
            try peer.write("Transfer-Encoding: chunked\r\n\r\n")
            Thread.sleep(forTimeInterval: 0.02)
            try peer.write(chunk("{\"stat", extensions: ";ext=1"))
            Thread.sleep(forTimeInterval: 0.02)
            // Sizes of 16 and more need two hex digits.
            try peer.write(chunk("e\": \"playing\", ") + chunk("\"volume\": 0.5 }\n"))
            try peer.write("0\r\nX-Trailer: t\r\n\r\n")
        }

        let client = HTTPClient(baseURL: "http://127.0.0.1:\(server.port)", token: "s3cret", timeout: 3)
        let response = try client.post("/v1/player/open?wait=playing", json: ["uri": "file:///a b.mp4", "autoplay": true])
        run.assertFinished()

        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["content-type"], "application/json")
        XCTAssertEqual(response.headers["x-custom-header"], "yes")
        XCTAssertEqual(response.header("X-Custom-Header"), "yes")
        XCTAssertEqual(response.text, "{\"state\": \"playing\", \"volume\": 0.5 }\n")
        let object = try XCTUnwrap(response.jsonTree() as? [String: Any])
        XCTAssertEqual(object["state"] as? String, "playing")
        XCTAssertEqual(object["volume"] as? Double, 0.5)

        XCTAssertEqual(seen["line"] as? String, "POST /v1/player/open?wait=playing HTTP/1.1")
        let fields = try XCTUnwrap(seen["fields"] as? [String: String])
        XCTAssertEqual(fields["host"], "127.0.0.1:\(server.port)")
        XCTAssertEqual(fields["authorization"], "Bearer s3cret")
        XCTAssertEqual(fields["content-type"], "application/json")
        XCTAssertEqual(fields["connection"], "close")
        let sent = try XCTUnwrap(seen["body"] as? Data)
        let sentObject = try XCTUnwrap(JSONSerialization.jsonObject(with: sent) as? [String: Any])
        XCTAssertEqual(sentObject["uri"] as? String, "file:///a b.mp4")
        XCTAssertEqual(sentObject["autoplay"] as? Bool, true)
    }

    func testContentLengthErrorResponseAndNoToken() throws {
        let server = try LoopbackServer()
        let seen = Recorder()
        let body = #"{"error": {"code": "not_found", "message": "no such thing"}}"#
        let run = server.serveOne { peer in
            let head = try peer.readHead()
            seen["line"] = requestLine(head)
            seen["fields"] = headerFields(head)
            // Bytes after the declared length must not leak into the body.
            try peer.write("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)GARBAGE")
        }

        let response = try HTTPClient(baseURL: "http://127.0.0.1:\(server.port)/", timeout: 3).get("v1/nothing")
        run.assertFinished()

        XCTAssertEqual(response.status, 404)
        XCTAssertFalse(response.isSuccess)
        XCTAssertEqual(response.text, body)
        XCTAssertEqual(seen["line"] as? String, "GET /v1/nothing HTTP/1.1")
        let fields = try XCTUnwrap(seen["fields"] as? [String: String])
        XCTAssertNil(fields["authorization"])
        XCTAssertNil(fields["content-length"])
        XCTAssertThrowsError(try response.requireSuccess()) { error in
            XCTAssertEqual(error as? ClientError, .http(status: 404, body: Data(body.utf8)))
        }
    }

    func testBodyUntilEOFOverLocalhostAndPatchAndCustomHeaders() throws {
        let server = try LoopbackServer()
        let seen = Recorder()
        let run = server.serveOne { peer in
            let head = try peer.readHead()
            let fields = headerFields(head)
            seen["line"] = requestLine(head)
            seen["fields"] = fields
            seen["body"] = Data(try peer.readExactly(Int(fields["content-length"] ?? "0") ?? 0))
            try peer.write("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nall of ")
            Thread.sleep(forTimeInterval: 0.02)
            try peer.write("this until close")
        }

        // "localhost" may resolve to ::1 first; the client must go on to 127.0.0.1.
        let client = HTTPClient(baseURL: "http://localhost:\(server.port)", timeout: 3)
        let response = try client.request("PATCH", "/v1/player", body: Data(#"{"volume":0.25}"#.utf8),
                                          headers: ["Content-Type": "application/json", "User-Agent": "tests"])
        run.assertFinished()

        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, "all of this until close")
        XCTAssertEqual(seen["line"] as? String, "PATCH /v1/player HTTP/1.1")
        let fields = try XCTUnwrap(seen["fields"] as? [String: String])
        XCTAssertEqual(fields["user-agent"], "tests", "caller headers override the defaults")
        XCTAssertEqual(fields["content-length"], "15")
        XCTAssertEqual(seen["body"] as? Data, Data(#"{"volume":0.25}"#.utf8))
    }

    func testIPv6Literal() throws {
        let server = try LoopbackServer(ipv6: true)
        let seen = Recorder()
        let run = server.serveOne { peer in
            seen["fields"] = headerFields(try peer.readHead())
            try peer.write("HTTP/1.1 204 No Content\r\n\r\n")
        }
        let response = try HTTPClient(baseURL: "http://[::1]:\(server.port)", timeout: 3).post("/v1/player/play")
        run.assertFinished()
        XCTAssertEqual(response.status, 204)
        XCTAssertTrue(response.body.isEmpty)
        let fields = try XCTUnwrap(seen["fields"] as? [String: String])
        XCTAssertEqual(fields["host"], "[::1]:\(server.port)")
        XCTAssertEqual(fields["content-length"], "0", "a bodiless POST still declares its length")
    }

    func testTimeoutWhenServerNeverAnswers() throws {
        let server = try LoopbackServer()
        let run = server.serveOne { peer in
            _ = try peer.readHead()
            // The client gives up and closes; we see that as EOF.
            try expect(try peer.readsEOF(), "client should close after its timeout")
        }
        let started = Date()
        XCTAssertThrowsError(try HTTPClient(baseURL: "http://127.0.0.1:\(server.port)", timeout: 0.3).get("/healthz")) {
            XCTAssertEqual($0 as? ClientError, .timeout)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        run.assertFinished()
    }

    func testConnectionRefused() throws {
        // Take a free port, then stop listening on it.
        let port = try LoopbackServer().port
        XCTAssertThrowsError(try HTTPClient(baseURL: "http://127.0.0.1:\(port)", timeout: 2).get("/")) {
            XCTAssertEqual($0 as? ClientError, .connectFailed)
        }
    }

    func testTruncatedChunkedBodyIsAnError() throws {
        let server = try LoopbackServer()
        let run = server.serveOne { peer in
            _ = try peer.readHead()
            try peer.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nonly part")
        }
        XCTAssertThrowsError(try HTTPClient(baseURL: "http://127.0.0.1:\(server.port)", timeout: 3).get("/")) {
            XCTAssertEqual($0 as? ClientError, .closed)
        }
        run.assertFinished()
    }

    func testMalformedStatusLine() throws {
        let server = try LoopbackServer()
        let run = server.serveOne { peer in
            _ = try peer.readHead()
            try peer.write("SSH-2.0-OpenSSH\r\n\r\n")
        }
        XCTAssertThrowsError(try HTTPClient(baseURL: "http://127.0.0.1:\(server.port)", timeout: 3).get("/")) {
            guard case .protocolError = $0 as? ClientError else { return XCTFail("got \($0)") }
        }
        run.assertFinished()
    }

    func testRejectsBadInputsBeforeConnecting() {
        let client = HTTPClient(baseURL: "http://127.0.0.1:1")
        for (method, path, headers) in [("GET", "/a b", [:]), ("GE T", "/", [:]),
                                        ("GET", "/", ["X-Evil": "a\r\nInjected: 1"])] {
            XCTAssertThrowsError(try client.request(method, path, headers: headers)) {
                guard case .protocolError = $0 as? ClientError else { return XCTFail("got \($0)") }
            }
        }
        for base in ["https://127.0.0.1:8080", "http://::1:8080", "http://host:0", "http://:80", "http://u@h:1"] {
            XCTAssertThrowsError(try HTTPClient(baseURL: base).get("/"), base) {
                guard case .protocolError = $0 as? ClientError else { return XCTFail("\(base): got \($0)") }
            }
        }
    }

    func testEndpointParsing() throws {
        let a = try Endpoint(baseURL: "http://[::1]:9000/prefix/")
        XCTAssertEqual(a.host, "::1")
        XCTAssertEqual(a.port, 9000)
        XCTAssertEqual(a.hostHeader, "[::1]:9000")
        XCTAssertEqual(try a.target("/v1/player?x=1"), "/prefix/v1/player?x=1")
        let b = try Endpoint(baseURL: "localhost:8080")
        XCTAssertEqual(b.host, "localhost")
        XCTAssertEqual(b.port, 8080)
        XCTAssertEqual(b.basePath, "")
        XCTAssertEqual(try Endpoint(baseURL: "ws://10.0.0.2").port, 80)
        XCTAssertEqual(percentEncode("a b/é~"), "a%20b%2F%C3%A9~")
    }
}
