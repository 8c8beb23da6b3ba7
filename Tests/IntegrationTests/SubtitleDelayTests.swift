import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// `subtitleDelay`: cues shown that much later (external files and embedded tracks), set over
/// PATCH and the WebSocket `set` command, carried by the snapshot and the `settings` event.
final class SubtitleDelayTests: XCTestCase {
    var daemon: Daemon!

    override func setUpWithError() throws { daemon = try Daemon() }
    override func tearDown() { XCTAssertEqual(daemon.stop(), 0) }

    func testPatchSnapshotAndRange() throws {
        XCTAssertEqual(try daemon.snapshot()["subtitleDelay"] as? Double, 0, "default 0")
        var (status, body) = try daemon.send("PATCH", "/v1/player", ["subtitleDelay": -2.5])
        XCTAssertEqual(status, 200, "\(body)")
        XCTAssertEqual(body["subtitleDelay"] as? Double, -2.5)
        for value in [60.01, -61, 1e300] {
            (status, body) = try daemon.send("PATCH", "/v1/player", ["subtitleDelay": value])
            XCTAssertEqual(status, 400, "\(value): \(body)")
            XCTAssertEqual(body.errorCode, "invalid_argument")
        }
        (status, body) = try daemon.send("PATCH", "/v1/player", ["subtitleDelay": "1"])
        XCTAssertEqual(status, 400, "a string: \(body)")
        XCTAssertEqual(try daemon.snapshot()["subtitleDelay"] as? Double, -2.5, "refused patches change nothing")
    }

    /// Set over the WebSocket: a `settings` event carries it, and the first cue of the file
    /// (1.0–2.0 s) arrives as 2.5–3.5 s, no earlier than the playhead reaches 2.5 s.
    func testExternalCueArrivesLater() throws {
        let subtitles = try OutputFixtures.shortCues(.srt)
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        try ws.send(json: ["id": 1, "command": "set", "args": ["subtitleDelay": 1.5]])
        let settled = try collectEvents(ws, timeout: 5) { events in
            events.contains { $0["ok"] as? Bool == true }
                && events.contains { $0["type"] as? String == "settings" && ($0["data"] as? [String: Any])?["subtitleDelay"] as? Double == 1.5 }
        }
        XCTAssertTrue(settled.contains { $0["ok"] as? Bool == true }, "the set command is accepted: \(settled)")
        XCTAssertTrue(settled.contains { $0["type"] as? String == "settings" }, "a settings event with subtitleDelay 1.5: \(settled)")

        try daemon.openPlaying(try OutputFixtures.solidClip(.black), ["subtitle": subtitles.path])
        var lastPosition = 0.0
        var positionAtCue: Double?
        let events = try collectEvents(ws, timeout: 10) { events in
            guard let event = events.last else { return false }
            if event["type"] as? String == "position", let p = (event["data"] as? [String: Any])?["position"] as? Double { lastPosition = p }
            guard event["type"] as? String == "cue", event["data"] is [String: Any] else { return false }
            positionAtCue = lastPosition
            return true
        }
        let cue = try XCTUnwrap(events.last?["data"] as? [String: Any], "a cue arrives: \(events.suffix(5))")
        XCTAssertEqual(cue["text"] as? String, "First cue")
        XCTAssertEqual(cue["start"] as? Double ?? -1, 2.5, accuracy: 0.05, "1.0 s in the file, 1.5 s later")
        XCTAssertEqual(cue["end"] as? Double ?? -1, 3.5, accuracy: 0.05)
        XCTAssertGreaterThanOrEqual(positionAtCue ?? 0, 2.0, "no cue before the playhead passes the delayed start (last position before it)")
        let position = try XCTUnwrap(try daemon.snapshot()["position"] as? Double)
        XCTAssertGreaterThanOrEqual(position, 2.4, "the cue came when the playhead reached 2.5 s, not at 1.0 s")
        XCTAssertEqual(try daemon.snapshot()["subtitleDelay"] as? Double, 1.5)
    }

    /// Embedded: the Matroska text track's "Subtitle 2" (1.0–1.8 s) arrives as 1.7–2.5 s.
    func testEmbeddedCueArrivesLater() throws {
        let (status, body) = try daemon.send("PATCH", "/v1/player", ["subtitleDelay": 0.7])
        XCTAssertEqual(status, 200, "\(body)")
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        try daemon.openPlaying(try MediaFixtures.mkvWithTracks())
        let events = try collectEvents(ws, timeout: 10) { events in
            guard let event = events.last, event["type"] as? String == "cue" else { return false }
            return (event["data"] as? [String: Any])?["text"] as? String == "Subtitle 2"
        }
        let cue = try XCTUnwrap(events.last?["data"] as? [String: Any], "Subtitle 2 arrives: \(events.suffix(5))")
        XCTAssertEqual(cue["start"] as? Double ?? -1, 1.7, accuracy: 0.1, "1.0 s in the stream, 0.7 s later")
        XCTAssertEqual(cue["end"] as? Double ?? -1, 2.5, accuracy: 0.1)
        let position = try XCTUnwrap(try daemon.snapshot()["position"] as? Double)
        XCTAssertGreaterThanOrEqual(position, 1.6, "shown when the playhead reached 1.7 s")
    }
}
