import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// The daemon as a service: health, metrics, OpenAPI, the demo source, access control, the CLI.
final class ServiceTests: XCTestCase {
    func testHealthMetricsOpenAPI() throws {
        let daemon = try Daemon()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let health = try XCTUnwrap(try daemon.client.get("/healthz").json() as? [String: Any])
        XCTAssertEqual(health["status"] as? String, "ok")
        XCTAssertTrue((health["gstreamer"] as? String ?? "").hasPrefix("1."))

        _ = try daemon.client.get("/v1/player")
        _ = try daemon.client.get("/v1/nowhere")
        let metrics = try daemon.client.get("/metrics")
        XCTAssertEqual(metrics.status, 200)
        XCTAssertTrue(metrics.header("content-type")?.hasPrefix("text/plain") ?? false)
        XCTAssertTrue(metrics.text.contains("marquee_http_requests_total{route=\"/v1/player\",status=\"200\"} 1"), metrics.text)
        XCTAssertTrue(metrics.text.contains("marquee_http_requests_total{route=\"unmatched\",status=\"404\"} 1"), metrics.text)
        XCTAssertTrue(metrics.text.contains("marquee_player_state{state=\"idle\"} 1"))
        XCTAssertTrue(metrics.text.contains("marquee_pipeline_errors_total 0"))

        let doc = try XCTUnwrap(try daemon.client.get("/openapi.json").json() as? [String: Any])
        XCTAssertTrue((doc["openapi"] as? String ?? "").hasPrefix("3.1"))
        XCTAssertNotNil((doc["paths"] as? [String: Any])?["/v1/player/open"])
    }

    func testDemoSourcePlaysLive() throws {
        let daemon = try Daemon(extraArguments: ["--demo"])
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let s = try daemon.waitFor("the demo playing") { $0.state == "playing" }
        let source = try XCTUnwrap(s["source"] as? [String: Any])
        XCTAssertEqual(source["uri"] as? String, "demo://")
        XCTAssertEqual(source["kind"] as? String, "live")
        XCTAssertTrue(s["seekable"] is NSNull, "a live source without timeshift is not seekable")
        let tracks = try XCTUnwrap(s["tracks"] as? [String: [[String: Any]]])
        XCTAssertEqual(tracks["video"]?.count, 1)
        XCTAssertEqual(tracks["audio"]?.count, 1)
        let r = try daemon.client.post("/v1/player/seek", json: ["position": 1])
        XCTAssertEqual(r.status, 409)
        XCTAssertEqual((try r.json() as? [String: Any])?.errorCode, "not_seekable")
        XCTAssertEqual(try daemon.client.post("/v1/player/live").status, 200)
    }

    func testTokenIsRequiredWhenSet() throws {
        let daemon = try Daemon(token: "s3cret")
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let anonymous = HTTPClient(baseURL: daemon.url)
        let r = try anonymous.get("/v1/player")
        XCTAssertEqual(r.status, 401)
        XCTAssertEqual((try r.json() as? [String: Any])?.errorCode, "unauthorized")
        XCTAssertEqual(try HTTPClient(baseURL: daemon.url, token: "wrong").get("/v1/player").status, 401)
        XCTAssertEqual(try anonymous.get("/healthz").status, 200)
        XCTAssertEqual(try daemon.client.get("/v1/player").status, 200)
        XCTAssertThrowsError(try { let ws = WebSocketClient(baseURL: daemon.url); try ws.connect() }())
        let ws = WebSocketClient(baseURL: daemon.url, token: "s3cret")
        try ws.connect()
        defer { ws.close() }
        let events = try collectEvents(ws, timeout: 5) { !$0.isEmpty }
        XCTAssertEqual(events.first?["type"] as? String, "snapshot")
    }

    func testRefusesNonLoopbackWithoutToken() throws {
        let result = try runProcess(Daemon.binary, ["serve", "--listen", "0.0.0.0:0", "--video-sink", "fakevideosink",
                                                    "--audio-sink", "fakeaudiosink"], timeout: 20)
        XCTAssertNotEqual(result.status, 0)
        XCTAssertFalse(result.stdout.contains("listening on"))
        XCTAssertTrue(result.stderr.contains("token"), result.stderr)
    }

    func testCommandLineClient() throws {
        let daemon = try Daemon()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let clip = try MediaFixtures.mp4()
        func marquee(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            try runProcess(Daemon.binary, args + ["--url", daemon.url], timeout: 30)
        }
        var r = try marquee(["open", clip.path, "--wait", "playing"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("playing"), r.stdout)
        r = try marquee(["pause", "--wait", "paused"])
        XCTAssertTrue(r.stdout.hasPrefix("paused"), r.stdout)
        r = try marquee(["seek", "4", "--exact", "--wait", "paused"])
        XCTAssertEqual(r.status, 0, r.stderr)
        r = try marquee(["status", "--json"])
        let s = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(s.state, "paused")
        XCTAssertEqual(try XCTUnwrap(s.position), 4.0, accuracy: 0.05)
        r = try marquee(["seek", "-1", "--exact", "--wait", "paused", "--json"])
        XCTAssertEqual(try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?.position), 3.0, accuracy: 0.05)
        r = try marquee(["set", "rate=1.5", "muted=true"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("(muted)"), r.stdout)
        r = try marquee(["open", "/nonexistent.mp4"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("not_found"), r.stderr)
        r = try runProcess(Daemon.binary, ["status", "--url", "http://127.0.0.1:1"], timeout: 10)
        XCTAssertEqual(r.status, 69, "EX_UNAVAILABLE")
        XCTAssertTrue(r.stderr.contains("cannot reach"), r.stderr)
    }
}

/// `marquee events` follows the stream until it is stopped.
final class EventsCommandTests: XCTestCase {
    func testEventsCommandPrintsTheStream() throws {
        let daemon = try Daemon()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let follower = Process()
        follower.executableURL = URL(fileURLWithPath: Daemon.binary)
        follower.arguments = ["events", "--url", daemon.url]
        let output = Pipe()
        follower.standardOutput = output
        try follower.run()
        defer { follower.terminate(); follower.waitUntilExit() }
        let first = try Daemon.readLine(from: output.fileHandleForReading, timeout: 10)
        XCTAssertEqual(first, "1\tsnapshot\tidle")
        _ = try daemon.post("/v1/player/open", ["uri": try MediaFixtures.mp4().path])
        var lines: [String] = []
        while !lines.contains(where: { $0.hasSuffix("opening -> playing") }), lines.count < 50 {
            let line = try Daemon.readLine(from: output.fileHandleForReading, timeout: 10)
            if line.isEmpty { break }
            lines.append(line)
        }
        XCTAssertTrue(lines.contains { $0.contains("\tsource\t") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasSuffix("idle -> opening") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasSuffix("opening -> playing") }, "\(lines)")
    }
}
