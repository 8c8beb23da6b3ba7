@testable import ContentSessions
import ControlAPI
import Foundation
import GLibRuntime
import GLibTestSupport
@testable import PlayerCore
import Storage
import TestMedia
import XCTest

/// The content-session feature on a real player (fake sinks) and a real SQLite database:
/// what it saves as the player plays, pauses and stops, and what the next open gets from it.
final class ContentSessionFeatureTests: GStreamerTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("marquee-content-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// The clip has a keyframe every second: a key-unit seek to a resume point lands up to
    /// ~1 s before it, never after.
    private static let keyframeSlack = 1.5

    @GLibActor
    private func makePlayer(with feature: ContentSessionFeature) -> Player {
        let player = Player(configuration: .init(sinks: SinkSelection(video: "fakevideosink", audio: "fakeaudiosink")))
        player.add(feature)
        return player
    }

    private func request(_ clip: URL, autoplay: Bool) -> OpenRequest {
        var request = OpenRequest(uri: clip.path, autoplay: autoplay)
        request.contentId = "film-1"
        request.userId = "alice"
        return request
    }

    @GLibActor
    func testPauseAndStopSaveThePointAndTheNextOpenStartsThere() async throws {
        let clip = try MediaFixtures.mp4(seconds: 20)
        let database = try SQLiteDatabase(path: directory.appendingPathComponent("test.sqlite3").path)
        defer { database.close() }
        let store = try ResumeStore(database: database)
        let player = makePlayer(with: ContentSessionFeature(resume: store, analytics: nil))
        defer { player.shutdown() }

        let opened = try player.send(.open(request(clip, autoplay: true)))
        XCTAssertLessThan(opened.position ?? 0, 0.5, "a first open starts at the beginning")
        let played = try await eventually(timeout: 10) { player.state == .playing && (player.snapshot().position ?? 0) >= 2.5 }
        XCTAssertTrue(played, "state \(player.state), position \(String(describing: player.snapshot().position))")

        // The pause saves the point at once.
        let paused = try player.send(.pause)
        XCTAssertEqual(paused.state, .paused)
        let pausedAt = try XCTUnwrap(paused.position)
        let atPause = try XCTUnwrap(try store.load(contentId: "film-1", userId: "alice"), "the pause saved a point")
        XCTAssertEqual(atPause.position, pausedAt, accuracy: 0.25)
        XCTAssertEqual(atPause.duration ?? 0, 20, accuracy: 0.3)
        XCTAssertGreaterThanOrEqual(atPause.watched, 2.0, "about 2.5 s were played")
        XCTAssertNil(try store.load(contentId: "film-1", userId: "bob"), "per user")

        // The stop saves it again, where it is.
        XCTAssertEqual(try player.send(.stop).state, .idle)
        let saved = try XCTUnwrap(try store.load(contentId: "film-1", userId: "alice"))
        XCTAssertEqual(saved.position, pausedAt, accuracy: 0.25)
        XCTAssertGreaterThanOrEqual(saved.watched, atPause.watched)

        // Opened again without `start`: it starts from the point, with the watched time.
        let reopened = try player.send(.open(request(clip, autoplay: false)))
        XCTAssertEqual(try XCTUnwrap(reopened.source?.watched), saved.watched, accuracy: 0.01)
        let settled = try await eventually(timeout: 10) { player.state == .paused && player.isSettled }
        XCTAssertTrue(settled, "state \(player.state)")
        let resumed = try XCTUnwrap(player.snapshot().position)
        XCTAssertLessThanOrEqual(resumed, saved.position + 0.1, "resumed after the saved point \(saved.position)")
        XCTAssertGreaterThanOrEqual(resumed, saved.position - Self.keyframeSlack, "resumed too early for \(saved.position)")
        XCTAssertGreaterThan(resumed, 1)

        // A given start wins over the point.
        var withStart = request(clip, autoplay: false)
        withStart.start = 8
        XCTAssertEqual(try XCTUnwrap(try player.send(.open(withStart)).position), 8, accuracy: 0.01)
    }

    /// Analytics recorded in a real outbox while the collector cannot be reached (nothing
    /// listens on the discard port): `begin`, the pause's `playing`, then `end` at the stop,
    /// with the content fields; they wait in the outbox, in order.
    @GLibActor
    func testEventsAreRecordedInTheOutboxInOrder() async throws {
        let clip = try MediaFixtures.mp4(seconds: 20)
        let database = try SQLiteDatabase(path: directory.appendingPathComponent("test.sqlite3").path)
        defer { database.close() }
        let outbox = try AnalyticsOutbox(database: database)
        let reporter = AnalyticsReporter(configuration: .init(url: "http://127.0.0.1:9/collect", interval: 3600), outbox: outbox)
        let feature = ContentSessionFeature(resume: try ResumeStore(database: database), analytics: reporter)
        let player = makePlayer(with: feature)
        defer { player.shutdown() }

        _ = try player.send(.open(request(clip, autoplay: true)))
        let begun = try await eventually(timeout: 10) { (try? outbox.counters().pending) == 1 }
        XCTAssertTrue(begun, "begin is recorded once playing and the duration is known")
        let played = try await eventually(timeout: 10) { (player.snapshot().position ?? 0) >= 1 }
        XCTAssertTrue(played)
        _ = try player.send(.pause)
        _ = try player.send(.stop)

        let entries = try outbox.nextPending(limit: 10)
        XCTAssertEqual(entries.map(\.kind), ["begin", "playing", "end"])
        let events = try entries.map { try JSONDecoder().decode(AnalyticsEvent.self, from: $0.body) }
        XCTAssertTrue(events.allSatisfy { $0.contentId == "film-1" && $0.userId == "alice" && $0.rate == 1 })
        XCTAssertEqual(events.first?.duration ?? 0, 20, accuracy: 0.3)
        XCTAssertLessThan(events.first?.position ?? 99, 1)
        XCTAssertGreaterThanOrEqual(events.last?.position ?? 0, 1)
        XCTAssertEqual(feature.analyticsStatus().pending, 3)
        XCTAssertEqual(try feature.dropPendingAnalytics().pending, 0)
    }

    /// A queue of local files goes on gaplessly: the item that ended closes (its `end`) and
    /// the next begins without an open; the next item's watched time comes from its point.
    @GLibActor
    func testGaplessQueueItemsEachGetTheirOwnContentSession() async throws {
        let first = try MediaFixtures.mp4(seconds: 2)
        let second = try MediaFixtures.mp4(seconds: 3)
        let database = try SQLiteDatabase(path: directory.appendingPathComponent("test.sqlite3").path)
        defer { database.close() }
        let outbox = try AnalyticsOutbox(database: database)
        let store = try ResumeStore(database: database)
        try store.save(contentId: "ep-2", position: 0, duration: 3, watched: 7)
        let reporter = AnalyticsReporter(configuration: .init(url: "http://127.0.0.1:9/collect", interval: 3600), outbox: outbox)
        let player = makePlayer(with: ContentSessionFeature(resume: store, analytics: reporter))
        defer { player.shutdown() }

        var items = [OpenRequest(uri: first.path), OpenRequest(uri: second.path)]
        items[0].contentId = "ep-1"
        items[1].contentId = "ep-2"
        _ = try player.send(.queueSet(QueueRequest(items: items)))
        let switched = try await eventually(timeout: 10) { player.snapshot().source?.contentId == "ep-2" }
        XCTAssertTrue(switched)
        XCTAssertGreaterThanOrEqual(player.snapshot().source?.watched ?? 0, 7, "carried from ep-2's point")
        let ended = try await eventually(timeout: 10) { player.state == .ended }
        XCTAssertTrue(ended, "state \(player.state)")

        let events = try outbox.nextPending(limit: 10).map { try JSONDecoder().decode(AnalyticsEvent.self, from: $0.body) }
        XCTAssertEqual(events.map(\.event.rawValue), ["begin", "end", "begin", "end"])
        XCTAssertEqual(events.map(\.contentId), ["ep-1", "ep-1", "ep-2", "ep-2"])
        XCTAssertGreaterThanOrEqual(events.last?.watched ?? 0, 7)
        XCTAssertEqual(try store.load(contentId: "ep-2")?.position, 0, "watched to the end: starts over next time")
    }

    func testAPointNearTheEndStartsFromTheBeginning() {
        XCTAssertEqual(ResumeRule.start(at: 42, duration: 100), 42)
        XCTAssertEqual(ResumeRule.start(at: 42, duration: nil), 42, "live or unknown length: resume")
        XCTAssertNil(ResumeRule.start(at: 91, duration: 100), "within the last 10 s")
        XCTAssertNil(ResumeRule.start(at: 0.5, duration: 100), "the first second is the beginning")
    }
}
