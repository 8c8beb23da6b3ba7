import Foundation
import XCTest
@testable import MarqueeClient

/// The server's half of the opening handshake; `extra` goes out in the same write as the head.
private func acceptHandshake(_ peer: Peer, seen: Recorder? = nil, extra: [UInt8] = []) throws {
    let head = try peer.readHead()
    let fields = headerFields(head)
    seen?["line"] = requestLine(head)
    seen?["fields"] = fields
    guard let key = fields["sec-websocket-key"] else { throw ScriptFailure(description: "no Sec-WebSocket-Key") }
    try expect(Data(base64Encoded: key)?.count == 16, "key is not base64 of 16 bytes: \(key)")
    let accept = WebSocketClient.acceptValue(forKey: key)
    try peer.write(Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n".utf8) + extra)
}

final class WebSocketClientTests: XCTestCase {
    func testHandshakeEchoPingPongFragmentsLengthsAndClose() throws {
        let server = try LoopbackServer()
        let seen = Recorder()
        let big = String(repeating: "x", count: 70_000)
        let run = server.serveOne { peer in
            // The first frame rides in the same packet as the 101, past the end of the head.
            try acceptHandshake(peer, seen: seen, extra: Peer.frame(opcode: 0x1, payload: Array("hello".utf8)))

            let echo = try peer.readFrame()
            seen["echo"] = echo
            // Echo back in two fragments, with pings before and between them.
            let half = echo.payload.count / 2
            try peer.write(Peer.frame(opcode: 0x9, payload: Array("p1".utf8))
                + Peer.frame(opcode: 0x1, payload: Array(echo.payload[..<half]), fin: false)
                + Peer.frame(opcode: 0x9, payload: Array("p2".utf8))
                + Peer.frame(opcode: 0x0, payload: Array(echo.payload[half...])))
            seen["pong1"] = try peer.readFrame()
            seen["pong2"] = try peer.readFrame()

            // 16-bit and 64-bit payload lengths.
            try peer.write(Peer.frame(opcode: 0x2, payload: (0..<300).map { UInt8($0 & 0xFF) }))
            try peer.write(Peer.frame(opcode: 0x1, payload: Array(big.utf8)))

            let close = try peer.readFrame()
            seen["close"] = close
            try peer.write(Peer.frame(opcode: 0x8, payload: Array(close.payload.prefix(2))))
        }

        let client = WebSocketClient(baseURL: "http://127.0.0.1:\(server.port)", token: "a b&c")
        try client.connect(path: "/v1/events", timeout: 3)
        XCTAssertTrue(client.isOpen)
        XCTAssertEqual(try client.receive(timeout: 3), .text("hello"))
        try client.send(text: "echo me")
        XCTAssertEqual(try client.receive(timeout: 3), .text("echo me"))
        XCTAssertEqual(try client.receive(timeout: 3), .binary(Data((0..<300).map { UInt8($0 & 0xFF) })))
        XCTAssertEqual(try client.receive(timeout: 3), .text(big))
        client.close()
        XCTAssertFalse(client.isOpen)
        XCTAssertEqual(client.closeCode, 1000)
        XCTAssertNil(try client.receive(timeout: 1), "receive after close reports the end")
        run.assertFinished()

        XCTAssertEqual(seen["line"] as? String, "GET /v1/events?token=a%20b%26c HTTP/1.1")
        let fields = try XCTUnwrap(seen["fields"] as? [String: String])
        XCTAssertEqual(fields["upgrade"], "websocket")
        XCTAssertEqual(fields["connection"], "Upgrade")
        XCTAssertEqual(fields["sec-websocket-version"], "13")
        XCTAssertEqual(fields["host"], "127.0.0.1:\(server.port)")

        let echo = try XCTUnwrap(seen["echo"] as? Peer.Frame)
        XCTAssertTrue(echo.masked, "client frames must be masked")
        XCTAssertTrue(echo.fin)
        XCTAssertEqual(echo.opcode, 0x1)
        XCTAssertEqual(String(decoding: echo.payload, as: UTF8.self), "echo me")

        for (key, payload) in [("pong1", "p1"), ("pong2", "p2")] {
            let pong = try XCTUnwrap(seen[key] as? Peer.Frame, key)
            XCTAssertEqual(pong.opcode, 0xA, key)
            XCTAssertTrue(pong.masked, key)
            XCTAssertEqual(String(decoding: pong.payload, as: UTF8.self), payload, key)
        }

        let close = try XCTUnwrap(seen["close"] as? Peer.Frame)
        XCTAssertEqual(close.opcode, 0x8)
        XCTAssertTrue(close.masked)
        XCTAssertEqual(close.payload, [0x03, 0xE8])
    }

    func testServerInitiatedCloseAndJSONCommand() throws {
        let server = try LoopbackServer()
        let seen = Recorder()
        let run = server.serveOne { peer in
            try acceptHandshake(peer)
            seen["command"] = try peer.readFrame()
            try peer.write(Peer.frame(opcode: 0x1, payload: Array(#"{"id":7,"ok":true}"#.utf8)))
            try peer.write(Peer.frame(opcode: 0x8, payload: [0x03, 0xE9] + Array("going away".utf8)))
            seen["reply"] = try peer.readFrame()
        }

        let client = WebSocketClient(baseURL: "http://127.0.0.1:\(server.port)")
        try client.connect(timeout: 3)
        try client.send(json: ["id": 7, "command": "seek", "args": ["position": 12.5]])
        guard case .text(let reply)? = try client.receive(timeout: 3) else { return XCTFail("no reply") }
        XCTAssertEqual(reply, #"{"id":7,"ok":true}"#)
        XCTAssertNil(try client.receive(timeout: 3))
        XCTAssertEqual(client.closeCode, 1001)
        XCTAssertEqual(client.closeReason, "going away")
        XCTAssertFalse(client.isOpen)
        XCTAssertThrowsError(try client.send(text: "late")) { XCTAssertEqual($0 as? ClientError, .closed) }
        run.assertFinished()

        let command = try XCTUnwrap(seen["command"] as? Peer.Frame)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(command.payload)) as? [String: Any])
        XCTAssertEqual(object["command"] as? String, "seek")
        XCTAssertEqual((object["args"] as? [String: Any])?["position"] as? Double, 12.5)
        let answer = try XCTUnwrap(seen["reply"] as? Peer.Frame)
        XCTAssertEqual(answer.opcode, 0x8)
        XCTAssertEqual(answer.payload, [0x03, 0xE9], "the client echoes the close code")
    }

    func testWrongAcceptIsRejected() throws {
        let server = try LoopbackServer()
        let run = server.serveOne { peer in
            _ = try peer.readHead()
            try peer.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kQGzzkOxTbqB5Q=\r\n\r\n")
        }
        let client = WebSocketClient(baseURL: "http://127.0.0.1:\(server.port)")
        XCTAssertThrowsError(try client.connect(timeout: 3)) {
            XCTAssertEqual($0 as? ClientError, .protocolError("wrong Sec-WebSocket-Accept"))
        }
        XCTAssertFalse(client.isOpen)
        run.assertFinished()
    }

    func testNon101IsAnHTTPError() throws {
        let server = try LoopbackServer()
        let run = server.serveOne { peer in
            _ = try peer.readHead()
            try peer.write("HTTP/1.1 401 Unauthorized\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nnope!\r\n0\r\n\r\n")
        }
        XCTAssertThrowsError(try WebSocketClient(baseURL: "http://127.0.0.1:\(server.port)").connect(timeout: 3)) {
            XCTAssertEqual($0 as? ClientError, .http(status: 401, body: Data("nope!".utf8)))
        }
        run.assertFinished()
    }

    func testMaskedServerFrameFailsTheConnection() throws {
        let server = try LoopbackServer()
        let seen = Recorder()
        let run = server.serveOne { peer in
            try acceptHandshake(peer)
            try peer.write([0x81, 0x82, 1, 2, 3, 4, UInt8(ascii: "h") ^ 1, UInt8(ascii: "i") ^ 2])
            seen["close"] = try peer.readFrame()
        }
        let client = WebSocketClient(baseURL: "http://127.0.0.1:\(server.port)")
        try client.connect(timeout: 3)
        XCTAssertThrowsError(try client.receive(timeout: 3)) {
            guard case .protocolError = $0 as? ClientError else { return XCTFail("got \($0)") }
        }
        XCTAssertFalse(client.isOpen)
        run.assertFinished()
        let close = try XCTUnwrap(seen["close"] as? Peer.Frame)
        XCTAssertEqual(close.opcode, 0x8)
        XCTAssertEqual(close.payload, [0x03, 0xEA], "1002 protocol error")
    }

    func testReceiveTimesOutThenResumesAndAbruptEOFIsClosed() throws {
        let server = try LoopbackServer()
        let run = server.serveOne { peer in
            try acceptHandshake(peer)
            let frame = Peer.frame(opcode: 0x1, payload: Array("slow".utf8))
            try peer.write(Array(frame.prefix(3)))
            Thread.sleep(forTimeInterval: 0.4)
            try peer.write(Array(frame.dropFirst(3)))
            // Then vanish without a close frame.
        }
        let client = WebSocketClient(baseURL: "http://127.0.0.1:\(server.port)")
        try client.connect(timeout: 3)
        XCTAssertThrowsError(try client.receive(timeout: 0.1)) { XCTAssertEqual($0 as? ClientError, .timeout) }
        XCTAssertEqual(try client.receive(timeout: 3), .text("slow"))
        XCTAssertThrowsError(try client.receive(timeout: 3)) { XCTAssertEqual($0 as? ClientError, .closed) }
        run.assertFinished()
    }
}
