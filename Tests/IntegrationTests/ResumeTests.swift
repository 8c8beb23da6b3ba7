import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// Resume points per (contentId, userId) through the real daemon: saved on pause, stop and
/// every 5 s of playing; an open without `start` resumes there unless it is within the last
/// 10 s; `watched` accumulates across sessions and daemon restarts.
final class ResumeTests: XCTestCase {
    private var daemon: Daemon?
    private var sharedDataDirectory: URL?

    override func tearDown() {
        daemon?.assertStopsCleanly()
        daemon = nil
        if let sharedDataDirectory, ProcessInfo.processInfo.environment["MARQUEE_KEEP_TEST_DATA"] != "1" {
            try? FileManager.default.removeItem(at: sharedDataDirectory)
        }
    }

    /// Key-unit seeks (the clip has a keyframe every second) snap to the keyframe at or before
    /// the target: a resumed position is up to ~1 s before the saved one, never after.
    private static let keyframeSlack = 1.5

    private func open(_ daemon: Daemon, _ clip: URL, contentId: String, userId: String?, start: Double? = nil,
                      autoplay: Bool, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        var body: [String: Any] = ["uri": clip.path, "contentId": contentId, "autoplay": autoplay]
        if let userId { body["userId"] = userId }
        if let start { body["start"] = start }
        let (status, s) = try daemon.post("/v1/player/open?wait=\(autoplay ? "playing" : "paused")", body)
        XCTAssertEqual(status, 200, "\(s)", file: file, line: line)
        return s
    }

    private func stop(_ daemon: Daemon, file: StaticString = #filePath, line: UInt = #line) throws {
        let (status, s) = try daemon.post("/v1/player/stop")
        XCTAssertEqual(status, 200, "\(s)", file: file, line: line)
    }

    private func watched(_ s: [String: Any]) -> Double? { (s["source"] as? [String: Any])?["watched"] as? Double }

    func testOpenWithoutStartResumesPerContentAndUser() throws {
        let daemon = try Daemon()
        self.daemon = daemon
        let clip = try MediaFixtures.mp4(seconds: 20)

        // alice watches ~3 s, pauses, stops.
        var s = try open(daemon, clip, contentId: "film-1", userId: "alice", autoplay: true)
        XCTAssertLessThan(s.position ?? 99, 0.5, "a first open starts at the beginning: \(s)")
        _ = try daemon.waitFor("3 s played", timeout: 10) { ($0.position ?? 0) >= 3.0 }
        let (status, paused) = try daemon.post("/v1/player/pause?wait=paused")
        XCTAssertEqual(status, 200, "\(paused)")
        let saved = try XCTUnwrap(paused.position)
        let firstWatched = try XCTUnwrap(watched(try daemon.snapshot()), "the source shows watched while loaded")
        XCTAssertGreaterThanOrEqual(firstWatched, 2.5, "about 3 s were played")
        try stop(daemon)

        // Open again without start: back near where she left off (a key-unit seek).
        s = try open(daemon, clip, contentId: "film-1", userId: "alice", autoplay: false)
        let resumed = try XCTUnwrap(s.position, "\(s)")
        XCTAssertLessThanOrEqual(resumed, saved + 0.1, "resumed after the saved point \(saved)")
        XCTAssertGreaterThanOrEqual(resumed, saved - Self.keyframeSlack, "resumed too early for the saved point \(saved)")
        XCTAssertGreaterThan(resumed, 1, "\(s)")
        // Watched carries over from the first session.
        let secondWatched = try XCTUnwrap(watched(s), "\(s)")
        XCTAssertGreaterThanOrEqual(secondWatched, firstWatched - 0.01, "watched accumulates across sessions")
        try stop(daemon)

        // bob has his own point (none yet): he starts at 0.
        s = try open(daemon, clip, contentId: "film-1", userId: "bob", autoplay: false)
        XCTAssertLessThan(try XCTUnwrap(s.position), 0.5, "another user does not share alice's point: \(s)")
        XCTAssertLessThan(watched(s) ?? 99, 0.5, "nor her watched time: \(s)")
        try stop(daemon)
        // So has an anonymous viewer, and so has other content.
        s = try open(daemon, clip, contentId: "film-1", userId: nil, autoplay: false)
        XCTAssertLessThan(try XCTUnwrap(s.position), 0.5, "\(s)")
        try stop(daemon)
        s = try open(daemon, clip, contentId: "film-2", userId: "alice", autoplay: false)
        XCTAssertLessThan(try XCTUnwrap(s.position), 0.5, "\(s)")
        try stop(daemon)

        // A given start wins over the resume point.
        s = try open(daemon, clip, contentId: "film-1", userId: "alice", start: 8, autoplay: false)
        XCTAssertEqual(try XCTUnwrap(s.position), 8, accuracy: 0.3, "start given wins: \(s)")
        try stop(daemon)

        // Near the end: a point within the last 10 s starts the content over.
        s = try open(daemon, clip, contentId: "film-1", userId: "alice", autoplay: true)
        let duration = try XCTUnwrap(s["duration"] as? Double, "\(s)")
        let (seekStatus, seeked) = try daemon.post("/v1/player/seek?wait=playing", ["position": duration - 3])
        XCTAssertEqual(seekStatus, 200, "\(seeked)")
        XCTAssertGreaterThan(seeked.position ?? 0, duration - 10, "\(seeked)")
        try stop(daemon)
        s = try open(daemon, clip, contentId: "film-1", userId: "alice", autoplay: false)
        XCTAssertLessThan(try XCTUnwrap(s.position), 0.5, "a point in the last 10 s starts over: \(s)")
        XCTAssertGreaterThanOrEqual(watched(s) ?? 0, secondWatched, "watched keeps growing: \(s)")
        try stop(daemon)
    }

    /// Regressions: reopening the content that plays resumes from where it is (its point is
    /// saved before the new open reads it), and a session that never played (opened paused,
    /// seeked, stopped) still saves its point.
    func testReopeningWhatPlaysAndStoppingUnplayedSessionsKeepThePoint() throws {
        let daemon = try Daemon()
        self.daemon = daemon
        let clip = try MediaFixtures.mp4(seconds: 20)
        _ = try open(daemon, clip, contentId: "film-3", userId: "carol", autoplay: true)
        _ = try daemon.waitFor("3 s played", timeout: 10) { ($0.position ?? 0) >= 3.0 }
        var s = try open(daemon, clip, contentId: "film-3", userId: "carol", autoplay: false)
        XCTAssertGreaterThan(try XCTUnwrap(s.position), 3.0 - Self.keyframeSlack, "reopened where it played: \(s)")
        XCTAssertGreaterThanOrEqual(watched(s) ?? 0, 2.5, "with its watched time: \(s)")

        let (status, seeked) = try daemon.post("/v1/player/seek?wait=paused", ["position": 9.0])
        XCTAssertEqual(status, 200, "\(seeked)")
        try stop(daemon)
        s = try open(daemon, clip, contentId: "film-3", userId: "carol", autoplay: false)
        XCTAssertEqual(try XCTUnwrap(s.position), 9.0, accuracy: Self.keyframeSlack, "a paused, seeked, stopped session saved its point: \(s)")
        try stop(daemon)
    }

    func testResumePointAndWatchedSurviveADaemonRestart() throws {
        let directory = try Daemon.makeDataDirectory()
        sharedDataDirectory = directory
        let clip = try MediaFixtures.mp4(seconds: 20)
        var daemon = try Daemon(dataDirectory: directory)
        self.daemon = daemon

        _ = try open(daemon, clip, contentId: "film-9", userId: "carol", autoplay: true)
        var (status, s) = try daemon.post("/v1/player/seek?wait=playing", ["position": 6.0, "exact": true])
        XCTAssertEqual(status, 200, "\(s)")
        _ = try daemon.waitFor("a little past 6 s", timeout: 10) { ($0.position ?? 0) >= 6.5 }
        (status, s) = try daemon.post("/v1/player/pause?wait=paused")
        XCTAssertEqual(status, 200, "\(s)")
        let saved = try XCTUnwrap(s.position)
        let firstWatched = try XCTUnwrap(watched(try daemon.snapshot()))
        // SIGTERM; the pause saved the point (a clean shutdown may save the same again).
        XCTAssertEqual(daemon.stop(), 0, "log:\n\(daemon.log.suffix(3000))")
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.appendingPathComponent("marquee.sqlite3").path),
                      "the data directory is kept for the restart")

        daemon = try Daemon(dataDirectory: directory)
        self.daemon = daemon
        s = try open(daemon, clip, contentId: "film-9", userId: "carol", autoplay: false)
        let resumed = try XCTUnwrap(s.position, "\(s)")
        XCTAssertLessThanOrEqual(resumed, saved + 0.1, "saved at \(saved): \(s)")
        XCTAssertGreaterThanOrEqual(resumed, saved - Self.keyframeSlack, "saved at \(saved): \(s)")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(watched(s)), firstWatched - 0.01,
                                    "watched survives the restart (first session: \(firstWatched)): \(s)")

        // Playing on adds to it; the next session sees the sum.
        (status, s) = try daemon.post("/v1/player/play?wait=playing")
        XCTAssertEqual(status, 200, "\(s)")
        _ = try daemon.waitFor("1 s more", timeout: 10) { ($0.position ?? 0) >= resumed + 1 }
        try stop(daemon)
        s = try open(daemon, clip, contentId: "film-9", userId: "carol", autoplay: false)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(watched(s)), firstWatched + 0.9, "\(s)")
        XCTAssertGreaterThan(try XCTUnwrap(s.position), resumed, "the newer point wins: \(s)")
        try stop(daemon)
    }

    /// A crash loses at most the last few seconds: the point is saved every 5 s while playing.
    func testPointSavedWhilePlayingSurvivesSIGKILL() throws {
        let directory = try Daemon.makeDataDirectory()
        sharedDataDirectory = directory
        let clip = try MediaFixtures.mp4(seconds: 20)
        var daemon = try Daemon(dataDirectory: directory)
        self.daemon = daemon

        _ = try open(daemon, clip, contentId: "film-5", userId: "dave", autoplay: true)
        // Past the first periodic save (5 s after playback started), never paused or stopped.
        _ = try daemon.waitFor("6 s played", timeout: 12) { ($0.position ?? 0) >= 6.0 }
        XCTAssertTrue(daemon.crash(), "the daemon must die from SIGKILL")

        daemon = try Daemon(dataDirectory: directory)
        self.daemon = daemon
        let s = try open(daemon, clip, contentId: "film-5", userId: "dave", autoplay: false)
        let resumed = try XCTUnwrap(s.position, "\(s)")
        // The save came at about 5 s; a key-unit seek lands on the keyframe at or before it.
        XCTAssertGreaterThanOrEqual(resumed, 5 - Self.keyframeSlack, "\(s)\nlog:\n\(daemon.log.suffix(2000))")
        XCTAssertLessThanOrEqual(resumed, 6.5, "\(s)")
        XCTAssertGreaterThanOrEqual(watched(s) ?? 0, 4.0, "the periodic save carries watched too: \(s)")
        try stop(daemon)
    }
}
