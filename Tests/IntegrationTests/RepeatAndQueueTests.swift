import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// A-B repeat, repeat modes and the queue, through the real daemon.
final class RepeatAndQueueTests: XCTestCase {
    var daemon: Daemon!

    override func setUpWithError() throws {
        daemon = try Daemon()
    }

    override func tearDown() {
        XCTAssertEqual(daemon.stop(), 0, "the daemon must exit 0 on SIGTERM")
    }

    /// The position stays inside [a, b] for longer than the section lasts: it loops.
    func testABLoopStaysInsideTheSectionUntilCleared() throws {
        let clip = try MediaFixtures.mp4(seconds: 6)
        var (status, s) = try daemon.post("/v1/player/open?wait=playing", ["uri": clip.path])
        XCTAssertEqual(status, 200, "\(s)")
        (status, s) = try daemon.send("PATCH", "/v1/player", ["abLoop": ["a": 1.0, "b": 2.2]])
        XCTAssertEqual(status, 200, "\(s)")
        XCTAssertEqual((s["abLoop"] as? [String: Any])?["a"] as? Double, 1.0)
        var positions: [Double] = []
        let deadline = Date().addingTimeInterval(3.6)  // three times the section
        while Date() < deadline {
            if let p = try daemon.snapshot().position { positions.append(p) }
            usleep(100_000)
        }
        XCTAssertEqual(try daemon.snapshot().state, "playing")
        let inside = positions.dropFirst(3)  // the arming seek lands within a frame or two
        XCTAssertTrue(inside.allSatisfy { $0 >= 0.95 && $0 <= 2.3 }, "positions left [1, 2.2]: \(positions)")
        let wraps = zip(inside, inside.dropFirst()).filter { $0.1 < $0.0 - 0.5 }.count
        XCTAssertGreaterThanOrEqual(wraps, 2, "it went round at least twice: \(positions)")

        // Ending the loop lets playback run past B to the end of the clip.
        (status, s) = try daemon.send("PATCH", "/v1/player", ["abLoop": NSNull()])
        XCTAssertEqual(status, 200, "\(s)")
        XCTAssertTrue(s["abLoop"] is NSNull)
        _ = try daemon.waitFor("past B", timeout: 8) { ($0.position ?? 0) > 3.0 || $0.state == "ended" }

        // Bad sections and no source are errors.
        (status, s) = try daemon.send("PATCH", "/v1/player", ["abLoop": ["a": 2.0, "b": 2.05]])
        XCTAssertEqual(status, 400, "\(s)")
        _ = try daemon.post("/v1/player/stop")
        (status, s) = try daemon.send("PATCH", "/v1/player", ["abLoop": ["a": 1.0, "b": 2.0]])
        XCTAssertEqual(status, 409, "\(s)")
    }

    /// The queue plays its items in order, says which one plays, loops, and refuses a list
    /// with a missing file without touching what plays.
    func testQueueAdvancesLoopsAndNavigates() throws {
        let first = try MediaFixtures.mp4(seconds: 2)
        let second = try MediaFixtures.mp4(seconds: 3)
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        var (status, s) = try daemon.send("PUT", "/v1/queue", ["items": [["uri": first.path], ["uri": second.path]], "loop": true])
        XCTAssertEqual(status, 200, "\(s)")
        XCTAssertEqual((s["queue"] as? [String: Any])?["index"] as? Int, 0)

        // Round the loop: item 0, 1, then 0 again, each announced by a queue event.
        var indexes: [Int] = []
        let events = try collectEvents(ws, timeout: 15) { events in
            indexes = events.filter { $0["type"] as? String == "queue" }.compactMap { ($0["data"] as? [String: Any])?["index"] as? Int }
            return indexes.count >= 3
        }
        XCTAssertEqual(Array(indexes.prefix(3)), [0, 1, 0], "queue events")
        // Local files follow each other gaplessly: after the first item started, the player
        // never leaves `playing` (no new pipeline, no `opening`, no `eos`) across the switches.
        let firstQueueEvent = try XCTUnwrap(events.firstIndex { $0["type"] as? String == "queue" })
        let later = events[events.index(after: firstQueueEvent)...]
        let states = later.filter { $0["type"] as? String == "state" }.compactMap { ($0["data"] as? [String: Any])?["state"] as? String }
        XCTAssertFalse(states.contains("opening"), "a gap between items: \(states)")
        XCTAssertFalse(later.contains { $0["type"] as? String == "eos" }, "no end of stream between queued files")
        XCTAssertTrue(try daemon.snapshot().state == "playing" || daemon.snapshot().state == "opening")

        // Navigation.
        (status, s) = try daemon.post("/v1/queue/next")
        XCTAssertEqual(status, 200, "\(s)")
        let afterNext = try XCTUnwrap((s["queue"] as? [String: Any])?["index"] as? Int)
        (status, s) = try daemon.post("/v1/queue/previous")
        XCTAssertEqual(status, 200, "\(s)")
        XCTAssertEqual((s["queue"] as? [String: Any])?["index"] as? Int, (afterNext + 1) % 2)
        let get = try daemon.client.get("/v1/queue")
        XCTAssertEqual(get.status, 200)
        XCTAssertEqual(((try get.json() as? [String: Any])?["items"] as? [Any])?.count, 2)

        // A list with a missing file is refused whole; the queue playing goes on.
        (status, s) = try daemon.send("PUT", "/v1/queue", ["items": [["uri": first.path], ["uri": "/nonexistent/x.mp4"]]])
        XCTAssertEqual(status, 404, "\(s)")
        XCTAssertEqual(((try daemon.client.get("/v1/queue").json() as? [String: Any])?["items"] as? [Any])?.count, 2)

        // An open from outside ends the queue.
        (status, s) = try daemon.post("/v1/player/open?wait=playing", ["uri": second.path])
        XCTAssertEqual(status, 200, "\(s)")
        XCTAssertTrue(try daemon.snapshot()["queue"] is NSNull)
        (status, s) = try daemon.post("/v1/queue/next")
        XCTAssertEqual(status, 409, "\(s)")
    }

    /// Without loop the queue ends after its last item.
    func testQueueWithoutLoopEnds() throws {
        let clip = try MediaFixtures.mp4(seconds: 2)
        let (status, s) = try daemon.send("PUT", "/v1/queue", ["items": [["uri": clip.path], ["uri": clip.path]]])
        XCTAssertEqual(status, 200, "\(s)")
        let ended = try daemon.waitFor("the end of the last item", timeout: 15) { $0.state == "ended" }
        XCTAssertEqual((ended["queue"] as? [String: Any])?["index"] as? Int, 1)
        let (nextStatus, refused) = try daemon.post("/v1/queue/next")
        XCTAssertEqual(nextStatus, 409, "no item after the last without loop")
        XCTAssertEqual(refused.errorCode, "invalid_state")
    }

    /// `PATCH /v1/queue` turns `loop` on or off without starting the queue again: the item
    /// playing and the index stay, and a `queue` event shows it. Without a queue it is 409.
    func testQueueLoopChangesWithoutRestartingTheQueue() throws {
        let clip = try MediaFixtures.mp4(seconds: 6)
        XCTAssertEqual(try daemon.send("PATCH", "/v1/queue", ["loop": true]).0, 409, "no queue yet")
        var (status, s) = try daemon.send("PUT", "/v1/queue", ["items": [["uri": clip.path], ["uri": clip.path]]])
        XCTAssertEqual(status, 200, "\(s)")
        (status, s) = try daemon.post("/v1/queue/next")
        XCTAssertEqual(status, 200, "\(s)")
        let opens = try daemon.snapshot()
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        _ = try collectEvents(ws, timeout: 5) { events in events.contains { $0["type"] as? String == "snapshot" } }

        (status, s) = try daemon.send("PATCH", "/v1/queue", ["loop": true])
        XCTAssertEqual(status, 200, "\(s)")
        XCTAssertEqual((s["queue"] as? [String: Any])?["loop"] as? Bool, true)
        XCTAssertEqual((s["queue"] as? [String: Any])?["index"] as? Int, 1, "the item playing stays")
        let events = try collectEvents(ws, timeout: 5) { events in events.contains { $0["type"] as? String == "queue" } }
        let queueEvent = try XCTUnwrap(events.first { $0["type"] as? String == "queue" }?["data"] as? [String: Any])
        XCTAssertEqual(queueEvent["loop"] as? Bool, true)
        XCTAssertFalse(events.contains { $0["type"] as? String == "source" }, "nothing was opened again")
        XCTAssertEqual((try daemon.snapshot()["source"] as? [String: Any])?["uri"] as? String,
                       (opens["source"] as? [String: Any])?["uri"] as? String)
        // Looping, the last item goes round to the first.
        XCTAssertEqual(try daemon.post("/v1/queue/next").0, 200)
        XCTAssertEqual((try daemon.snapshot()["queue"] as? [String: Any])?["index"] as? Int, 0)

        XCTAssertEqual(try daemon.send("PATCH", "/v1/queue", ["loop": "yes"]).0, 400)
        XCTAssertEqual(try daemon.send("PATCH", "/v1/queue", ["items": []]).0, 400, "only loop can change")
    }
}
