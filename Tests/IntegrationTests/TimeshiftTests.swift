import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// Timeshift through the real daemon: a live source (MPEG-TS over UDP from a
/// gst-launch-1.0 sender, or a sliding-window HLS origin) recorded into a ring under
/// `<data-dir>/timeshift/` and played from it — pause without losing the live stream,
/// seek back, jump to the edge, a ring bounded on disk, a source that goes away and
/// comes back.
///
/// The timeline is seconds since the recording started; `live.edge` is the newest
/// recorded second and `live.behind` = edge - position. At the edge playback stays a
/// few segments back (about 2–6 s).
final class TimeshiftTests: XCTestCase {
    var daemon: Daemon!
    var senders: [LiveUDPSender] = []
    var server: RecordingHTTPServer?

    override func setUpWithError() throws { daemon = try Daemon() }

    override func tearDown() {
        for sender in senders { sender.stop() }
        senders = []
        XCTAssertEqual(daemon.stop(), 0, "the daemon must exit 0 on SIGTERM\n\(logTail())")
        server?.stop()
        server = nil
    }

    // MARK: Timeline, position and events

    func testTimeshiftedUDPReportsATimelineThatFollowsTheRecording() throws {
        let sender = try startSender()
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        let openedAt = Date()
        let opened = try open(sender.uri, window: 60)
        let source = opened["source"] as? [String: Any]
        XCTAssertEqual(source?["kind"] as? String, "live", "\(opened)")
        XCTAssertEqual(source?["live"] as? Bool, true, "\(opened)")

        let first = try waitForTimeline("playing with 3 s recorded", timeout: 10) { $0.state == "playing" && $0.edge >= 3 }
        let firstAt = Date()
        XCTAssertTrue(first.snapshot["duration"] is NSNull, "a live source has no duration: \(first)")
        assertConsistent(first, window: 60)
        // Seconds since the recording started, which began after the open request.
        XCTAssertLessThanOrEqual(first.edge, firstAt.timeIntervalSince(openedAt) + 0.5, "the edge is ahead of the wall clock: \(first)")
        XCTAssertTrue(first.behind >= 1 && first.behind <= 7, "at the live edge behind is a few segments (2–6 s): \(first)\n\(logTail())")
        XCTAssertGreaterThanOrEqual(recordedSegments().count, 2, "no ring segments under \(timeshiftDirectory.lastPathComponent)/: \(first)")

        // About once a second a `live` event while it plays.
        let events = try collectEvents(ws, timeout: 3.5) { _ in false }
        let second = try timeline()
        let elapsed = Date().timeIntervalSince(firstAt)
        let playingIndex = events.firstIndex { $0["type"] as? String == "state" && ($0["data"] as? [String: Any])?["state"] as? String == "playing" }
        let afterPlaying = events[((playingIndex ?? events.count - 1) + 1)...]
        let liveEvents = afterPlaying.filter { $0["type"] as? String == "live" }.compactMap { $0["data"] as? [String: Any] }
        XCTAssertNotNil(playingIndex, "no state playing event: \(events.compactMap { $0["type"] as? String })")
        XCTAssertTrue((2...8).contains(liveEvents.count), "expected about one live event a second over ~\(Int(elapsed)) s, got \(liveEvents.count): \(events.compactMap { $0["type"] as? String })")
        for data in liveEvents {
            let (edge, behind, window) = (jsonNumber(data["edge"]), jsonNumber(data["behind"]), jsonNumber(data["window"]))
            XCTAssertNotNil(edge, "live event without edge: \(data)")
            XCTAssertTrue((behind ?? -1) >= 0, "live event behind: \(data)")
            XCTAssertTrue((window ?? -1) >= 0 && (window ?? 0) <= 62.5, "live event window: \(data)")
            let seekable = data["seekable"] as? [String: Any]
            let (start, end) = (jsonNumber(seekable?["start"]), jsonNumber(seekable?["end"]))
            XCTAssertTrue(start != nil && end != nil && start! <= end!, "live event seekable {start, end}: \(data)")
            if let start, let end, let window { XCTAssertEqual(end - start, window, accuracy: 0.01, "window is the seekable span: \(data)") }
        }
        let eventEdges = liveEvents.compactMap { jsonNumber($0["edge"]) }
        XCTAssertEqual(eventEdges, eventEdges.sorted(), "the edge never moves back")
        if let firstEdge = eventEdges.first, let lastEdge = eventEdges.last {
            XCTAssertGreaterThan(lastEdge, firstEdge, "the edge in live events grows while recording: \(eventEdges)")
        }

        // Both the recording and playback run in real time.
        XCTAssertEqual(second.state, "playing", "\(second)\n\(logTail())")
        assertConsistent(second, window: 60)
        XCTAssertEqual(second.edge - first.edge, elapsed, accuracy: 1.5, "the edge grows with the wall clock: \(first) -> \(second)")
        XCTAssertEqual(second.position - first.position, elapsed, accuracy: 0.75, "playback at rate 1: \(first) -> \(second)")
        XCTAssertEqual(second.behind, first.behind, accuracy: 1.5, "playing keeps the distance to the edge: \(first) -> \(second)")
    }

    func testPauseKeepsRecordingAndPlayResumesWhereItPaused() throws {
        let sender = try startSender()
        _ = try open(sender.uri, window: 60)
        let before = try waitForTimeline("playing with 3 s recorded", timeout: 10) { $0.state == "playing" && $0.edge >= 3 }

        let pauseSentAt = Date()
        let (pauseStatus, pausedBody) = try daemon.post("/v1/player/pause?wait=paused&timeout=10")
        XCTAssertEqual(pauseStatus, 200, "\(pausedBody)\n\(logTail())")
        let paused = try timeline()
        XCTAssertEqual(paused.state, "paused", "\(paused)")
        usleep(3_000_000)
        let during = try timeline()
        XCTAssertEqual(during.state, "paused", "\(during)")
        XCTAssertEqual(during.position, paused.position, accuracy: 0.1, "position stands still while paused: \(paused) -> \(during)")
        XCTAssertGreaterThanOrEqual(during.edge - paused.edge, 1.5, "recording goes on while paused: \(paused) -> \(during)\n\(logTail())")
        assertConsistent(during, window: 60)

        let (playStatus, playedBody) = try daemon.post("/v1/player/play?wait=playing&timeout=10")
        let pauseLength = Date().timeIntervalSince(pauseSentAt)
        XCTAssertEqual(playStatus, 200, "\(playedBody)\n\(logTail())")
        let resumed = try timeline()
        XCTAssertEqual(resumed.position, paused.position, accuracy: 0.5, "play resumes where it paused, not at the edge: \(paused) -> \(resumed)")
        XCTAssertEqual(resumed.behind, before.behind + pauseLength, accuracy: 1.5,
                       "behind grew by the \(String(format: "%.1f", pauseLength)) s pause: \(before) -> \(resumed)")

        // And it keeps that distance while it plays on, rather than catching up.
        usleep(1_500_000)
        let later = try timeline()
        XCTAssertEqual(later.state, "playing", "\(later)")
        XCTAssertGreaterThan(later.position, resumed.position + 0.75, "playing on after the pause: \(resumed) -> \(later)")
        XCTAssertEqual(later.behind, resumed.behind, accuracy: 1.5, "\(resumed) -> \(later)")
    }

    // MARK: Seeking

    func testSeekBackRelativeAndAbsoluteClampedThenBackToLive() throws {
        let sender = try startSender()
        _ = try open(sender.uri, window: 60)
        // Enough recorded behind the play position that going back 5 s (snapping to the
        // keyframe before) lands well after the absolute target below.
        let ready = try waitForTimeline("8.5 s recorded behind the position", timeout: 25) {
            $0.state == "playing" && $0.position - $0.start >= 8.5
        }

        // Relative.
        let (back, backBody) = try daemon.post("/v1/player/seek?wait=playing&timeout=15", ["offset": -5])
        XCTAssertEqual(back, 200, "\(backBody)\n\(logTail())")
        let afterBack = try timeline()
        XCTAssertEqual(afterBack.state, "playing", "\(afterBack)")
        XCTAssertEqual(afterBack.behind, ready.behind + 5, accuracy: 1.5, "5 s further behind after seeking -5: \(ready) -> \(afterBack)")
        assertConsistent(afterBack, window: 60)

        // Absolute, in the recording's timeline.
        let target = afterBack.start + 1
        let (absolute, absoluteBody) = try daemon.post("/v1/player/seek?wait=playing&timeout=15", ["position": target])
        XCTAssertEqual(absolute, 200, "\(absoluteBody)\n\(logTail())")
        let atTarget = try timeline()
        XCTAssertTrue(atTarget.position >= target - 1.1 && atTarget.position <= target + 1.5,
                      "seek to \(target) landed elsewhere (keyframes every second): \(atTarget)")
        XCTAssertGreaterThan(atTarget.behind, afterBack.behind + 1, "the start of the recording is further back: \(afterBack) -> \(atTarget)")
        assertConsistent(atTarget, window: 60)

        // Out of range both ways: clamped into the seekable range, not refused.
        let (late, lateBody) = try daemon.post("/v1/player/seek?wait=playing&timeout=15", ["position": 100_000])
        XCTAssertEqual(late, 200, "a seek past the edge is clamped: \(lateBody)\n\(logTail())")
        let clampedEnd = try timeline()
        XCTAssertLessThanOrEqual(clampedEnd.position, clampedEnd.edge, "\(clampedEnd)")
        XCTAssertLessThan(clampedEnd.behind, 7, "clamped to the end of the window: \(clampedEnd)")
        let (early, earlyBody) = try daemon.post("/v1/player/seek?wait=playing&timeout=15", ["offset": -1000])
        XCTAssertEqual(early, 200, "a seek before the window is clamped: \(earlyBody)\n\(logTail())")
        let clampedStart = try timeline()
        XCTAssertTrue(clampedStart.position >= clampedStart.start - 0.5 && clampedStart.position <= clampedStart.start + 2,
                      "clamped to the start of the window: \(clampedStart)")
        XCTAssertGreaterThan(clampedStart.behind, 7, "far behind before going live: \(clampedStart)")

        // Live: at the edge again.
        let (live, liveBody) = try daemon.post("/v1/player/live?wait=playing&timeout=15")
        XCTAssertEqual(live, 200, "\(liveBody)\n\(logTail())")
        let atEdge = try waitForTimeline("back at the live edge", timeout: 5) { $0.state == "playing" && $0.behind < 6.5 }
        XCTAssertGreaterThan(atEdge.position, clampedStart.position + 5, "live moved forward: \(clampedStart) -> \(atEdge)")
        assertConsistent(atEdge, window: 60)
    }

    // MARK: Arguments and non-live sources

    func testTimeshiftArgumentsAreValidatedAndVODIsNotLive() throws {
        let udp = "udp://127.0.0.1:\(try LiveUDPSender.freeUDPPort())"
        let badWindows: [Any] = [0, 0.5, -5, 86_401, "60"]
        for window in badWindows {
            let (status, body) = try daemon.post("/v1/player/open", ["uri": udp, "timeshift": ["window": window]])
            XCTAssertEqual(status, 400, "window \(window): \(body)")
            XCTAssertEqual(body.errorCode, "invalid_argument", "window \(window): \(body)")
        }
        let (missing, missingBody) = try daemon.post("/v1/player/open", ["uri": udp, "timeshift": [String: Any]()])
        XCTAssertEqual(missing, 400, "timeshift without window: \(missingBody)")
        XCTAssertEqual(missingBody.errorCode, "invalid_argument", "\(missingBody)")
        XCTAssertEqual(try daemon.snapshot().state, "idle", "a refused open opens nothing")

        // Timeshift is for live sources only.
        let clip = try MediaFixtures.mp4(seconds: 3)
        let (onFile, onFileBody) = try daemon.post("/v1/player/open", ["uri": clip.path, "timeshift": ["window": 60]])
        XCTAssertEqual(onFile, 400, "timeshift on a local file: \(onFileBody)")
        XCTAssertEqual(onFileBody.errorCode, "invalid_argument", "\(onFileBody)")

        // The largest window is accepted (nothing is sent to the port; it just waits).
        let (largest, largestBody) = try daemon.post("/v1/player/open", ["uri": udp, "timeshift": ["window": 86_400]])
        XCTAssertEqual(largest, 200, "window 86400 is in range: \(largestBody)\n\(logTail())")
        XCTAssertEqual(try daemon.client.post("/v1/player/stop").status, 200)

        // A file is not live: going live is refused.
        let (opened, openedBody) = try daemon.post("/v1/player/open?wait=playing&timeout=15", ["uri": clip.path])
        XCTAssertEqual(opened, 200, "\(openedBody)")
        let r = try daemon.client.post("/v1/player/live")
        XCTAssertEqual(r.status, 409, r.text)
        XCTAssertEqual((try? r.json() as? [String: Any])?.errorCode, "not_live", r.text)
        let s = try daemon.snapshot()
        XCTAssertEqual((s["source"] as? [String: Any])?["live"] as? Bool, false, "\(s)")
        XCTAssertTrue(s["live"] is NSNull, "\(s)")
        XCTAssertTrue(recordedSegments().isEmpty, "nothing is recorded for a file: \(recordedSegments().map(\.lastPathComponent))")
    }

    func testLiveUDPWithoutTimeshiftPlaysAtTheEdge() throws {
        let sender = try startSender()
        let opened = try open(sender.uri, window: nil)
        let source = opened["source"] as? [String: Any]
        XCTAssertEqual(source?["kind"] as? String, "live", "\(opened)")
        XCTAssertEqual(source?["live"] as? Bool, true, "\(opened)")
        usleep(1_000_000)
        let s = try daemon.snapshot()
        XCTAssertEqual(s.state, "playing", "\(s)\n\(logTail())")
        XCTAssertTrue(s["duration"] is NSNull, "\(s)")

        for body: [String: Any] in [["offset": -5], ["position": 1]] {
            let r = try daemon.client.post("/v1/player/seek", json: body)
            XCTAssertEqual(r.status, 409, "seek \(body) without timeshift: \(r.text)")
            XCTAssertEqual((try? r.json() as? [String: Any])?.errorCode, "not_seekable", r.text)
        }
        let live = try daemon.client.post("/v1/player/live")
        XCTAssertEqual(live.status, 200, live.text)
        XCTAssertEqual(try daemon.snapshot().state, "playing")
        XCTAssertTrue(recordedSegments().isEmpty, "nothing is recorded without timeshift: \(recordedSegments().map(\.lastPathComponent))")
    }

    // MARK: Live HLS

    func testLiveHLSTimeshiftRewindsBeyondTheOriginsWindow() throws {
        let ladder = try HLSFixtures.ladder()
        let server = try RecordingHTTPServer(root: ladder.directory)
        self.server = server
        // The origin lists four 1 s segments of the 640x360 variant at a time.
        let origin = try LiveHLSPlaylist(vodPlaylist: ladder.directory.appendingPathComponent(ladder.variantPaths[1]))
        server.serve("/v1/live.m3u8") { origin.text() }
        let opened = try open(server.baseURL + "/v1/live.m3u8", window: 60)
        let source = opened["source"] as? [String: Any]
        XCTAssertEqual(source?["kind"] as? String, "hls", "\(opened)")
        let recorded = try waitForTimeline("10 s recorded", timeout: 20) { $0.state == "playing" && $0.edge - $0.start >= 10 }
        XCTAssertEqual((recorded.snapshot["source"] as? [String: Any])?["live"] as? Bool, true, "\(recorded)")
        assertConsistent(recorded, window: 60)

        let (status, body) = try daemon.post("/v1/player/seek?wait=playing&timeout=15", ["position": recorded.start])
        XCTAssertEqual(status, 200, "\(body)\n\(logTail())")
        let rewound = try timeline()
        XCTAssertEqual(rewound.state, "playing", "\(rewound)")
        XCTAssertGreaterThan(rewound.behind, Double(origin.window) + 2,
                             "further back than the origin's \(origin.window) s window: \(rewound)\n\(logTail())")
        usleep(1_000_000)
        let later = try timeline()
        XCTAssertEqual(later.state, "playing", "\(later)")
        XCTAssertGreaterThan(later.position, rewound.position + 0.5, "plays on from the recording: \(rewound) -> \(later)")
    }

    // MARK: Disk

    func testRingOnDiskIsBoundedByTheWindow() throws {
        let sender = try startSender()
        _ = try open(sender.uri, window: 4)
        let t = try waitForTimeline("12 s recorded", timeout: 20) { $0.edge >= 12 }
        let segments = recordedSegments()
        // The window, plus four segments at the edge the demuxer keeps back, plus the one
        // being written.
        XCTAssertLessThanOrEqual(segments.count, 4 + 4 + 2, "a 4 s window keeps about 8 one-second segments: \(segments.map(\.lastPathComponent).sorted())")
        XCTAssertGreaterThanOrEqual(segments.count, 2, "the ring holds recent segments: \(segments.map(\.lastPathComponent).sorted())")
        XCTAssertEqual(t.state, "playing", "\(t)\n\(logTail())")
        XCTAssertLessThanOrEqual(t.window, 4 + 2.5, "\(t)")
        XCTAssertGreaterThan(t.window, 0, "\(t)")
        XCTAssertGreaterThan(t.start, 1, "the oldest segments were dropped: \(t)")
        assertConsistent(t, window: 4)

        // An absolute position that was dropped is clamped to what is left.
        let (status, body) = try daemon.post("/v1/player/seek?wait=playing&timeout=10", ["position": 0])
        XCTAssertEqual(status, 200, "a seek to a dropped position is clamped: \(body)\n\(logTail())")
        let landed = try timeline()
        XCTAssertEqual(landed.state, "playing", "\(landed)")
        XCTAssertGreaterThanOrEqual(landed.position, t.start - 0.5, "not before the window: \(t) -> \(landed)")
        XCTAssertLessThanOrEqual(landed.window, 4 + 2.5, "\(landed)")
    }

    // MARK: The source going away

    func testRecordingSurvivesTheSenderStoppingAndGoesOnWhenItReturns() throws {
        let sender = try startSender()
        _ = try open(sender.uri, window: 60)
        _ = try waitForTimeline("7 s recorded", timeout: 20) { $0.state == "playing" && $0.edge >= 6.5 }
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        sender.stop()
        // Nothing for 5 s: the recorder is restarted, and says so.
        let events = try collectEvents(ws, timeout: 10) { $0.contains { $0["type"] as? String == "reconnecting" } }
        let reconnecting = try XCTUnwrap(events.first { $0["type"] as? String == "reconnecting" }?["data"] as? [String: Any],
                                         "no reconnecting event: \(events.compactMap { $0["type"] as? String })\n\(logTail())")
        XCTAssertEqual(reconnecting["attempt"] as? Int, 1)
        XCTAssertEqual(jsonNumber(reconnecting["delay"]), 1)
        XCTAssertTrue((reconnecting["reason"] as? String ?? "").contains("no data"), "\(reconnecting)")

        let quiet = try timeline()
        XCTAssertNotEqual(quiet.state, "error", "\(quiet)\n\(logTail())")
        usleep(2_000_000)
        let stillQuiet = try timeline()
        XCTAssertNotEqual(stillQuiet.state, "error", "\(stillQuiet)\n\(logTail())")
        // At most a last partial segment is closed meanwhile; the edge does not follow the clock.
        XCTAssertLessThanOrEqual(stillQuiet.edge - quiet.edge, 1.0, "nothing is recorded while nothing arrives: \(quiet) -> \(stillQuiet)")

        // What was recorded stays playable.
        let target = stillQuiet.start + 1
        let (status, body) = try daemon.post("/v1/player/seek?wait=playing&timeout=10", ["position": target])
        XCTAssertEqual(status, 200, "seek back after the source stopped: \(body)\n\(logTail())")
        let rewound = try timeline()
        XCTAssertNotEqual(rewound.state, "error", "\(rewound)")
        XCTAssertTrue(rewound.position >= target - 1.1 && rewound.position <= target + 1.5, "seek to \(target): \(rewound)")

        // The source comes back on the same port: recording goes on.
        let frozenEdge = stillQuiet.edge
        let again = try LiveUDPSender(port: sender.port)
        senders.append(again)
        // Within a restart or two: a recorder that started before the source came back
        // sometimes stalls on its first fragment, and the watchdog replaces it after 5 s.
        let resumed = try waitForTimeline("the edge growing again", timeout: 20) { $0.edge >= frozenEdge + 2 }
        XCTAssertNotEqual(resumed.state, "error", "\(resumed)\n\(logTail())")
        XCTAssertNil(resumed.snapshot.errorCode, "\(resumed)")
        assertConsistent(resumed, window: 60)
        // And the stream says so.
        let back = try collectEvents(ws, timeout: 5) { $0.contains { $0["type"] as? String == "recovered" } }
        let recovered = try XCTUnwrap(back.first { $0["type"] as? String == "recovered" }?["data"] as? [String: Any],
                                      "no recovered event: \(back.compactMap { $0["type"] as? String })")
        XCTAssertGreaterThanOrEqual(recovered["attempts"] as? Int ?? 0, 1)
        XCTAssertGreaterThanOrEqual(jsonNumber(recovered["downtime"]) ?? 0, 2)
    }

    // MARK: The demo source and the daemon's default window

    func testDefaultWindowRecordsTheDemoSource() throws {
        // A daemon started with --timeshift-window records live sources opened without
        // `timeshift`; the demo source is encoded by the recorder itself.
        XCTAssertEqual(daemon.stop(), 0)
        daemon = try Daemon(extraArguments: ["--timeshift-window", "30"])
        _ = try open("demo://", window: nil)
        let t = try waitForTimeline("two seconds recorded", timeout: 10) { $0.edge >= 2 }
        XCTAssertEqual((t.snapshot["source"] as? [String: Any])?["uri"] as? String, "demo://")
        XCTAssertEqual((t.snapshot["source"] as? [String: Any])?["kind"] as? String, "live")
        assertConsistent(t, window: 30)
        XCTAssertGreaterThanOrEqual(recordedSegments().count, 2)
        let video = ((t.snapshot["tracks"] as? [String: Any])?["video"] as? [[String: Any]])?.first
        XCTAssertTrue((video?["codec"] as? String ?? "").contains("H.264"), "\(String(describing: video))")
        XCTAssertFalse((video?["codec"] as? String ?? "").contains("4:4:4"), "encoded as 4:2:0 for set-top decoders")
        // Stop deletes the ring, once the pipeline that read it is down (on the pipeline
        // worker, a moment after the reply).
        XCTAssertEqual(try daemon.client.post("/v1/player/stop").status, 200)
        let deadline = Date().addingTimeInterval(5)
        while !recordedSegments().isEmpty && Date() < deadline { usleep(20_000) }
        XCTAssertTrue(recordedSegments().isEmpty, "the ring is deleted with its session")
        // A daemon flag out of range is refused at start.
        XCTAssertThrowsError(try Daemon(extraArguments: ["--timeshift-window", "-3"]))
    }

    // MARK: Helpers

    /// A running sender, stopped in tearDown; skips when the machine cannot encode.
    private func startSender() throws -> LiveUDPSender {
        if let reason = LiveUDPSender.unavailableReason { throw XCTSkip(reason) }
        let sender = try LiveUDPSender()
        senders.append(sender)
        return sender
    }

    /// Opens `uri` (with `timeshift.window` when given), waits for playing, and returns the
    /// reply's snapshot; stops the test if that fails.
    private func open(_ uri: String, window: Double?) throws -> [String: Any] {
        var body: [String: Any] = ["uri": uri]
        if let window { body["timeshift"] = ["window": window] }
        let (status, opened) = try daemon.post("/v1/player/open?wait=playing&timeout=18", body)
        guard status == 200 else {
            let senderState = senders.map { "sender on \($0.port) running: \($0.isRunning)\n\(tail($0.output, lines: 10))" }
            throw Failure("open \(body) answered \(status): \(opened)\n\(senderState.joined(separator: "\n"))\n\(logTail())")
        }
        return opened
    }

    private var timeshiftDirectory: URL { daemon.dataDirectory.appendingPathComponent("timeshift") }

    /// The ring's segment files (`*.ts` anywhere under `<data-dir>/timeshift/`).
    private func recordedSegments() -> [URL] {
        guard let walker = FileManager.default.enumerator(at: timeshiftDirectory, includingPropertiesForKeys: nil) else { return [] }
        return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "ts" }
    }

    private func timeline() throws -> LiveTimeline {
        let s = try daemon.snapshot()
        guard let t = LiveTimeline(s) else {
            throw Failure("the snapshot has no live timeline (position, seekable, live): \(s)\n\(logTail())")
        }
        return t
    }

    /// Polls the snapshot until it has a live timeline that satisfies `condition`; throws
    /// (failing the test) with the last snapshot and the log's tail when time runs out.
    private func waitForTimeline(_ description: String, timeout: Double, _ condition: (LiveTimeline) -> Bool) throws -> LiveTimeline {
        let deadline = Date().addingTimeInterval(timeout)
        var last: [String: Any] = [:]
        while Date() < deadline {
            last = try daemon.snapshot()
            if let t = LiveTimeline(last), condition(t) { return t }
            usleep(100_000)
        }
        let described = LiveTimeline(last).map { "\($0)" } ?? "\(last)"
        throw Failure("timed out after \(timeout) s waiting for \(description); last: \(described)\n\(logTail())")
    }

    /// What holds in every timeshift snapshot.
    private func assertConsistent(_ t: LiveTimeline, window: Double, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertGreaterThanOrEqual(t.start, 0, "\(t)", file: file, line: line)
        XCTAssertLessThanOrEqual(t.start, t.end, "\(t)", file: file, line: line)
        XCTAssertLessThanOrEqual(t.end, t.edge + 0.5, "seekable ends at the edge at the latest: \(t)", file: file, line: line)
        XCTAssertEqual(t.behind, t.edge - t.position, accuracy: 0.5, "behind = edge - position: \(t)", file: file, line: line)
        XCTAssertGreaterThanOrEqual(t.behind, 0, "\(t)", file: file, line: line)
        XCTAssertEqual(t.window, t.end - t.start, accuracy: 0.01, "window = the seekable span: \(t)", file: file, line: line)
        XCTAssertLessThanOrEqual(t.window, window + 2.5, "the ring keeps at most the window (+ a couple of segments): \(t)", file: file, line: line)
        XCTAssertTrue(t.snapshot["duration"] is NSNull, "duration is null while live: \(t)", file: file, line: line)
    }

    private func logTail(lines: Int = 40) -> String {
        "daemon log (last \(lines) lines):\n" + tail(daemon.log, lines: lines)
    }

    private func tail(_ text: String, lines: Int) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }
}

/// Stops a test with a message (thrown errors fail the test and end it, unlike XCTFail).
private struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A JSON number as Double, whether JSONSerialization made it an Int, a Double or an NSNumber.
private func jsonNumber(_ value: Any?) -> Double? {
    if let value = value as? Double { return value }
    if let value = value as? Int { return Double(value) }
    return (value as? NSNumber)?.doubleValue
}

/// The timeshift fields of a snapshot; nil unless all are present.
private struct LiveTimeline: CustomStringConvertible {
    let snapshot: [String: Any]
    let state: String
    let position: Double
    let edge: Double
    let behind: Double
    let window: Double
    /// `seekable.start` / `seekable.end`.
    let start: Double
    let end: Double

    init?(_ snapshot: [String: Any]) {
        guard let state = snapshot.state,
              let position = jsonNumber(snapshot["position"]),
              let live = snapshot["live"] as? [String: Any],
              let edge = jsonNumber(live["edge"]), let behind = jsonNumber(live["behind"]), let window = jsonNumber(live["window"]),
              let seekable = snapshot["seekable"] as? [String: Any],
              let start = jsonNumber(seekable["start"]), let end = jsonNumber(seekable["end"])
        else { return nil }
        self.snapshot = snapshot
        self.state = state
        self.position = position
        self.edge = edge
        self.behind = behind
        self.window = window
        self.start = start
        self.end = end
    }

    var description: String {
        func f(_ x: Double) -> String { String(format: "%.2f", x) }
        return "state \(state), position \(f(position)), edge \(f(edge)), behind \(f(behind)), window \(f(window)), "
            + "seekable \(f(start))...\(f(end)), error \(snapshot.errorCode ?? "none")"
    }
}
