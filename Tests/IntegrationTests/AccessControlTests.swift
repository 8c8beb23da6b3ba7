import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// Tokens, read-only viewer tokens, CORS origins, media roots and the scheme allowlist,
/// against a real daemon.
final class AccessControlTests: XCTestCase {
    static let operatorToken = "operator-token-123"
    static let viewerToken = "viewer-token-456"

    func testViewerTokenReadsAndFollowsButNeverCommands() throws {
        let daemon = try Daemon(extraArguments: ["--viewer-token", Self.viewerToken], token: Self.operatorToken)
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let clip = try MediaFixtures.mp4(seconds: 4)
        let viewer = HTTPClient(baseURL: daemon.url, token: Self.viewerToken)

        XCTAssertEqual(try viewer.get("/v1/player").status, 200)
        XCTAssertEqual(try viewer.get("/v1/queue").status, 200)
        XCTAssertEqual(try viewer.get("/metrics").status, 200)
        for (method, path) in [("POST", "/v1/player/open"), ("POST", "/v1/player/pause"), ("PATCH", "/v1/player"),
                               ("PUT", "/v1/queue"), ("DELETE", "/v1/analytics"), ("POST", "/v1/pip")] {
            let r = try viewer.request(method, path, body: Data(#"{"uri": "\#(clip.path)"}"#.utf8))
            XCTAssertEqual(r.status, 403, "\(method) \(path): \(r.text)")
            XCTAssertEqual((try? r.json() as? [String: Any])?.errorCode, "forbidden", "\(method) \(path)")
        }
        XCTAssertEqual(try daemon.snapshot().state, "idle", "the viewer's open must not have happened")

        // The viewer follows events over WebSocket; its commands there are refused too.
        let ws = WebSocketClient(baseURL: daemon.url, token: Self.viewerToken)
        try ws.connect()
        defer { ws.close() }
        XCTAssertEqual(try collectEvents(ws, timeout: 5) { !$0.isEmpty }.first?["type"] as? String, "snapshot")
        try ws.send(json: ["id": 7, "command": "open", "args": ["uri": clip.path]])
        let reply = try collectEvents(ws, timeout: 5) { $0.contains { $0["ok"] != nil } }.first { $0["ok"] != nil }
        XCTAssertEqual(reply?["ok"] as? Bool, false)
        XCTAssertEqual(((reply?["error"] as? [String: Any])?["code"]) as? String, "forbidden", "\(reply ?? [:])")
        XCTAssertEqual(try daemon.snapshot().state, "idle")

        // The operator's command shows up in the viewer's stream.
        _ = try daemon.post("/v1/player/open?wait=playing", ["uri": clip.path])
        let states = try collectEvents(ws, timeout: 10) { events in
            events.contains { $0["type"] as? String == "state" && ($0["data"] as? [String: Any])?["state"] as? String == "playing" }
        }
        XCTAssertFalse(states.isEmpty)
    }

    func testViewerTokenNeedsAnOperatorToken() throws {
        let result = try runProcess(Daemon.binary, ["serve", "--listen", "127.0.0.1:0", "--viewer-token", "v"], timeout: 20)
        XCTAssertEqual(result.status, 64, result.stderr)  // EX_USAGE
        XCTAssertTrue(result.stderr.contains("--viewer-token needs --token"), result.stderr)
    }

    func testCrossOriginPagesOnlyWhenNamed() throws {
        let allowed = "https://panel.example:8443"
        let daemon = try Daemon(extraArguments: ["--cors-origin", allowed], token: Self.operatorToken)
        defer { XCTAssertEqual(daemon.stop(), 0) }
        // The browser's preflight carries no token and gets the CORS answer.
        let preflight = try HTTPClient(baseURL: daemon.url).request("OPTIONS", "/v1/player/pause", headers: [
            "Origin": allowed, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type"])
        XCTAssertEqual(preflight.status, 204)
        XCTAssertEqual(preflight.header("Access-Control-Allow-Origin"), allowed)
        XCTAssertTrue(preflight.header("Access-Control-Allow-Headers")?.contains("Authorization") == true)
        XCTAssertTrue(preflight.header("Access-Control-Allow-Methods")?.contains("POST") == true)

        let fromPanel = try daemon.client.request("GET", "/v1/player", headers: ["Origin": allowed])
        XCTAssertEqual(fromPanel.status, 200)
        XCTAssertEqual(fromPanel.header("Access-Control-Allow-Origin"), allowed)
        XCTAssertEqual(fromPanel.header("Vary"), "Origin")
        // Errors carry the header too, so the page can read them.
        let unauthorized = try HTTPClient(baseURL: daemon.url).request("GET", "/v1/player", headers: ["Origin": allowed])
        XCTAssertEqual(unauthorized.status, 401)
        XCTAssertEqual(unauthorized.header("Access-Control-Allow-Origin"), allowed)

        for origin in ["https://evil.example", "https://panel.example", "null"] {
            let r = try daemon.client.request("POST", "/v1/player/stop", headers: ["Origin": origin])
            XCTAssertEqual(r.status, 403, origin)
            XCTAssertNil(r.header("Access-Control-Allow-Origin"), origin)
            let evilPreflight = try daemon.client.request("OPTIONS", "/v1/player/stop", headers: ["Origin": origin, "Access-Control-Request-Method": "POST"])
            XCTAssertEqual(evilPreflight.status, 403, origin)
        }
        // Without --cors-origin nothing foreign passes (the default is same-origin only).
        let plain = try Daemon()
        defer { XCTAssertEqual(plain.stop(), 0) }
        XCTAssertEqual(try plain.client.request("GET", "/v1/player", headers: ["Origin": allowed]).status, 403)
    }

    func testBadCORSOriginIsAUsageError() throws {
        let result = try runProcess(Daemon.binary, ["serve", "--listen", "127.0.0.1:0", "--token", "t", "--cors-origin", "*"], timeout: 20)
        XCTAssertEqual(result.status, 64, result.stderr)  // EX_USAGE
        XCTAssertTrue(result.stderr.contains("--cors-origin"), result.stderr)
    }

    func testMediaRootsAndSchemeAllowlist() throws {
        let root = try Daemon.makeDataDirectory()
        let outside = try Daemon.makeDataDirectory()
        defer {
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: outside)
        }
        let clip = try MediaFixtures.mp4(seconds: 2)
        let inside = root.appendingPathComponent("clip.mp4")
        let secret = outside.appendingPathComponent("secret.mp4")
        try FileManager.default.copyItem(at: clip, to: inside)
        try FileManager.default.copyItem(at: clip, to: secret)
        // A symlink inside the root that leads out, and a path that climbs out with "..".
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("escape.mp4"), withDestinationURL: secret)
        let daemon = try Daemon(extraArguments: ["--media-root", root.path, "--allow-scheme", "file", "--allow-scheme", "demo"])
        defer { XCTAssertEqual(daemon.stop(), 0) }

        let refused: [(String, String)] = [
            (secret.path, "forbidden"),
            (root.appendingPathComponent("escape.mp4").path, "forbidden"),
            (root.path + "/../" + outside.lastPathComponent + "/secret.mp4", "forbidden"),
            ("file://" + secret.path, "forbidden"),
            (outside.appendingPathComponent("missing.mp4").path, "forbidden"),  // outside: no hint whether it exists
            ("http://127.0.0.1:9/a.m3u8", "forbidden"),
            ("udp://127.0.0.1:5004", "forbidden"),
            ("ftp://example.invalid/a.mp4", "unsupported_uri"),
        ]
        for (uri, code) in refused {
            let (status, body) = try daemon.post("/v1/player/open", ["uri": uri])
            XCTAssertEqual(body.errorCode, code, "\(uri): \(body)")
            XCTAssertEqual(status, code == "forbidden" ? 403 : 400, uri)
            let (pipStatus, pipBody) = try daemon.post("/v1/pip", ["uri": uri])
            XCTAssertEqual(pipBody.errorCode, code, "PiP \(uri): \(pipBody)")
            XCTAssertEqual(pipStatus, status, uri)
        }
        let queue = try daemon.client.put("/v1/queue", json: ["items": [["uri": inside.path], ["uri": secret.path]]])
        XCTAssertEqual(queue.status, 403, queue.text)
        let (status, playing) = try daemon.post("/v1/player/open?wait=playing", ["uri": inside.path])
        XCTAssertEqual(status, 200, "\(playing)")
        XCTAssertEqual(playing.state, "playing")
        let (demoStatus, _) = try daemon.post("/v1/player/open", ["uri": "demo://"])
        XCTAssertEqual(demoStatus, 200)
    }

    func testEventClientLimitRefusesClearly() throws {
        let daemon = try Daemon(extraArguments: ["--max-event-clients", "2"])
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let first = WebSocketClient(baseURL: daemon.url)
        try first.connect()
        let second = SSEClient(baseURL: daemon.url)
        try second.connect()
        defer { second.close() }
        let refused = try daemon.client.get("/v1/events", headers: ["Accept": "text/event-stream"])
        XCTAssertEqual(refused.status, 429)
        XCTAssertEqual((try? refused.json() as? [String: Any])?.errorCode, "too_many_requests")
        XCTAssertNotNil(refused.header("Retry-After"))
        XCTAssertThrowsError(try WebSocketClient(baseURL: daemon.url).connect(), "a third WebSocket is refused")
        XCTAssertTrue(try daemon.client.get("/metrics").text.contains("marquee_event_clients_refused_total 2"))
        // A place frees up when a client leaves.
        first.close()
        let deadline = Date().addingTimeInterval(5)
        var reconnected = false
        while !reconnected && Date() < deadline {
            let next = WebSocketClient(baseURL: daemon.url)
            if (try? next.connect()) != nil { reconnected = true; next.close() } else { usleep(100_000) }
        }
        XCTAssertTrue(reconnected)
    }
}
