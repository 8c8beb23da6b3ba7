import Foundation
import XCTest
@testable import MarqueeClient

final class SSEClientTests: XCTestCase {
    func testCommentAndTwoEventsOverChunkedEncoding() throws {
        let server = try LoopbackServer()
        let seen = Recorder()
        let run = server.serveOne { peer in
            let head = try peer.readHead()
            seen["line"] = requestLine(head)
            seen["fields"] = headerFields(head)
            try peer.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
            try peer.write(chunk(": keepalive\n\n"))
            // The first event is split mid-line and across chunks.
            try peer.write(chunk("event: snapshot\nid: 1\nda"))
            Thread.sleep(forTimeInterval: 0.02)
            try peer.write(chunk("ta: {\"seq\": 0, \"type\": \"snapshot\"}\n\n"))
            // CRLF line ends, a field without a space, two data lines, an ignored retry field.
            try peer.write(chunk("retry: 1000\r\ndata:line one\r\ndata: line two\r\n\r\n"))
            try peer.write("0\r\n\r\n")
        }

        let client = SSEClient(baseURL: "http://127.0.0.1:\(server.port)", token: "tok")
        try client.connect(timeout: 3)

        let first = try XCTUnwrap(try client.next(timeout: 3))
        XCTAssertEqual(first, SSEEvent(event: "snapshot", id: "1", data: #"{"seq": 0, "type": "snapshot"}"#))
        let object = try XCTUnwrap(first.jsonTree() as? [String: Any])
        XCTAssertEqual(object["type"] as? String, "snapshot")

        let second = try XCTUnwrap(try client.next(timeout: 3))
        XCTAssertEqual(second, SSEEvent(event: nil, id: nil, data: "line one\nline two"))
        XCTAssertEqual(client.lastEventID, "1")

        XCTAssertNil(try client.next(timeout: 3), "the terminating chunk ends the stream cleanly")
        XCTAssertNil(try client.next(timeout: 3))
        client.close()
        run.assertFinished()

        XCTAssertEqual(seen["line"] as? String, "GET /v1/events HTTP/1.1")
        let fields = try XCTUnwrap(seen["fields"] as? [String: String])
        XCTAssertEqual(fields["accept"], "text/event-stream")
        XCTAssertEqual(fields["authorization"], "Bearer tok")
    }

    func testTimeoutThenResumeOnTheSameStream() throws {
        let server = try LoopbackServer()
        let run = server.serveOne { peer in
            _ = try peer.readHead()
            // Not chunked: the body runs until the connection closes.
            try peer.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n\r\n")
            try peer.write("data: par")
            Thread.sleep(forTimeInterval: 0.4)
            try peer.write("tial\n\n")
            try peer.write("data: unfinished at EOF\n")
        }
        let client = SSEClient(baseURL: "http://127.0.0.1:\(server.port)")
        try client.connect(path: "/v1/events", timeout: 3)
        XCTAssertThrowsError(try client.next(timeout: 0.1)) { XCTAssertEqual($0 as? ClientError, .timeout) }
        XCTAssertEqual(try client.next(timeout: 3), SSEEvent(data: "partial"))
        XCTAssertNil(try client.next(timeout: 3), "an event without its blank line is dropped at EOF")
        run.assertFinished()
    }

    func testErrorStatusIsThrownWithBody() throws {
        let server = try LoopbackServer()
        let body = #"{"error": {"code": "unauthorized", "message": "token required"}}"#
        let run = server.serveOne { peer in
            _ = try peer.readHead()
            try peer.write("HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        }
        let client = SSEClient(baseURL: "http://127.0.0.1:\(server.port)")
        XCTAssertThrowsError(try client.connect(timeout: 3)) {
            XCTAssertEqual($0 as? ClientError, .http(status: 401, body: Data(body.utf8)))
        }
        XCTAssertThrowsError(try client.next(timeout: 0.1)) { XCTAssertEqual($0 as? ClientError, .closed) }
        run.assertFinished()
    }
}
