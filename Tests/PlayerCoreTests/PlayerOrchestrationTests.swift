import ControlAPI
import Foundation
import GLibRuntime
import GLibTestSupport
import GStreamerKit
@testable import PlayerCore
import TestMedia
import XCTest

/// The session's controllers working together in-process, on real pipelines with fake sinks
/// (as `PlayerEventOrderTests`): riding out an origin that fails, a gapless queue, an A-B
/// loop. Each asserts the order of the events that concern it.
final class PlayerOrchestrationTests: GStreamerTestCase {
    typealias EventLog = PlayerEventOrderTests.EventLog

    @GLibActor
    private func makePlayer(reconnectTimeout: Double = 120) -> Player {
        Player(configuration: .init(sinks: SinkSelection(video: "fakevideosink", audio: "fakeaudiosink"), reconnectTimeout: reconnectTimeout))
    }

    /// The events of the given kinds, named: "state opening>playing", "reconnecting 1", …
    @GLibActor
    private func story(_ log: EventLog, _ kinds: Set<String>) -> [String] {
        log.events.compactMap { event -> String? in
            guard kinds.contains(event.type) else { return nil }
            switch event {
            case .state(let change): return "state \(change.previous.rawValue)>\(change.state.rawValue)"
            case .reconnecting(let update): return "reconnecting \(update.attempt)"
            case .recovered: return "recovered"
            case .source(let info):
                guard let uri = info?.uri else { return "source -" }
                return "source \(uri.contains("://") && !uri.hasPrefix("file:") ? uri : URL(fileURLWithPath: uri).lastPathComponent)"
            case .queue(let info): return "queue \(info?.index.map(String.init) ?? "-")"
            default: return event.type
            }
        }
    }

    // MARK: Recovery

    /// Segment 5 of every stream answers 503 for a while: the player releases the pipeline,
    /// says it is reconnecting (with backoff), and once the origin answers again plays on
    /// from where it was, in the same session (no new open).
    @GLibActor
    func testAnOriginThatFailsThenRecoversIsRiddenOutInOrder() async throws {
        let ladder = try HLSFixtures.ladder(seconds: 12)
        let server = try RecordingHTTPServer(root: ladder.directory)
        defer { server.stop() }
        for path in ladder.segmentPaths(5) { server.respond(to: path, with: 503) }
        let player = makePlayer()
        defer { player.shutdown() }
        let log = EventLog(player)

        _ = try player.send(.open(OpenRequest(uri: server.baseURL + "/" + ladder.masterPath)))
        let reconnecting = try await eventually(timeout: 30) {
            log.events.contains { if case .reconnecting = $0 { true } else { false } } || player.state == .error
        }
        XCTAssertTrue(reconnecting, "\(story(log, ["state", "reconnecting", "error"]))")
        XCTAssertEqual(player.state, .buffering, "reconnecting shows as buffering while the user wants to play")
        try await Task.sleep(for: .milliseconds(1500))
        server.clearFaults()
        let recovered = try await eventually(timeout: 40) { player.state == .playing && (player.snapshot().position ?? 0) > 6 }
        let events = story(log, ["state", "reconnecting", "recovered", "error"])
        XCTAssertTrue(recovered, "\(events)")
        XCTAssertFalse(events.contains("error"), "\(events)")
        XCTAssertEqual(player.stats.opens, 1, "no new open was needed")

        // The order: opening, playing, (buffering), then from the first `reconnecting` on only
        // attempts numbered 1, 2, … until `recovered`, and playing again after it.
        let first = try XCTUnwrap(events.firstIndex(of: "reconnecting 1"), "\(events)")
        XCTAssertEqual(Array(events.prefix(2)), ["state idle>opening", "state opening>playing"], "\(events)")
        XCTAssertEqual(events[first - 1], "state playing>buffering", "the state says buffering before the first attempt: \(events)")
        let recoveredAt = try XCTUnwrap(events.firstIndex(of: "recovered"), "\(events)")
        let attempts = events[first..<recoveredAt]
        XCTAssertEqual(Array(attempts), (1...attempts.count).map { "reconnecting \($0)" }, "only attempts, in order: \(events)")
        XCTAssertEqual(Array(events[(recoveredAt + 1)...]), ["state buffering>playing"], "\(events)")
        guard case .recovered(let update)? = log.events.first(where: { if case .recovered = $0 { true } else { false } }) else {
            return XCTFail("no recovered event")
        }
        XCTAssertEqual(update.attempts, attempts.count)
        XCTAssertGreaterThan(update.downtime, 1)
    }

    /// An open that replaces an HLS source says its ladder is gone (`variants` [] and an
    /// `auto` variant right after the new `source`), so a client following events does not
    /// keep offering the old ladder.
    @GLibActor
    func testOpeningAFileAfterHLSAnnouncesTheLadderGone() async throws {
        let ladder = try HLSFixtures.ladder(seconds: 6)
        let server = try RecordingHTTPServer(root: ladder.directory)
        defer { server.stop() }
        let clip = try MediaFixtures.mp4(seconds: 2)
        let player = makePlayer()
        defer { player.shutdown() }
        let log = EventLog(player)

        _ = try player.send(.open(OpenRequest(uri: server.baseURL + "/" + ladder.masterPath)))
        let hasLadder = try await eventually(timeout: 15) { !player.snapshot().variants.isEmpty }
        XCTAssertTrue(hasLadder)
        let before = log.events.count
        _ = try player.send(.open(OpenRequest(uri: clip.path)))
        let story = log.events.dropFirst(before).compactMap { event -> String? in
            switch event {
            case .source(let info): return "source \(info.map { URL(fileURLWithPath: $0.uri).lastPathComponent } ?? "-")"
            case .variants(let variants): return "variants \(variants.count)"
            case .variant(let state): return "variant \(state.mode.rawValue)"
            default: return nil
            }
        }
        XCTAssertEqual(Array(story.prefix(3)), ["source \(clip.lastPathComponent)", "variants 0", "variant auto"])
        XCTAssertTrue(player.snapshot().variants.isEmpty)
    }

    // MARK: Queue

    /// Two local files: the second follows gaplessly, so between them there is a new
    /// `source` and `queue` but no `eos` and no state change; the end of the last is the end.
    @GLibActor
    func testAGaplessQueueSwitchesItsBooksWithoutAStateChange() async throws {
        let first = try MediaFixtures.mp4(seconds: 2)
        let second = try MediaFixtures.mp4(seconds: 3)
        let player = makePlayer()
        defer { player.shutdown() }
        let log = EventLog(player)

        _ = try player.send(.queueSet(QueueRequest(items: [OpenRequest(uri: first.path), OpenRequest(uri: second.path)])))
        let ended = try await eventually(timeout: 20) { player.state == .ended }
        let events = story(log, ["state", "source", "queue", "eos"])
        XCTAssertTrue(ended, "\(events)")
        XCTAssertEqual(events, [
            "source \(first.lastPathComponent)", "state idle>opening", "queue 0", "state opening>playing",
            "source \(second.lastPathComponent)", "queue 1",
            "eos", "state playing>ended",
        ])
        XCTAssertEqual(player.stats.opens, 1, "the second item played in the same pipeline")
        XCTAssertEqual(player.snapshot().source?.uri.hasSuffix(second.lastPathComponent), true, "the one source truth follows the switch")
    }

    // MARK: A-B loop

    /// An A-B loop keeps playback inside the section (no `eos`, no state change), and once
    /// it is cleared playback runs to the end.
    @GLibActor
    func testAnABLoopStaysInsideItsSectionUntilCleared() async throws {
        let clip = try MediaFixtures.mp4(seconds: 3)
        let player = makePlayer()
        defer { player.shutdown() }
        let log = EventLog(player)
        _ = try player.send(.open(OpenRequest(uri: clip.path)))
        let playing = try await eventually(timeout: 10) { player.state == .playing && player.isSettled }
        XCTAssertTrue(playing)
        log.clear()

        var patch = SettingsPatch()
        patch.abLoop = ABLoop(a: 0.5, b: 1.5)
        let reply = try player.send(.set(patch))
        XCTAssertEqual(reply.abLoop, ABLoop(a: 0.5, b: 1.5))
        // Past B several times over: still inside, still playing.
        var positions: [Double] = []
        for _ in 0..<25 {
            try await Task.sleep(for: .milliseconds(100))
            if player.isSettled, let position = player.snapshot().position { positions.append(position) }
        }
        XCTAssertEqual(player.state, .playing)
        XCTAssertFalse(positions.isEmpty)
        for position in positions { XCTAssertTrue((0.4...1.6).contains(position), "position \(position) outside the loop") }
        XCTAssertEqual(story(log, ["state", "eos", "settings"]), ["settings"], "the loop arms with one settings event, no state change")
        log.clear()

        var clear = SettingsPatch()
        clear.clearsABLoop = true
        XCTAssertNil(try player.send(.set(clear)).abLoop)
        let ended = try await eventually(timeout: 10) { player.state == .ended }
        XCTAssertTrue(ended)
        XCTAssertEqual(story(log, ["state", "eos", "settings"]), ["settings", "eos", "state playing>ended"])
    }

    // MARK: Timeshift

    /// The demo source recorded into a ring and played from it: the source is live from the
    /// first event, playing follows once enough is recorded, `live` events follow; after a
    /// stop the recorder's glue is silent (its late segments reach no one).
    @GLibActor
    func testATimeshiftedSourcePlaysFromItsRingAndFallsSilentAtStop() async throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("marquee-ts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let player = Player(configuration: .init(sinks: SinkSelection(video: "fakevideosink", audio: "fakeaudiosink"),
                                                  timeshiftFolder: folder))
        defer { player.shutdown() }
        let log = EventLog(player)
        var request = OpenRequest(uri: "demo://")
        request.timeshift = TimeshiftRequest(window: 30)
        let opened = try player.send(.open(request))
        XCTAssertEqual(opened.source?.live, true, "to the API the ring stays the live source it records")
        let live = try await eventually(timeout: 30) {
            player.state == .playing && log.events.contains { if case .live = $0 { true } else { false } }
        }
        let events = story(log, ["state", "source", "live", "error"])
        XCTAssertTrue(live, "\(events)")
        XCTAssertEqual(Array(events.prefix(3)), ["source demo://", "state idle>opening", "state opening>playing"], "\(events)")
        XCTAssertEqual(Set(events.dropFirst(3)), ["live"], "\(events)")
        XCTAssertNotNil(player.snapshot().live)
        log.clear()

        _ = try player.send(.stop)
        try await Task.sleep(for: .milliseconds(2500))
        XCTAssertEqual(story(log, ["state", "source", "live", "reconnecting", "recovered", "error"]), ["state playing>idle", "source -"])
    }

    // MARK: Picture-in-picture

    /// The inset runs a machine of its own beside the main session's: its states go
    /// opening, playing, ended (a short clip) in `pip` events, the main session publishes no
    /// state change meanwhile, and a stop ends with `pip` null.
    @GLibActor
    func testAPipInsetFollowsItsOwnMachineBesideTheMainSession() async throws {
        let main = try MediaFixtures.mp4(seconds: 6)
        let inset = try MediaFixtures.mp4(seconds: 2)
        let player = makePlayer()
        defer { player.shutdown() }
        _ = try player.send(.open(OpenRequest(uri: main.path)))
        let playing = try await eventually(timeout: 10) { player.state == .playing }
        XCTAssertTrue(playing)
        let log = EventLog(player)

        _ = try player.send(.pipStart(PipStartRequest(uri: inset.path)))
        let ended = try await eventually(timeout: 15) { player.snapshot().pip?.state == .ended }
        let events = log.events.compactMap { event -> String? in
            switch event {
            case .pip(let info): return "pip \(info?.state.rawValue ?? "-")"
            case .state(let change): return "state \(change.previous.rawValue)>\(change.state.rawValue)"
            default: return nil
            }
        }
        XCTAssertTrue(ended, "\(events)")
        // Repeats are redraws (a rect or size change); the states come in this order.
        var states: [String] = []
        for event in events where states.last != event { states.append(event) }
        XCTAssertEqual(states, ["pip opening", "pip playing", "pip ended"])
        XCTAssertEqual(player.state, .playing, "the main session plays on")

        _ = try player.send(.pipStop)
        XCTAssertNil(player.snapshot().pip)
        guard case .pip(nil)? = log.events.last else { return XCTFail("no pip null at the stop: \(events)") }
    }

    /// A broken inset fails on its own (its machine's error), and the main session plays on.
    @GLibActor
    func testABrokenPipFailsOnItsOwn() async throws {
        let main = try MediaFixtures.mp4(seconds: 6)
        let player = makePlayer()
        defer { player.shutdown() }
        _ = try player.send(.open(OpenRequest(uri: main.path)))
        let playing = try await eventually(timeout: 10) { player.state == .playing }
        XCTAssertTrue(playing)

        _ = try player.send(.pipStart(PipStartRequest(uri: try MediaFixtures.garbage().path)))
        let failed = try await eventually(timeout: 10) { player.snapshot().pip?.state == .error }
        XCTAssertTrue(failed, "\(String(describing: player.snapshot().pip))")
        XCTAssertNotNil(player.snapshot().pip?.error)
        XCTAssertEqual(player.state, .playing)
    }
}
