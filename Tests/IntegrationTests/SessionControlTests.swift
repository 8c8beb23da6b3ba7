import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// Concurrent-session control through the real daemon and a real session server (an
/// `AnalyticsCollector` answering verdicts): heartbeats with their fields, a device id kept
/// across restarts, a refusal and an unreachable server stopping playback with
/// `session_blocked`, and a slow server never in playback's way.
final class SessionControlTests: XCTestCase {
    private var server: AnalyticsCollector!
    private var daemon: Daemon?
    private var sharedDataDirectory: URL?

    override func setUpWithError() throws {
        server = try AnalyticsCollector()
    }

    override func tearDown() {
        daemon?.assertStopsCleanly()
        daemon = nil
        server.stop()
        if let sharedDataDirectory { try? FileManager.default.removeItem(at: sharedDataDirectory) }
    }

    private var sessionURL: String { "http://127.0.0.1:\(server.port)/session" }

    private func startDaemon(grace: Int = 2, dataDirectory: URL? = nil) throws -> Daemon {
        let started = try Daemon(dataDirectory: dataDirectory,
                                 extraArguments: ["--session-url", sessionURL, "--session-interval", "1", "--session-grace", "\(grace)"])
        daemon = started
        return started
    }

    private static let allow = PostReply.json(["allow": true])
    private static let refuse = PostReply.json(["allow": false, "code": "concurrent", "message": "watching on another device"])

    // MARK: Heartbeats

    /// start, then alive every second with every field, stop at `POST /v1/player/stop`; the
    /// device id is the one in DATA_DIR/device-id (0600), and the same after a restart.
    func testHeartbeatsCarryTheirFieldsAndTheDeviceIdSurvivesARestart() throws {
        let directory = try Daemon.makeDataDirectory()
        sharedDataDirectory = directory
        server.respond { _ in Self.allow }
        var daemon = try startDaemon(dataDirectory: directory)
        let clip = try MediaFixtures.mp4(seconds: 12)

        var (status, s) = try daemon.post("/v1/player/open?wait=playing", ["uri": clip.path, "contentId": "film-42", "userId": "user-7"])
        XCTAssertEqual(status, 200, "\(s)")
        let (beats, twoAlive) = server.waitFor(timeout: 6) { $0.filter { $0.event == "alive" }.count >= 2 }
        XCTAssertTrue(twoAlive, "two alive heartbeats in 6 s at a 1 s interval: \(beats.map(\.event)); log:\n\(daemon.log.suffix(3000))")
        (status, s) = try daemon.post("/v1/player/stop")
        XCTAssertEqual(status, 200, "\(s)")
        let (posts, stopped) = server.waitFor(timeout: 5) { $0.contains { $0.event == "stop" } }
        XCTAssertTrue(stopped, "no stop after POST /v1/player/stop: \(posts.map(\.event))")

        let events = posts.map { $0.event ?? "-" }
        XCTAssertEqual(events.first, "start", "\(events)")
        XCTAssertEqual(events.last, "stop", "\(events)")
        XCTAssertTrue(events.dropFirst().dropLast().allSatisfy { $0 == "alive" }, "\(events)")
        XCTAssertTrue(posts.allSatisfy { $0.path == "/session" && $0.headers["content-type"]?.hasPrefix("application/json") == true })
        let bodies = posts.compactMap(\.json)
        XCTAssertEqual(bodies.count, posts.count, "every body is a JSON object")
        let sessionId = try XCTUnwrap(bodies.first?["sessionId"] as? String)
        XCTAssertNotNil(UUID(uuidString: sessionId), "the session id is a UUID: \(sessionId)")
        let deviceId = try XCTUnwrap(bodies.first?["deviceId"] as? String)
        XCTAssertNotNil(UUID(uuidString: deviceId), "the device id is a UUID: \(deviceId)")
        for body in bodies {
            XCTAssertEqual(body["sessionId"] as? String, sessionId, "one session id per viewing")
            XCTAssertEqual(body["deviceId"] as? String, deviceId)
            XCTAssertEqual(body["contentId"] as? String, "film-42")
            XCTAssertEqual(body["userId"] as? String, "user-7")
        }
        // About a second apart (the start's answer is immediate).
        let alive = posts.filter { $0.event == "alive" }.map(\.time)
        for (a, b) in zip(alive, alive.dropFirst()) {
            XCTAssertEqual(b.timeIntervalSince(a), 1, accuracy: 0.5, "alive every --session-interval")
        }

        let file = directory.appendingPathComponent("device-id")
        let kept = try String(contentsOf: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(kept, deviceId)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)

        XCTAssertEqual(daemon.stop(), 0)
        let before = server.posts.count
        daemon = try startDaemon(dataDirectory: directory)
        (status, s) = try daemon.post("/v1/player/open?wait=playing", ["uri": clip.path])
        XCTAssertEqual(status, 200, "\(s)")
        let (again, started) = server.waitFor(timeout: 5) { $0.count > before }
        XCTAssertTrue(started)
        let start = try XCTUnwrap(again.dropFirst(before).first?.json)
        XCTAssertEqual(start["event"] as? String, "start")
        XCTAssertEqual(start["deviceId"] as? String, deviceId, "the same device after a restart")
        XCTAssertNotEqual(start["sessionId"] as? String, sessionId, "a new viewing, a new session id")
        XCTAssertTrue(start.keys.contains("contentId") && start["contentId"] is NSNull, "contentId null when the open gave none: \(start)")
        XCTAssertTrue(start["userId"] is NSNull, "\(start)")
    }

    // MARK: Blocking

    /// `{"allow": false}` stops playback: state error with session_blocked, a `blocked` event
    /// with the server's code and message; a new open plays once the server allows again.
    func testARefusalStopsPlaybackAndANewOpenPlaysWhenAllowed() throws {
        server.respond { _ in Self.allow }
        let daemon = try startDaemon()
        let clip = try MediaFixtures.mp4(seconds: 12)
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }

        var (status, s) = try daemon.post("/v1/player/open?wait=playing", ["uri": clip.path, "contentId": "film-42"])
        XCTAssertEqual(status, 200, "\(s)")
        XCTAssertTrue(server.waitFor(timeout: 5) { $0.contains { $0.event == "start" } }.met)
        server.respond { _ in Self.refuse }

        let blocked = try daemon.waitFor("state error", timeout: 5) { $0.state == "error" }
        XCTAssertEqual(blocked.errorCode, "session_blocked", "\(blocked)")
        XCTAssertEqual((blocked["error"] as? [String: Any])?["message"] as? String, "watching on another device")
        let events = try collectEvents(ws, timeout: 5) { $0.contains { $0["type"] as? String == "blocked" } }
        let event = try XCTUnwrap(events.first { $0["type"] as? String == "blocked" }?["data"] as? [String: Any], "\(events)")
        XCTAssertEqual(event["code"] as? String, "concurrent")
        XCTAssertEqual(event["message"] as? String, "watching on another device")
        let (posts, stopped) = server.waitFor(timeout: 5) { $0.contains { $0.event == "stop" } }
        XCTAssertTrue(stopped, "the blocked viewing is stopped at the server too: \(posts.map(\.event))")
        let firstSession = posts.first?.json?["sessionId"] as? String

        server.respond { _ in Self.allow }
        (status, s) = try daemon.post("/v1/player/open?wait=playing", ["uri": clip.path, "contentId": "film-42"])
        XCTAssertEqual(status, 200, "\(s)")
        XCTAssertEqual(s.state, "playing")
        let before = posts.count
        let (later, beat) = server.waitFor(timeout: 5) { $0.dropFirst(before).filter { $0.event == "alive" }.count >= 1 }
        XCTAssertTrue(beat, "\(later.map(\.event))")
        XCTAssertNotEqual(later.last?.json?["sessionId"] as? String, firstSession)
        XCTAssertEqual(try daemon.snapshot().state, "playing", "allowed heartbeats leave it playing")
    }

    /// A server that answers 503 is tolerated for the grace (2 s), then playback is blocked
    /// with code `unreachable` and a message naming the error.
    func testAnUnreachableServerIsToleratedForTheGraceThenBlocks() throws {
        server.answer(503)
        let daemon = try startDaemon(grace: 2)
        let clip = try MediaFixtures.mp4(seconds: 12)
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }

        let (status, s) = try daemon.post("/v1/player/open?wait=playing", ["uri": clip.path])
        XCTAssertEqual(status, 200, "\(s)")
        let opened = Date()
        usleep(1_200_000)
        XCTAssertEqual(try daemon.snapshot().state, "playing", "within the grace playback goes on")
        let blocked = try daemon.waitFor("blocked after the grace", timeout: 5) { $0.state == "error" }
        let waited = Date().timeIntervalSince(opened)
        XCTAssertEqual(blocked.errorCode, "session_blocked", "\(blocked)")
        XCTAssertGreaterThanOrEqual(waited, 1.9, "not before the grace")
        XCTAssertLessThan(waited, 4, "soon after the grace")
        let events = try collectEvents(ws, timeout: 5) { $0.contains { $0["type"] as? String == "blocked" } }
        let event = try XCTUnwrap(events.first { $0["type"] as? String == "blocked" }?["data"] as? [String: Any], "\(events)")
        XCTAssertEqual(event["code"] as? String, "unreachable")
        XCTAssertTrue((event["message"] as? String ?? "").contains("503"), "the message names the last error: \(event)")
        let tries = server.posts.filter { $0.event == "start" || $0.event == "alive" }
        XCTAssertGreaterThanOrEqual(tries.count, 2, "heartbeats went on during the grace: \(server.posts.map(\.event))")
    }

    /// A server that takes 3 s over each answer holds neither `open?wait=playing` nor
    /// `GET /v1/player`: heartbeats run off the API thread. One heartbeat is in flight at a
    /// time, so the first `alive` waits for the start's answer.
    func testASlowServerNeverDelaysPlaybackOrTheAPI() throws {
        server.respond { _ in PostReply.json(["allow": true], delay: 3) }
        let daemon = try startDaemon(grace: 30)
        let clip = try MediaFixtures.mp4(seconds: 12)

        // Warm up the decoders once, without the session server in the picture's timing.
        var begun = Date()
        var (status, s) = try daemon.post("/v1/player/open?wait=playing", ["uri": clip.path])
        XCTAssertEqual(status, 200, "\(s)")
        XCTAssertTrue(server.waitFor(timeout: 5) { $0.contains { $0.event == "start" } }.met)
        // The start hangs for 3 s now: the API answers meanwhile.
        for _ in 0..<5 {
            begun = Date()
            XCTAssertEqual(try daemon.snapshot().state, "playing")
            XCTAssertLessThan(Date().timeIntervalSince(begun), 0.5, "GET /v1/player while a heartbeat hangs")
            usleep(200_000)
        }
        // A new open while the stop and the previous start hang.
        begun = Date()
        (status, s) = try daemon.post("/v1/player/open?wait=playing", ["uri": clip.path])
        let openToPlaying = Date().timeIntervalSince(begun)
        XCTAssertEqual(status, 200, "\(s)")
        XCTAssertEqual(s.state, "playing")
        XCTAssertLessThan(openToPlaying, 2, "open-to-playing while each heartbeat hangs 3 s")

        let (posts, twoStarts) = server.waitFor(timeout: 10) { posts in
            let second = posts.filter { $0.event == "start" }.dropFirst().first
            return second.map { start in posts.contains { $0.event == "alive" && $0.time > start.time } } ?? false
        }
        XCTAssertTrue(twoStarts, "\(posts.map(\.event))")
        if let start = posts.filter({ $0.event == "start" }).last,
           let alive = posts.first(where: { $0.event == "alive" && $0.time > start.time }) {
            XCTAssertGreaterThanOrEqual(alive.time.timeIntervalSince(start.time), 2.8, "the alive waits for the start's answer")
        }
        XCTAssertEqual(try daemon.snapshot().state, "playing")
    }
}
