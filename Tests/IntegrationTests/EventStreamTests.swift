import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// The event stream over WebSocket and SSE: first a snapshot, seq +1, the order of a whole
/// playback, commands with acks.
final class EventStreamTests: XCTestCase {
    var daemon: Daemon!

    override func setUpWithError() throws { daemon = try Daemon() }
    override func tearDown() { XCTAssertEqual(daemon.stop(), 0) }

    func testWholePlaybackEventOrderOverWebSocket() throws {
        let clip = try MediaFixtures.mp4(seconds: 2)
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        try ws.send(json: ["id": 1, "command": "open", "args": ["uri": clip.path]])
        let events = try collectEvents(ws, timeout: 15) { events in
            events.contains { $0["type"] as? String == "state" && ($0["data"] as? [String: Any])?["state"] as? String == "ended" }
        }
        let stream = events.filter { $0["seq"] != nil }
        let replies = events.filter { $0["seq"] == nil }

        XCTAssertEqual(stream.first?["type"] as? String, "snapshot", "the first event is a snapshot")
        XCTAssertEqual((stream.first?["data"] as? [String: Any])?["state"] as? String, "idle")
        let seqs = stream.compactMap { $0["seq"] as? Int }
        XCTAssertEqual(seqs, Array(1...seqs.count), "seq increases by one")
        XCTAssertEqual(replies.first?["id"] as? Int, 1)
        XCTAssertEqual(replies.first?["ok"] as? Bool, true)

        // The exact order of state changes for a whole playback.
        let states = stream.filter { $0["type"] as? String == "state" }.compactMap { ($0["data"] as? [String: Any])?["state"] as? String }
        XCTAssertEqual(states, ["opening", "playing", "ended"])
        let types = stream.compactMap { $0["type"] as? String }
        func index(_ type: String) -> Int? { types.firstIndex(of: type) }
        XCTAssertLessThan(try XCTUnwrap(index("source")), try XCTUnwrap(types.firstIndex(of: "state")))
        XCTAssertNotNil(index("tracks"))
        XCTAssertLessThan(try XCTUnwrap(index("eos")), try XCTUnwrap(types.lastIndex(of: "state")))
        // Position is throttled: a 2 s clip gives a handful, not hundreds.
        let positions = types.filter { $0 == "position" }.count
        XCTAssertGreaterThanOrEqual(positions, 3)
        XCTAssertLessThanOrEqual(positions, 14)
    }

    func testWebSocketCommandErrors() throws {
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        try ws.send(text: "{not json")
        try ws.send(json: ["id": "a", "command": "seek", "args": ["position": 3]])
        try ws.send(json: ["id": 3, "command": "fly"])
        try ws.send(json: ["id": 4, "command": "set", "args": ["rate": 50]])
        let events = try collectEvents(ws, timeout: 5) { $0.filter { $0["ok"] != nil }.count == 4 }
        let replies = events.filter { $0["ok"] != nil }
        XCTAssertEqual(replies.count, 4)
        func code(_ r: [String: Any]) -> String? { (r["error"] as? [String: Any])?["code"] as? String }
        XCTAssertEqual(code(replies[0]), "invalid_json")
        XCTAssertEqual(replies[1]["id"] as? String, "a")
        XCTAssertEqual(code(replies[1]), "no_source")
        XCTAssertEqual(code(replies[2]), "invalid_argument")
        XCTAssertEqual(code(replies[3]), "invalid_argument")
        XCTAssertTrue(replies.allSatisfy { $0["ok"] as? Bool == false })
        // The connection survives bad messages and still answers.
        try ws.send(json: ["id": 5, "command": "stop"])
        let more = try collectEvents(ws, timeout: 5) { $0.contains { $0["id"] as? Int == 5 } }
        XCTAssertEqual(more.last { $0["id"] as? Int == 5 }?["ok"] as? Bool, true)
    }

    func testServerSentEventsFollowThePlayer() throws {
        let clip = try MediaFixtures.mp4()
        let sse = SSEClient(baseURL: daemon.url)
        try sse.connect()
        defer { sse.close() }
        let first = try XCTUnwrap(try sse.next(timeout: 5)?.json() as? [String: Any])
        XCTAssertEqual(first["type"] as? String, "snapshot")
        XCTAssertEqual(first["seq"] as? Int, 1)
        _ = try daemon.post("/v1/player/open?wait=playing", ["uri": clip.path])
        _ = try daemon.post("/v1/player/pause")
        var seq = 1
        var sawPaused = false
        let deadline = Date().addingTimeInterval(10)
        while !sawPaused && Date() < deadline {
            guard let event = try sse.next(timeout: 5), let object = try event.json() as? [String: Any] else { break }
            seq += 1
            XCTAssertEqual(object["seq"] as? Int, seq)
            if object["type"] as? String == "state", (object["data"] as? [String: Any])?["state"] as? String == "paused" { sawPaused = true }
        }
        XCTAssertTrue(sawPaused, "the paused state reaches SSE clients")
    }

    func testManyClientsAndOneThatNeverReads() throws {
        // A client that never reads must not stall the player or the other clients.
        let clip = try MediaFixtures.mp4()
        let stalled = try TCPConnection(host: "127.0.0.1", port: Int(URL(string: daemon.url)!.port!))
        defer { stalled.close() }
        try stalled.write(Data("GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".utf8))
        let reader = WebSocketClient(baseURL: daemon.url)
        try reader.connect()
        defer { reader.close() }
        _ = try daemon.post("/v1/player/open?wait=playing", ["uri": clip.path])
        for _ in 0..<40 { _ = try daemon.client.patch("/v1/player", json: ["volume": 0.5]) }
        let events = try collectEvents(reader, timeout: 5) { $0.filter { $0["type"] as? String == "settings" }.count >= 1 }
        XCTAssertFalse(events.isEmpty)
        let metrics = try daemon.client.get("/metrics").text
        XCTAssertTrue(metrics.contains("marquee_event_clients{transport=\"sse\"} 1"), metrics)
        XCTAssertTrue(metrics.contains("marquee_websocket_clients 1"), metrics)
        XCTAssertEqual(try daemon.snapshot().state, "playing")
    }
}
