import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// Analytics at run time (API-2 §2): turned off and on, the `playing` interval changed, a
/// flush that answers once the collector has everything or with what stopped it, and the
/// collector's headers from `--analytics-header` (never in the log).
final class AnalyticsControlTests: XCTestCase {
    private var collector: AnalyticsCollector!
    private var daemon: Daemon!

    override func setUpWithError() throws { collector = try AnalyticsCollector() }

    override func tearDown() {
        if let daemon { XCTAssertEqual(daemon.stop(), 0, "log:\n\(daemon.log.suffix(3000))") }
        collector.stop()
    }

    private func patch(_ body: [String: Any]) throws -> (Int, [String: Any]) {
        let r = try daemon.client.request("PATCH", "/v1/analytics", body: try JSONSerialization.data(withJSONObject: body),
                                          headers: ["Content-Type": "application/json"])
        return (r.status, (try? r.json() as? [String: Any]) ?? [:])
    }

    private func events(_ name: String) -> Int { collector.posts.filter { $0.event == name }.count }

    func testHeadersIntervalAndOnOffAtRunTime() throws {
        daemon = try Daemon(extraArguments: ["--analytics-url", collector.url, "--analytics-interval", "600",
                                             "--analytics-header", "Authorization: Bearer secret-analytics-123",
                                             "--analytics-header", "X-Fleet: shop-9"])
        let clip = try MediaFixtures.mp4(seconds: 30)
        var (status, body) = try daemon.post("/v1/player/open?wait=playing", ["uri": clip.path, "contentId": "c-1"])
        XCTAssertEqual(status, 200, "\(body)")
        let (begun, met) = collector.waitFor(timeout: 10) { $0.contains { $0.event == "begin" } }
        XCTAssertTrue(met, "begin: \(begun.map(\.event))")
        let begin = try XCTUnwrap(begun.first { $0.event == "begin" })
        XCTAssertEqual(begin.headers["authorization"], "Bearer secret-analytics-123")
        XCTAssertEqual(begin.headers["x-fleet"], "shop-9")

        // Every 600 s would send no `playing` in this test; every second sends some at once.
        (status, body) = try patch(["interval": 1])
        XCTAssertEqual(status, 200, "\(body)")
        XCTAssertEqual(body["interval"] as? Double, 1)
        XCTAssertEqual(body["enabled"] as? Bool, true)
        XCTAssertTrue(collector.waitFor(timeout: 5) { $0.filter { $0.event == "playing" }.count >= 2 }.met,
                      "playing events after the interval changed: \(collector.posts.map(\.event))")

        // Off: nothing new is recorded, not even the end of this viewing.
        (status, body) = try patch(["enabled": false])
        XCTAssertEqual(status, 200, "\(body)")
        XCTAssertEqual(body["enabled"] as? Bool, false)
        XCTAssertTrue(collector.waitFor(timeout: 5) { _ in (try? self.daemon.analytics().int("pending")) == 0 }.met)
        let before = collector.posts.count
        usleep(2_500_000)
        (status, body) = try daemon.post("/v1/player/stop")
        XCTAssertEqual(status, 200)
        usleep(500_000)
        XCTAssertEqual(collector.posts.count, before, "off records nothing: \(collector.posts.suffix(3).map(\.event))")
        XCTAssertEqual(try daemon.analytics().int("pending"), 0)

        // On again: the next viewing is reported.
        (status, body) = try patch(["enabled": true])
        XCTAssertEqual(body["enabled"] as? Bool, true, "\(body)")
        let begins = events("begin")
        (status, body) = try daemon.post("/v1/player/open?wait=playing", ["uri": clip.path, "contentId": "c-2"])
        XCTAssertEqual(status, 200, "\(body)")
        XCTAssertTrue(collector.waitFor(timeout: 10) { $0.filter { $0.event == "begin" }.count == begins + 1 }.met)

        // Bad values are refused with the field named.
        (status, body) = try patch(["interval": 0])
        XCTAssertEqual(status, 400, "\(body)")
        (status, body) = try patch(["colour": "red"])
        XCTAssertEqual(status, 400, "\(body)")
        XCTAssertFalse(daemon.log.contains("secret-analytics-123"), "the collector's token must never be logged")
    }

    func testFlushSendsAtOnceOrSaysWhatStoppedIt() throws {
        collector.answer(503)
        daemon = try Daemon(extraArguments: ["--analytics-url", collector.url, "--analytics-interval", "1"])
        let clip = try MediaFixtures.mp4(seconds: 30)
        let (status, body) = try daemon.post("/v1/player/open?wait=playing", ["uri": clip.path, "contentId": "c-1"])
        XCTAssertEqual(status, 200, "\(body)")
        // Attempts at about 0, 1, 3 and 7 s: after 4 s the next retry is seconds away.
        usleep(4_000_000)
        let waiting = try daemon.analytics()
        XCTAssertGreaterThanOrEqual(waiting.int("pending") ?? 0, 2, "\(waiting)")

        // The collector still down: the flush says so, and nothing is lost.
        var r = try daemon.client.post("/v1/analytics/flush")
        XCTAssertEqual(r.status, 422, r.text)
        XCTAssertEqual(((try r.json() as? [String: Any])?["error"] as? [String: Any])?["code"] as? String, "network_error")
        XCTAssertTrue(r.text.contains("503"), r.text)
        XCTAssertGreaterThanOrEqual(try daemon.analytics().int("pending") ?? 0, waiting.int("pending") ?? 0)

        // Up again: the flush does not wait out the backoff, and answers once all is sent.
        try daemon.post("/v1/player/pause?wait=paused")
        collector.answer(200)
        let started = Date()
        r = try daemon.client.post("/v1/analytics/flush")
        let took = Date().timeIntervalSince(started)
        XCTAssertEqual(r.status, 200, r.text)
        let counters = try XCTUnwrap(try r.json() as? [String: Any])
        XCTAssertEqual(counters.int("pending"), 0, "\(counters)")
        XCTAssertLessThan(took, 2.0, "the flush sent at once rather than after the backoff")
        let sent = collector.accepted.compactMap(\.seq)
        XCTAssertEqual(sent, Array(1...(sent.last ?? 0)), "every event, in order")
        XCTAssertEqual(counters.int("sent"), sent.count)

        // Nothing pending: the flush answers at once.
        r = try daemon.client.post("/v1/analytics/flush")
        XCTAssertEqual(r.status, 200, r.text)
    }

    func testWithoutACollectorRunTimeChangesAreRefused() throws {
        daemon = try Daemon()
        let (status, body) = try patch(["enabled": true])
        XCTAssertEqual(status, 409, "\(body)")
        XCTAssertEqual((body["error"] as? [String: Any])?["code"] as? String, "invalid_state")
        let r = try daemon.client.post("/v1/analytics/flush")
        XCTAssertEqual(r.status, 409, r.text)
        XCTAssertEqual(try daemon.analytics()["enabled"] as? Bool, false)
    }
}
