import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// Analytics through the real daemon and a real collector: `begin`/`playing`/`end` events
/// POSTed in seq order from the durable outbox, retried while the collector is down, kept
/// across a SIGKILL, not retried after a 4xx, never in playback's way.
final class AnalyticsTests: XCTestCase {
    private var collector: AnalyticsCollector!
    private var daemon: Daemon?
    /// A data directory shared by the daemons of a restart; removed in tearDown.
    private var sharedDataDirectory: URL?

    override func setUpWithError() throws {
        collector = try AnalyticsCollector()
    }

    override func tearDown() {
        daemon?.assertStopsCleanly()
        daemon = nil
        collector.stop()
        if let sharedDataDirectory, ProcessInfo.processInfo.environment["MARQUEE_KEEP_TEST_DATA"] != "1" {
            try? FileManager.default.removeItem(at: sharedDataDirectory)
        }
    }

    private func startDaemon(interval: Int = 1, dataDirectory: URL? = nil) throws -> Daemon {
        let started = try Daemon(dataDirectory: dataDirectory,
                                 extraArguments: ["--analytics-url", collector.url, "--analytics-interval", "\(interval)"])
        daemon = started
        return started
    }

    /// The content fields every open here carries, with `uri` the clip.
    private func openBody(_ clip: URL) -> [String: Any] {
        ["uri": clip.path, "contentId": "film-42", "userId": "user-7", "originalUrl": "https://example.com/watch/42"]
    }

    // MARK: Happy path

    func testEventsArriveInOrderWithTheContentFields() throws {
        let daemon = try startDaemon(interval: 1)
        let clip = try MediaFixtures.mp4(seconds: 20)
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }

        let open = openBody(clip)
        var (status, s) = try daemon.post("/v1/player/open?wait=playing", open)
        XCTAssertEqual(status, 200, "\(s)")
        let source = try XCTUnwrap(s["source"] as? [String: Any], "\(s)")
        XCTAssertEqual(source["contentId"] as? String, "film-42")
        XCTAssertEqual(source["userId"] as? String, "user-7")
        XCTAssertEqual(source["originalUrl"] as? String, "https://example.com/watch/42")
        XCTAssertNotNil(source["watched"] as? Double, "the snapshot's source carries watched: \(source)")

        // About 2.5 s of playback with a 1 s interval: two interval events.
        _ = try daemon.waitFor("2.5 s played", timeout: 10) { ($0.position ?? 0) >= 2.5 }
        (status, s) = try daemon.post("/v1/player/pause?wait=paused")
        XCTAssertEqual(status, 200, "\(s)")
        (status, s) = try daemon.post("/v1/player/stop")
        XCTAssertEqual(status, 200, "\(s)")

        let (posts, ended) = collector.waitFor(timeout: 10) { $0.contains { $0.event == "end" && $0.accepted } }
        XCTAssertTrue(ended, "no `end` reached the collector; got \(posts.map(\.event)); log:\n\(daemon.log.suffix(3000))")
        XCTAssertTrue(posts.allSatisfy(\.accepted))
        XCTAssertTrue(posts.allSatisfy { $0.path == "/collect" }, "\(posts.map(\.path))")
        XCTAssertTrue(posts.allSatisfy { $0.headers["content-type"]?.hasPrefix("application/json") == true },
                      "\(posts.map { $0.headers["content-type"] ?? "-" })")
        let events = posts.compactMap(\.json)
        XCTAssertEqual(events.count, posts.count, "every body is a JSON object")

        // begin, playing (interval) ..., playing (the pause), end; nothing after end.
        let kinds = events.compactMap { $0["event"] as? String }
        XCTAssertEqual(kinds.first, "begin", "\(kinds)")
        XCTAssertEqual(kinds.last, "end", "\(kinds)")
        XCTAssertTrue(kinds.dropFirst().dropLast().allSatisfy { $0 == "playing" }, "\(kinds)")
        XCTAssertGreaterThanOrEqual(kinds.count, 4, "begin, at least one interval event, the pause's, end: \(kinds)")
        let seqs = events.compactMap { $0["seq"] as? Int }
        XCTAssertEqual(seqs.count, events.count, "every event has a seq")
        XCTAssertEqual(seqs, Array(1...max(1, seqs.count)), "a fresh data directory numbers from 1, in order, without gaps")

        let times = events.compactMap { ($0["time"] as? String).flatMap(Self.parseTime) }
        XCTAssertEqual(times.count, events.count, "time is ISO 8601 with milliseconds: \(events.map { $0["time"] ?? "-" })")
        XCTAssertEqual(times, times.sorted(), "times follow the seq")
        for event in events {
            XCTAssertEqual(event["contentId"] as? String, "film-42")
            XCTAssertEqual(event["userId"] as? String, "user-7")
            XCTAssertEqual(event["originalUrl"] as? String, "https://example.com/watch/42")
            let uri = event["uri"] as? String ?? ""
            XCTAssertTrue(uri.hasPrefix("file://") && uri.hasSuffix(clip.lastPathComponent), uri)
            XCTAssertEqual(event["duration"] as? Double ?? -1, 20, accuracy: 0.3, "\(event)")
            XCTAssertEqual(event["rate"] as? Double, 1)
        }
        // Positions and watched time grow (the pause's event and end share the paused point).
        let positions = events.map { $0["position"] as? Double ?? 0 }
        let watched = events.map { $0["watched"] as? Double ?? -1 }
        for i in events.indices.dropFirst() {
            XCTAssertGreaterThanOrEqual(positions[i], positions[i - 1] - 0.05, "position went back: \(positions)")
            XCTAssertGreaterThanOrEqual(watched[i], watched[i - 1], "watched went back: \(watched)")
        }
        XCTAssertGreaterThanOrEqual(positions.last ?? 0, 2.4, "\(positions)")
        XCTAssertLessThan(positions.first ?? 99, 1, "begin is at the start: \(positions)")
        XCTAssertLessThan(watched.first ?? 99, 1, "\(watched)")
        XCTAssertGreaterThanOrEqual(watched.last ?? 0, 2.0, "about 2.5 s were played: \(watched)")

        // The outbox agrees, once the last delivery is counted.
        let counters = try poll("pending 0 and sent \(posts.count)", timeout: 5) {
            let a = try daemon.analytics()
            return a.int("pending") == 0 && a.int("sent") == posts.count ? a : nil
        }
        XCTAssertEqual(counters?["enabled"] as? Bool, true)
        XCTAssertEqual(counters?["url"] as? String, collector.url)
        XCTAssertEqual(counters?["interval"] as? Double, 1)
        XCTAssertEqual(counters?.int("failed"), 0)
        XCTAssertEqual(counters?.int("dropped"), 0)
        XCTAssertNil(counters?["lastError"] as? String, "\(String(describing: counters))")

        // Each delivery is an `analytics` event on the stream.
        let lastSeq = seqs.last ?? 0
        let stream = try collectEvents(ws, timeout: 5) { events in
            events.contains { $0.analytics?["seq"] as? Int == lastSeq && $0.analytics?["outcome"] as? String == "sent" }
        }
        let updates = stream.compactMap(\.analytics)
        XCTAssertEqual(updates.filter { $0["outcome"] as? String == "sent" }.compactMap { $0["seq"] as? Int }, seqs,
                       "one `sent` per event, in order: \(updates)")
        XCTAssertEqual(updates.compactMap { $0["event"] as? String }, kinds)
        XCTAssertEqual(updates.last?["pending"] as? Int, 0)
    }

    // MARK: Durability

    /// The outbox is committed before anything else: what was recorded while the collector
    /// was down survives a SIGKILL and is delivered by the next daemon on the same data
    /// directory, first, once each and in order; the new daemon's own events continue the seq.
    func testPendingEventsSurviveSIGKILLAndAreSentInOrderAfterRestart() throws {
        let directory = try Daemon.makeDataDirectory()
        sharedDataDirectory = directory
        collector.answer(503)
        var daemon = try startDaemon(interval: 1, dataDirectory: directory)
        let clip = try MediaFixtures.mp4(seconds: 20)
        let open = openBody(clip)
        var (status, s) = try daemon.post("/v1/player/open?wait=playing", open)
        XCTAssertEqual(status, 200, "\(s)")

        // ~3 s of playing: begin and a `playing` a second, all waiting behind the first.
        let before = try XCTUnwrap(try poll("3 events pending", timeout: 10) {
            let a = try daemon.analytics()
            return a.int("pending") ?? 0 >= 3 ? a : nil
        })
        XCTAssertEqual(before.int("sent"), 0)
        let lastError = before["lastError"] as? String ?? ""
        XCTAssertTrue(lastError.contains("503"), "lastError names the collector's answer: \(before)")
        // One at a time, in order: every attempt so far was the head of the queue, seq 1.
        let attempts = collector.posts
        XCTAssertFalse(attempts.isEmpty, "the daemon tried to deliver")
        XCTAssertTrue(attempts.allSatisfy { $0.seq == 1 && $0.event == "begin" && $0.status == 503 },
                      "only the head is tried while it fails: \(attempts.map { ($0.seq ?? -1, $0.event ?? "-") })")
        XCTAssertEqual(try daemon.snapshot().state, "playing", "a collector that is down does not stop playback")

        let killedAt = Date()
        XCTAssertTrue(daemon.crash(), "the daemon must die from SIGKILL")
        let firstLog = daemon.log
        // Nothing was acknowledged before the kill (the collector answered 503 throughout), so
        // no acknowledgement can have been lost with it: from here on every seq must arrive
        // exactly once. (Delivery is at least once in general: a kill between a 2xx and its
        // commit would legitimately send that seq again, as an exact repeat.)
        // The dead daemon's connections close; what it sent before dying is recorded (as
        // answered 503) before the collector comes up.
        XCTAssertTrue(collector.waitUntilNoConnections(timeout: 5))
        let attemptsBeforeKill = collector.posts.count
        collector.answer(200)

        daemon = try startDaemon(interval: 1, dataDirectory: directory)
        let (delivered, drained) = collector.waitFor(timeout: 10) { posts in
            posts.filter(\.accepted).count >= before.int("pending") ?? 0
        }
        XCTAssertTrue(drained, "the restarted daemon did not send what was pending: \(delivered.map { ($0.seq ?? -1, $0.status) })\n"
                      + "first daemon's log:\n\(firstLog.suffix(2000))\nsecond daemon's log:\n\(daemon.log.suffix(3000))")
        let counters = try XCTUnwrap(try poll("the outbox drained", timeout: 10) {
            let a = try daemon.analytics()
            return a.int("pending") == 0 ? a : nil
        }, "log:\n\(daemon.log.suffix(3000))")
        let recovered = collector.accepted
        let recoveredSeqs = recovered.compactMap(\.seq)
        XCTAssertEqual(recoveredSeqs.count, recovered.count)
        XCTAssertGreaterThanOrEqual(recovered.count, before.int("pending") ?? 0,
                                    "everything pending before the kill arrives (and what was committed after the count)")
        XCTAssertEqual(recoveredSeqs, Array(1...max(1, recoveredSeqs.count)),
                       "in order, contiguous from the first, no duplicates: \(recoveredSeqs)")
        XCTAssertEqual(counters.int("sent"), recovered.count, "\(counters)")
        XCTAssertEqual(counters.int("failed"), 0)
        XCTAssertEqual(counters.int("dropped"), 0)
        // They are the first daemon's events as it recorded them: begin, then `playing`; no
        // `end` (it was killed), its times before the kill.
        XCTAssertEqual(recovered.first?.event, "begin")
        XCTAssertTrue(recovered.dropFirst().allSatisfy { $0.event == "playing" }, "\(recovered.map(\.event))")
        for post in recovered {
            let json = post.json ?? [:]
            XCTAssertEqual(json["contentId"] as? String, "film-42")
            let time = (json["time"] as? String).flatMap(Self.parseTime)
            XCTAssertNotNil(time)
            XCTAssertLessThanOrEqual(time ?? .distantFuture, killedAt, "a recovered event keeps its original time")
        }
        XCTAssertEqual(collector.posts.count, attemptsBeforeKill + recovered.count,
                       "after the restart each event went once, the first time: \(collector.posts.map { ($0.seq ?? -1, $0.status) })")

        // The new daemon's own events continue the seq.
        let lastRecovered = recoveredSeqs.last ?? 0
        (status, s) = try daemon.post("/v1/player/open?wait=playing", open)
        XCTAssertEqual(status, 200, "\(s)")
        (status, s) = try daemon.post("/v1/player/stop")
        XCTAssertEqual(status, 200, "\(s)")
        let (all, gotEnd) = collector.waitFor(timeout: 10) { $0.contains { $0.accepted && $0.event == "end" } }
        XCTAssertTrue(gotEnd, "\(all.map { ($0.seq ?? -1, $0.event ?? "-") })")
        let newEvents = collector.accepted.dropFirst(recovered.count)
        XCTAssertEqual(newEvents.map(\.event), ["begin", "end"])
        XCTAssertEqual(newEvents.compactMap(\.seq), [lastRecovered + 1, lastRecovered + 2],
                       "seq goes on from the highest ever assigned")
        let allSeqs = collector.accepted.compactMap(\.seq)
        XCTAssertEqual(allSeqs, Array(1...max(1, allSeqs.count)), "one seq per event, each once, in order")
    }

    // MARK: Refused events

    /// A 4xx is the collector's final word: the event counts as failed, is not sent again,
    /// and the ones behind it still go.
    func testA4xxEventFailsIsNotRetriedAndLaterEventsStillGo() throws {
        collector.answer(400)
        let daemon = try startDaemon(interval: 1)
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        let clip = try MediaFixtures.mp4(seconds: 20)
        let open = openBody(clip)
        var (status, s) = try daemon.post("/v1/player/open?wait=playing", open)
        XCTAssertEqual(status, 200, "\(s)")

        let refused = try XCTUnwrap(try poll("an event failed", timeout: 5) {
            let a = try daemon.analytics()
            return a.int("failed") ?? 0 >= 1 ? a : nil
        })
        collector.answer(200)
        XCTAssertEqual(refused.int("sent"), 0)
        XCTAssertNil(refused["lastError"] as? String, "a refusal is not an error that waits for a retry: \(refused)")

        // At least one `playing` goes through after the switch, then the end.
        let (_, flowing) = collector.waitFor(timeout: 5) { $0.contains { $0.accepted && $0.event == "playing" } }
        XCTAssertTrue(flowing, "no event went after the refusal: \(collector.posts.map { ($0.seq ?? -1, $0.status) })")
        (status, s) = try daemon.post("/v1/player/stop")
        XCTAssertEqual(status, 200, "\(s)")
        let (_, ended) = collector.waitFor(timeout: 5) { $0.contains { $0.accepted && $0.event == "end" } }
        XCTAssertTrue(ended)
        let counters = try XCTUnwrap(try poll("the outbox drained", timeout: 5) {
            let a = try daemon.analytics()
            return a.int("pending") == 0 && a.int("sent") == self.collector.accepted.count ? a : nil
        }, "log:\n\(daemon.log.suffix(3000))")

        let posts = collector.posts
        let seqs = posts.compactMap(\.seq)
        XCTAssertEqual(seqs.count, posts.count)
        XCTAssertEqual(seqs, Array(1...max(1, seqs.count)),
                       "each event is posted exactly once, in order: a refused one is not retried: \(posts.map { ($0.seq ?? -1, $0.status) })")
        let failedCount = posts.filter { $0.status == 400 }.count
        XCTAssertGreaterThanOrEqual(failedCount, 1)
        XCTAssertEqual(posts.first?.event, "begin")
        XCTAssertEqual(posts.first?.status, 400)
        XCTAssertEqual(counters.int("failed"), failedCount, "\(counters)")
        XCTAssertEqual(counters.int("sent"), posts.count - failedCount, "\(counters)")
        XCTAssertEqual(counters.int("dropped"), 0)

        let stream = try collectEvents(ws, timeout: 5) { events in
            events.contains { $0.analytics?["event"] as? String == "end" && $0.analytics?["outcome"] as? String == "sent" }
        }
        let updates = stream.compactMap(\.analytics)
        let failures = updates.filter { $0["outcome"] as? String == "failed" }
        XCTAssertEqual(failures.count, failedCount, "\(updates)")
        XCTAssertEqual(failures.first?["seq"] as? Int, 1)
        XCTAssertTrue((failures.first?["reason"] as? String ?? "").contains("400"), "\(failures)")
        XCTAssertFalse(updates.contains { $0["outcome"] as? String == "retrying" }, "a 4xx is never retried: \(updates)")
    }

    /// Playing again after the end is a new viewing: `begin` … `end` again, never `playing`
    /// after an `end` without a `begin` in between.
    func testPlayingAgainAfterTheEndBeginsANewViewing() throws {
        let daemon = try startDaemon(interval: 60)
        let clip = try MediaFixtures.mp4(seconds: 2)
        var (status, s) = try daemon.post("/v1/player/open?wait=playing", openBody(clip))
        XCTAssertEqual(status, 200, "\(s)")
        _ = try daemon.waitFor("the end", timeout: 10) { $0.state == "ended" }
        (status, s) = try daemon.post("/v1/player/play?wait=playing")
        XCTAssertEqual(status, 200, "\(s)")
        (status, s) = try daemon.post("/v1/player/stop")
        XCTAssertEqual(status, 200, "\(s)")
        let (_, done) = collector.waitFor(timeout: 5) { $0.filter { $0.event == "end" }.count >= 2 }
        XCTAssertTrue(done, "\(collector.posts.map { $0.event ?? "?" })")
        XCTAssertEqual(collector.posts.compactMap(\.event), ["begin", "end", "begin", "end"])
    }

    // MARK: A collector that is down

    func testACollectorThatIsDownNeverBlocksPlaybackAndPendingCanBeDropped() throws {
        collector.answer(503)
        let daemon = try startDaemon(interval: 1)
        let clip = try MediaFixtures.mp4(seconds: 20)
        let open = openBody(clip)
        var (status, s) = try daemon.post("/v1/player/open?wait=playing", open)
        XCTAssertEqual(status, 200, "\(s)")
        let start = try XCTUnwrap(s.position)

        // Playback goes on while events pile up and every attempt fails.
        var last = start
        let deadline = Date().addingTimeInterval(10)
        while last < start + 2.5 && Date() < deadline {
            let now = try daemon.snapshot()
            XCTAssertEqual(now.state, "playing", "\(now)")
            last = now.position ?? last
            usleep(200_000)
        }
        XCTAssertGreaterThanOrEqual(last, start + 2.5, "the position must advance while the collector is down")
        let waiting = try daemon.analytics()
        XCTAssertGreaterThanOrEqual(waiting.int("pending") ?? 0, 2, "\(waiting)")
        XCTAssertEqual(waiting.int("sent"), 0)
        XCTAssertTrue((waiting["lastError"] as? String ?? "").contains("503"), "\(waiting)")

        // Commands answer as usual.
        (status, s) = try daemon.post("/v1/player/pause?wait=paused")
        XCTAssertEqual(status, 200, "\(s)")

        // DELETE drops the backlog; its reply is the state right after.
        let r = try daemon.client.delete("/v1/analytics")
        XCTAssertEqual(r.status, 200, r.text)
        let dropped = try XCTUnwrap(try r.json() as? [String: Any])
        XCTAssertEqual(dropped.int("pending"), 0, "\(dropped)")
        XCTAssertGreaterThanOrEqual(dropped.int("dropped") ?? 0, waiting.int("pending") ?? 0, "\(dropped)")
        XCTAssertNil(dropped["lastError"] as? String, "\(dropped)")
        let droppedCount = dropped.int("dropped") ?? 0
        XCTAssertEqual(try daemon.analytics().int("dropped"), droppedCount, "the counter is kept")

        // What comes next is delivered; nothing dropped is.
        collector.answer(200)
        (status, s) = try daemon.post("/v1/player/stop")
        XCTAssertEqual(status, 200, "\(s)")
        let (_, ended) = collector.waitFor(timeout: 10) { $0.contains { $0.accepted && $0.event == "end" } }
        XCTAssertTrue(ended, "log:\n\(daemon.log.suffix(3000))")
        let delivered = collector.accepted
        XCTAssertEqual(delivered.map(\.event), ["end"], "\(delivered.map { ($0.seq ?? -1, $0.event ?? "-") })")
        // The fresh outbox numbered the dropped events 1...droppedCount.
        XCTAssertEqual(delivered.first?.seq, droppedCount + 1)
        let after = try XCTUnwrap(try poll("end counted", timeout: 5) {
            let a = try daemon.analytics()
            return a.int("sent") == 1 ? a : nil
        })
        XCTAssertEqual(after.int("pending"), 0)
        XCTAssertEqual(after.int("dropped"), droppedCount)
    }

    // MARK: Storage at start

    /// A database that is not one stops the start with a message naming it: no silent reset,
    /// which would lose events acknowledged as recorded.
    func testCorruptDatabaseRefusesToStart() throws {
        let directory = try Daemon.makeDataDirectory()
        sharedDataDirectory = directory
        let database = directory.appendingPathComponent("marquee.sqlite3")
        var garbage = Data("this is not an SQLite database\n".utf8)
        while garbage.count < 16 * 1024 { garbage.append(contentsOf: (0..<251).map { UInt8(($0 * 37 + garbage.count) & 0xff) }) }
        try garbage.write(to: database)

        let result = try runProcess(Daemon.binary, [
            "serve", "--listen", "127.0.0.1:0", "--video-sink", "fakevideosink", "--audio-sink", "fakeaudiosink",
            "--data-dir", directory.path, "--analytics-url", collector.url,
        ], timeout: 20)
        XCTAssertNotEqual(result.status, 0, "stdout: \(result.stdout)\nstderr: \(result.stderr)")
        XCTAssertFalse(result.stdout.contains("listening on"), result.stdout)
        XCTAssertTrue(result.stderr.contains("marquee.sqlite3"), "the message names the database file: \(result.stderr)")
        XCTAssertTrue(result.stderr.lowercased().contains("database"), result.stderr)
        // The damaged file is left for the operator, not replaced.
        XCTAssertEqual(try Data(contentsOf: database), garbage, "the file must not be rewritten")
        XCTAssertTrue(collector.posts.isEmpty)
    }

    // MARK: Helpers

    static func parseTime(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}

extension Daemon {
    /// `GET /v1/analytics`.
    func analytics() throws -> [String: Any] {
        let r = try client.get("/v1/analytics")
        guard r.status == 200, let object = try r.json() as? [String: Any] else {
            throw NSError(domain: "AnalyticsTests", code: r.status, userInfo: [NSLocalizedDescriptionKey: r.text])
        }
        return object
    }
}

extension Dictionary where Key == String, Value == Any {
    func int(_ key: String) -> Int? { self[key] as? Int }
    /// The `data` of an `analytics` event; nil for other events.
    var analytics: [String: Any]? {
        self["type"] as? String == "analytics" ? self["data"] as? [String: Any] : nil
    }
}

/// Calls `check` every 50 ms until it returns a value or `timeout` passes (then fails the
/// test and returns nil).
func poll<T>(_ description: String, timeout: Double, file: StaticString = #filePath, line: UInt = #line,
             _ check: () throws -> T?) throws -> T? {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if let value = try check() { return value }
        if Date() >= deadline {
            XCTFail("timed out waiting for \(description)", file: file, line: line)
            return nil
        }
        usleep(50_000)
    }
}
