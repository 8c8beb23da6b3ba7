import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// An HLS origin that fails for a while: the player says it is reconnecting, retries with
/// backoff, says when it recovered, and plays on from where it was, without a new open.
/// The origin is `RecordingHTTPServer` with faults switched on and off by the test.
final class OriginFaultTests: XCTestCase {
    var server: RecordingHTTPServer!
    var ladder: HLSLadder!

    override func setUpWithError() throws {
        ladder = try HLSFixtures.ladder(seconds: 12)
        server = try RecordingHTTPServer(root: ladder.directory)
    }

    override func tearDown() { server.stop() }

    private func events(_ list: [[String: Any]], _ type: String) -> [[String: Any]] {
        list.filter { $0["type"] as? String == type }.compactMap { $0["data"] as? [String: Any] }
    }

    func testServerErrorsForAWhileAreRidden() throws {
        let daemon = try Daemon()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        // Segment 5 of every stream answers 503 (past the start-up buffer, so playback is
        // under way when it fails).
        let failing = ladder.segmentPaths(5)
        for path in failing { server.respond(to: path, with: 503) }
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        let (status, _) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["uri": server.baseURL + "/" + ladder.masterPath])
        XCTAssertEqual(status, 200)
        var seen = try collectEvents(ws, timeout: 30) { !self.events($0, "reconnecting").isEmpty || !self.events($0, "error").isEmpty }
        XCTAssertTrue(events(seen, "error").isEmpty, "failed instead of reconnecting: \(events(seen, "error"))")
        let first = try XCTUnwrap(events(seen, "reconnecting").first)
        XCTAssertEqual(first["attempt"] as? Int, 1)
        XCTAssertTrue((first["reason"] as? String ?? "").contains("503"), "\(first)")
        XCTAssertEqual(try daemon.snapshot().state, "buffering")

        // The origin comes back: playback goes on past the failed segment by itself.
        usleep(2_500_000)
        server.clearFaults()
        seen = try collectEvents(ws, timeout: 40) { !self.events($0, "recovered").isEmpty || !self.events($0, "error").isEmpty }
        XCTAssertTrue(events(seen, "error").isEmpty, "\(events(seen, "error"))")
        let recovered = try XCTUnwrap(events(seen, "recovered").first)
        XCTAssertGreaterThanOrEqual(recovered["attempts"] as? Int ?? 0, 1)
        XCTAssertGreaterThan(recovered["downtime"] as? Double ?? 0, 1.0)
        let resumed = try daemon.waitFor("playing past the failed segment", timeout: 20) { $0.state == "playing" && ($0.position ?? 0) > 6.5 }
        XCTAssertNil(resumed.errorCode)
        XCTAssertTrue(try daemon.client.get("/metrics").text.contains("marquee_opens_total 1\n"), "no new open was needed")
    }

    /// An origin that stops answering at all (requests hang): the probe times out, the player
    /// reconnects, and plays on once the origin answers again.
    func testAnOriginThatHangsIsRidden() throws {
        let daemon = try Daemon()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        for path in ladder.segmentPaths(5) { server.stall(path: path) }
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        let (status, _) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["uri": server.baseURL + "/" + ladder.masterPath])
        XCTAssertEqual(status, 200)
        var seen = try collectEvents(ws, timeout: 40) { !self.events($0, "reconnecting").isEmpty || !self.events($0, "error").isEmpty }
        XCTAssertTrue(events(seen, "error").isEmpty, "\(events(seen, "error"))")
        let first = try XCTUnwrap(events(seen, "reconnecting").first, "\(seen.compactMap { $0["type"] as? String })")
        XCTAssertTrue((first["reason"] as? String ?? "").contains("segment00005"), "\(first)")
        // Requests already hanging stay hung; new ones are answered.
        server.clearFaults()
        seen = try collectEvents(ws, timeout: 40) { !self.events($0, "recovered").isEmpty || !self.events($0, "error").isEmpty }
        XCTAssertTrue(events(seen, "error").isEmpty, "\(events(seen, "error"))")
        XCTAssertNotNil(events(seen, "recovered").first)
        _ = try daemon.waitFor("playing past the hung segment", timeout: 20) { $0.state == "playing" && ($0.position ?? 0) > 6.5 }
    }

    /// A fault that does not go away ends in the error after `--reconnect-timeout`, and the
    /// next open works.
    func testAPermanentFaultGivesUpAfterTheReconnectTimeout() throws {
        let daemon = try Daemon(extraArguments: ["--reconnect-timeout", "3"])
        defer { XCTAssertEqual(daemon.stop(), 0) }
        for path in ladder.segmentPaths(5) { server.respond(to: path, with: 404) }
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        let uri = server.baseURL + "/" + ladder.masterPath
        // Without ?wait: with a fast origin the demuxer may reach the failing segment before
        // the first frame, and the reconnecting then starts before `playing`.
        let (status, _) = try daemon.post("/v1/player/open", ["uri": uri])
        XCTAssertEqual(status, 200)
        let seen = try collectEvents(ws, timeout: 40) { !self.events($0, "error").isEmpty }
        let attempts = events(seen, "reconnecting")
        XCTAssertGreaterThanOrEqual(attempts.count, 2, "\(seen.compactMap { $0["type"] as? String })")
        XCTAssertEqual(attempts.compactMap { $0["attempt"] as? Int }, Array(1..<(attempts.count + 1)), "attempts count up")
        XCTAssertTrue(attempts.contains { ($0["reason"] as? String ?? "").contains("404 for") }, "the probe names the status: \(attempts)")
        let error = try XCTUnwrap(events(seen, "error").first)
        XCTAssertEqual(error["code"] as? String, "network_error")
        XCTAssertTrue((error["message"] as? String ?? "").contains("gave up"), "\(error)")
        XCTAssertTrue(events(seen, "recovered").isEmpty)
        XCTAssertEqual(try daemon.snapshot().state, "error")

        server.clearFaults()
        let (again, body) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["uri": uri])
        XCTAssertEqual(again, 200, "\(body)")
    }
}

/// A live source played straight (no timeshift) that goes away: no data for 4 s is
/// `reconnecting`, and when the sender is back the stream plays on with `recovered`.
final class LiveSourceFaultTests: XCTestCase {
    func testAUDPSenderThatStopsAndComesBack() throws {
        if let reason = LiveUDPSender.unavailableReason { throw XCTSkip(reason) }
        let sender = try LiveUDPSender()
        defer { sender.stop() }
        let daemon = try Daemon()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let (status, body) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["uri": sender.uri])
        XCTAssertEqual(status, 200, "\(body)")
        usleep(1_500_000)  // some data has flowed
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }

        sender.stop()
        var seen = try collectEvents(ws, timeout: 15) { $0.contains { $0["type"] as? String == "reconnecting" } }
        let reconnecting = try XCTUnwrap(seen.first { $0["type"] as? String == "reconnecting" }?["data"] as? [String: Any],
                                         "\(seen.compactMap { $0["type"] as? String })")
        XCTAssertTrue((reconnecting["reason"] as? String ?? "").contains("no data"), "\(reconnecting)")
        XCTAssertNotEqual(try daemon.snapshot().state, "error")

        let again = try LiveUDPSender(port: sender.port)
        defer { again.stop() }
        seen = try collectEvents(ws, timeout: 40) { $0.contains { ["recovered", "error"].contains($0["type"] as? String) } }
        XCTAssertNotNil(seen.first { $0["type"] as? String == "recovered" }, "\(seen.compactMap { $0["type"] as? String })")
        let back = try daemon.waitFor("playing again", timeout: 10) { $0.state == "playing" }
        XCTAssertNil(back.errorCode)
    }
}

/// Opens in quick succession of recorded (timeshift) sources, one of them an origin that
/// refuses connections: once a SIGSEGV in GStreamer 1.22.0's souphttpsrc (stopped while the
/// ring server answered its request) and a hang in splitmuxsink (a recorder stopped within a
/// second of starting); both found by schemathesis.
final class RapidRecordedOpenTests: XCTestCase {
    func testRapidOpensOfRecordedSourcesLeaveTheDaemonStanding() throws {
        let daemon = try Daemon()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        for i in 0..<60 {
            for body: [String: Any] in [["uri": "demo://", "timeshift": ["window": 600], "start": 30],
                                        ["uri": "https://127.0.0.1:9/unreachable", "timeshift": ["window": 600]]] {
                let r = try daemon.client.request("POST", "/v1/player/open?wait=idle&timeout=0.1",
                                                  body: try JSONSerialization.data(withJSONObject: body), timeout: 8)
                XCTAssertTrue([200, 408].contains(r.status), "round \(i): \(r.status) \(r.text)")
            }
        }
        XCTAssertEqual(try daemon.client.get("/healthz").status, 200)
        let (status, body) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["uri": try MediaFixtures.mp4(seconds: 2).path])
        XCTAssertEqual(status, 200, "\(body)")
    }
}
