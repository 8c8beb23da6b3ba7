import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// A key service that fails mid-play, through the real daemon, a real origin and a real key
/// service: an AES-128 HLS whose key changes every two segments (`HLSFixtures.rotatingKeys`),
/// its key URIs rewritten to `skd://content-1/key-N`, so the player needs a new key while
/// it plays. A key service that is down for longer than the proxy's own retries is ridden
/// out like an origin fault (`reconnecting`, `recovered`, playback goes on); one that refuses
/// a later key ends playback with `key_error`.
final class KeyServiceRecoveryTests: XCTestCase {
    private var origin: RecordingHTTPServer!
    private var keyService: AnalyticsCollector!
    private var hls: EncryptedHLS!
    private var daemon: Daemon?

    override func setUpWithError() throws {
        hls = try HLSFixtures.rotatingKeys(seconds: 12, segmentsPerKey: 2)
        origin = try RecordingHTTPServer(root: hls.directory)
        let text = try String(contentsOf: hls.directory.appendingPathComponent(hls.mediaPath), encoding: .utf8)
        let skd = text.replacingOccurrences(of: "URI=\"key-", with: "URI=\"skd://content-1/key-")
            .replacingOccurrences(of: ".bin\"", with: "\"")
        XCTAssertEqual(skd.components(separatedBy: "skd://content-1/key-").count - 1, (hls.segmentPaths.count + 1) / 2,
                       "one EXT-X-KEY every two segments: \(skd)")
        origin.serve("/v0/skd.m3u8") { skd }
        // About twice real time (segments are ~120 KB a second): key 2 is asked for once
        // playback is under way, not while the first segments download.
        origin.throttle(bytesPerSecond: 240_000)
        keyService = try AnalyticsCollector()
    }

    override func tearDown() {
        daemon?.assertStopsCleanly()
        daemon = nil
        keyService.stop()
        origin.stop()
    }

    private var skdURL: String { origin.baseURL + "/v0/skd.m3u8" }

    /// N of "skd://content-1/key-N" in a key request.
    private static func keyNumber(_ post: CollectedPost) -> Int? {
        (post.json?["keyUri"] as? String).flatMap { $0.split(separator: "-").last.flatMap { Int($0) } }
    }

    private func events(_ list: [[String: Any]], _ type: String) -> [[String: Any]] {
        list.filter { $0["type"] as? String == type }.compactMap { $0["data"] as? [String: Any] }
    }

    /// Keys 0 and 1 are served; from the first request for a later key the service answers
    /// 503 for `outage` seconds (longer than the proxy's 0.5 + 1 + 2 s of retries), then
    /// every key again.
    func testAKeyServiceDownMidPlayIsRiddenLikeAnOriginFault() throws {
        let outage = Outage(seconds: 6)
        keyService.respond { post in
            guard let n = Self.keyNumber(post) else { return PostReply(status: 400) }
            if n >= 2, outage.isDown() { return PostReply(status: 503, contentType: "text/plain", body: Data("down".utf8)) }
            return PostReply(status: 200, contentType: "application/octet-stream", body: Data(HLSFixtures.rotatingKey(n)))
        }
        let daemon = try Daemon()
        self.daemon = daemon
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        let (status, s) = try daemon.post("/v1/player/open?wait=playing&timeout=20",
                                         ["uri": skdURL, "contentId": "content-1", "keyService": ["uri": keyService.url]])
        XCTAssertEqual(status, 200, "\(s); log:\n\(daemon.log.suffix(3000))")

        let seen = try collectEvents(ws, timeout: 30) { !self.events($0, "recovered").isEmpty || !self.events($0, "error").isEmpty }
        let types = seen.compactMap { $0["type"] as? String }
        XCTAssertTrue(events(seen, "error").isEmpty, "failed instead of riding the outage out: \(events(seen, "error")); log:\n\(daemon.log.suffix(3000))")
        let reconnecting = try XCTUnwrap(events(seen, "reconnecting").first, "no reconnecting: \(types)")
        XCTAssertTrue((reconnecting["reason"] as? String ?? "").contains("key service"), "the reason names the key service: \(reconnecting)")
        let recovered = try XCTUnwrap(events(seen, "recovered").first, "no recovered: \(types)")
        XCTAssertGreaterThan(recovered["downtime"] as? Double ?? 0, 0)

        // Playback goes on through segments that need keys fetched after the outage.
        let resumed = try daemon.waitFor("playing past key 2's segments", timeout: 15) { $0.state == "playing" && ($0.position ?? 0) > 6.5 }
        XCTAssertNil(resumed.errorCode)
        let posts = keyService.posts
        XCTAssertTrue(posts.contains { $0.status == 503 }, "the outage was hit: \(posts.map(\.status))")
        let served = Set(posts.filter(\.accepted).compactMap(Self.keyNumber))
        XCTAssertTrue(served.isSuperset(of: [0, 1, 2, 3]), "keys served: \(served.sorted())")
        XCTAssertGreaterThanOrEqual(outage.elapsed, 6, "the service was down as long as planned")
    }

    /// A refusal (403) of a key after earlier keys were served ends playback with `key_error`,
    /// naming that key; the refusal is not retried.
    func testAKeyRefusedMidPlayIsAKeyError() throws {
        keyService.respond { post in
            guard let n = Self.keyNumber(post) else { return PostReply(status: 400) }
            if n >= 2 { return PostReply(status: 403, contentType: "text/plain", body: Data("not entitled".utf8)) }
            return PostReply(status: 200, contentType: "application/octet-stream", body: Data(HLSFixtures.rotatingKey(n)))
        }
        let daemon = try Daemon()
        self.daemon = daemon
        let (status, opened) = try daemon.post("/v1/player/open?wait=playing&timeout=20",
                                              ["uri": skdURL, "contentId": "content-1", "keyService": ["uri": keyService.url]])
        XCTAssertEqual(status, 200, "key 0 plays: \(opened); log:\n\(daemon.log.suffix(3000))")
        let s = try daemon.waitFor("the error", timeout: 15) { $0.state == "error" }
        XCTAssertEqual(s.errorCode, "key_error", "\(s)")
        let message = (s["error"] as? [String: Any])?["message"] as? String ?? ""
        XCTAssertTrue(message.contains("skd://content-1/key-0002") && message.contains("403"), "names key 2 and the status: \(message)")
        let asked = keyService.posts.compactMap(Self.keyNumber)
        XCTAssertEqual(asked.filter { $0 == 2 }.count, 1, "a refusal is not retried: \(asked)")
        XCTAssertTrue(asked.contains(0), "key 0 was served first: \(asked)")
    }
}

/// A key service outage that begins at its first use and lasts `seconds`. Any thread.
private final class Outage: @unchecked Sendable {
    private let lock = NSLock()
    private let seconds: Double
    private var began: Date?
    init(seconds: Double) { self.seconds = seconds }

    func isDown() -> Bool {
        lock.withLock {
            let start = began ?? Date()
            began = start
            return Date().timeIntervalSince(start) < seconds
        }
    }

    /// Seconds since the outage began (0 before).
    var elapsed: Double { lock.withLock { began.map { Date().timeIntervalSince($0) } ?? 0 } }
}
