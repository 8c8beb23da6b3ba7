import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// Live (sliding-window) HLS and a slow network, through the real daemon.
final class LiveHLSTests: XCTestCase {
    var daemon: Daemon!
    var server: RecordingHTTPServer!
    var ladder: HLSLadder!

    override func setUpWithError() throws {
        ladder = try HLSFixtures.ladder()
        server = try RecordingHTTPServer(root: ladder.directory)
        daemon = try Daemon()
    }

    override func tearDown() {
        XCTAssertEqual(daemon.stop(), 0)
        server.stop()
    }

    func testSlidingWindowPlaylistPlaysLive() throws {
        // The 640x360 variant's segments, published one per second, four at a time.
        let live = try LiveHLSPlaylist(vodPlaylist: ladder.directory.appendingPathComponent(ladder.variantPaths[1]))
        server.serve("/v1/live.m3u8") { live.text() }
        let (status, opened) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["uri": server.baseURL + "/v1/live.m3u8"])
        XCTAssertEqual(status, 200, "\(opened)")
        let s = try daemon.waitFor("marked live", timeout: 5) { ($0["source"] as? [String: Any])?["live"] as? Bool == true }
        XCTAssertEqual((s["source"] as? [String: Any])?["kind"] as? String, "hls")
        XCTAssertTrue(s["duration"] is NSNull, "a live stream has no duration: \(s["duration"] ?? "-")")
        let openedAt = Date()
        let newestAtOpen = live.newestSequence(at: openedAt)

        // It keeps playing while the window slides: the playlist is reloaded and segments
        // published after the open are fetched.
        usleep(3_500_000)
        let after = try daemon.snapshot()
        XCTAssertEqual(after.state, "playing")
        let reloads = server.requests.filter { $0.path == "/v1/live.m3u8" }.count
        XCTAssertGreaterThanOrEqual(reloads, 3, "the live playlist is reloaded about once a target duration")
        let newSegment = live.segments[(newestAtOpen + 2) % live.segments.count].uri
        XCTAssertTrue(server.requests.contains { $0.path == "/v1/\(newSegment)" && $0.time > openedAt },
                      "segment \(newestAtOpen + 2), published after the open, was not fetched: \(server.requests.map(\.path).suffix(10))")
        // The window is what hlsdemux2 lets a client seek in: the playlist's four seconds
        // less the three target durations it keeps back from the edge.
        let liveInfo = try XCTUnwrap(after["live"] as? [String: Any], "\(after)")
        let window = try XCTUnwrap(liveInfo["window"] as? Double)
        XCTAssertTrue(window > 0 && window <= 4.5, "window \(window)")
        let seekable = try XCTUnwrap(after["seekable"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(liveInfo["edge"] as? Double), try XCTUnwrap(seekable["end"] as? Double), accuracy: 0.001)
        let behind = try XCTUnwrap(liveInfo["behind"] as? Double)
        XCTAssertTrue(behind >= 0 && behind < 5, "behind \(behind)")
        // Going live is accepted for live HLS (it is always at its edge without timeshift).
        XCTAssertEqual(try daemon.client.post("/v1/player/live").status, 200)
    }

    func testVODIsNotLive() throws {
        let (status, _) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["uri": server.baseURL + "/" + ladder.masterPath])
        XCTAssertEqual(status, 200)
        _ = try daemon.waitFor("the ladder", timeout: 10) { ($0["variants"] as? [Any])?.count == 3 }
        usleep(300_000)  // the liveness probe of the first variant has answered by now
        let s = try daemon.snapshot()
        XCTAssertEqual((s["source"] as? [String: Any])?["live"] as? Bool, false)
        XCTAssertTrue(s["live"] is NSNull)
        XCTAssertEqual(try daemon.client.post("/v1/player/live").status, 409)
    }

    func testSlowSegmentIsBufferingThenPlaybackGoesOn() throws {
        // Segment 5 of every stream is held back: playback reaches it, waits, and goes on
        // once the server answers. (Not an earlier one: start-up buffering wants about
        // five seconds, and held inside it the first frame waits on hlsdemux2's own
        // 10 s timeout instead.)
        let held = ladder.segmentPaths(5)
        for path in held { server.hold(path: path) }
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        try ws.send(json: ["id": 1, "command": "open", "args": ["uri": server.baseURL + "/" + ladder.masterPath]])
        var events = try collectEvents(ws, timeout: 20) { events in
            events.contains { $0["type"] as? String == "state" && ($0["data"] as? [String: Any])?["state"] as? String == "buffering" }
        }
        func buffering(_ events: [[String: Any]]) -> [Int] {
            events.filter { $0["type"] as? String == "buffering" }.compactMap { ($0["data"] as? [String: Any])?["percent"] as? Int }
        }
        XCTAssertTrue(buffering(events).contains { $0 < 100 }, "no buffering event below 100%: \(events.compactMap { $0["type"] as? String })")
        let position = try XCTUnwrap(try daemon.snapshot().position)
        XCTAssertGreaterThan(position, 3.5, "it played up to the held segment first")
        XCTAssertEqual(try daemon.snapshot().state, "buffering")

        for path in held { server.release(path: path) }
        events = try collectEvents(ws, timeout: 15) { events in
            events.contains { $0["type"] as? String == "state" && ($0["data"] as? [String: Any])?["state"] as? String == "playing" }
        }
        XCTAssertEqual(buffering(events).last, 100, "buffering ends at 100%")
        let resumed = try daemon.waitFor("past the held segment", timeout: 10) { ($0.position ?? 0) > 6.5 }
        XCTAssertNil(resumed.errorCode)
    }
}
