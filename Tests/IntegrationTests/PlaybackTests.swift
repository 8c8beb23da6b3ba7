import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// Local-file playback through the real daemon: transport, seeks, settings, wait.
final class PlaybackTests: XCTestCase {
    var daemon: Daemon!

    override func setUpWithError() throws {
        daemon = try Daemon()
    }

    override func tearDown() {
        XCTAssertEqual(daemon.stop(), 0, "the daemon must exit 0 on SIGTERM")
    }

    func testOpenPlayPauseSeekStop() throws {
        let clip = try MediaFixtures.mp4()
        var (status, s) = try daemon.post("/v1/player/open?wait=playing", ["uri": clip.path])
        XCTAssertEqual(status, 200, "\(s)")
        XCTAssertEqual(s.state, "playing")
        XCTAssertEqual((s["source"] as? [String: Any])?["kind"] as? String, "file")
        XCTAssertEqual(try XCTUnwrap(s["duration"] as? Double), 6.0, accuracy: 0.2)
        XCTAssertNotNil(s["seekable"] as? [String: Any])

        // Position advances in real time with fake sinks (sync on the clock).
        let p0 = try XCTUnwrap(try daemon.snapshot().position)
        usleep(500_000)
        let p1 = try XCTUnwrap(try daemon.snapshot().position)
        XCTAssertGreaterThan(p1 - p0, 0.3)
        XCTAssertLessThan(p1 - p0, 0.9, "fakesinks must play in real time, not as fast as possible")

        (status, s) = try daemon.post("/v1/player/pause?wait=paused")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(s.state, "paused")
        let paused = try XCTUnwrap(try daemon.snapshot().position)
        usleep(300_000)
        XCTAssertEqual(try XCTUnwrap(try daemon.snapshot().position), paused, accuracy: 0.05, "paused position must hold")

        // Key-unit seek (default) snaps to the keyframe before 3.5 (one each second).
        (status, s) = try daemon.post("/v1/player/seek?wait=paused", ["position": 3.5])
        XCTAssertEqual(status, 200, "\(s)")
        XCTAssertEqual(try XCTUnwrap(s.position), 3.0, accuracy: 0.1)
        // An exact seek lands on the target.
        (status, s) = try daemon.post("/v1/player/seek?wait=paused", ["position": 2.5, "exact": true])
        XCTAssertEqual(status, 200)
        XCTAssertEqual(try XCTUnwrap(s.position), 2.5, accuracy: 0.05)
        // Relative.
        (status, s) = try daemon.post("/v1/player/seek?wait=paused", ["offset": 1.0, "exact": true])
        XCTAssertEqual(try XCTUnwrap(s.position), 3.5, accuracy: 0.05)
        // Clamped at 0.
        (status, s) = try daemon.post("/v1/player/seek?wait=paused", ["offset": -30.0])
        XCTAssertEqual(try XCTUnwrap(s.position), 0, accuracy: 0.05)

        (status, s) = try daemon.post("/v1/player/play?wait=playing")
        XCTAssertEqual(s.state, "playing")

        (status, s) = try daemon.post("/v1/player/stop")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(s.state, "idle")
        XCTAssertTrue(s["source"] is NSNull, "stop unloads the source")
    }

    func testOpenPausedAtStartPosition() throws {
        let clip = try MediaFixtures.mp4()
        let (status, s) = try daemon.post("/v1/player/open?wait=paused", ["uri": "file://" + clip.path, "autoplay": false, "start": 2.0])
        XCTAssertEqual(status, 200, "\(s)")
        XCTAssertEqual(s.state, "paused")
        XCTAssertEqual(try XCTUnwrap(s.position), 2.0, accuracy: 0.1)
    }

    func testRateVolumeMuteAudioDelay() throws {
        let clip = try MediaFixtures.mp4()
        _ = try daemon.post("/v1/player/open?wait=playing", ["uri": clip.path])
        let r = try daemon.client.patch("/v1/player", json: ["rate": 2.0, "volume": 0.5, "muted": true, "audioDelay": 0.2])
        XCTAssertEqual(r.status, 200, r.text)
        let s = try XCTUnwrap(try r.json() as? [String: Any])
        XCTAssertEqual(s["rate"] as? Double, 2.0)
        XCTAssertEqual(s["volume"] as? Double, 0.5)
        XCTAssertEqual(s["muted"] as? Bool, true)
        XCTAssertEqual(s["audioDelay"] as? Double, 0.2)
        // At 2x the position advances about twice as fast as the wall clock.
        _ = try daemon.waitFor("playing after the rate change") { $0.state == "playing" }
        usleep(200_000)
        let p0 = try XCTUnwrap(try daemon.snapshot().position)
        let t0 = Date()
        usleep(1_000_000)
        let p1 = try XCTUnwrap(try daemon.snapshot().position)
        let ratio = (p1 - p0) / Date().timeIntervalSince(t0)
        XCTAssertEqual(ratio, 2.0, accuracy: 0.4, "rate 2 must play twice as fast")

        let bad = try daemon.client.patch("/v1/player", json: ["rate": 11.0])
        XCTAssertEqual(bad.status, 400)
    }

    func testShortClipEndsAndReplays() throws {
        let clip = try MediaFixtures.mp4(seconds: 2)
        var (status, s) = try daemon.post("/v1/player/open?wait=ended&timeout=10", ["uri": clip.path])
        XCTAssertEqual(status, 200, "\(s)")
        XCTAssertEqual(s.state, "ended")
        // play after the end starts over from the beginning
        (status, s) = try daemon.post("/v1/player/play?wait=playing")
        XCTAssertEqual(s.state, "playing")
        XCTAssertLessThan(try XCTUnwrap(try daemon.snapshot().position), 1.5)
    }

    func testWaitTimesOutWith408() throws {
        let clip = try MediaFixtures.mp4()
        let (status, s) = try daemon.post("/v1/player/open?wait=ended&timeout=0.5", ["uri": clip.path])
        XCTAssertEqual(status, 408)
        XCTAssertEqual(s.errorCode, "timeout")
    }

    func testSIGTERMWhilePlayingExitsCleanly() throws {
        let clip = try MediaFixtures.mp4()
        _ = try daemon.post("/v1/player/open?wait=playing", ["uri": clip.path])
        // tearDown asserts exit status 0
    }
}
