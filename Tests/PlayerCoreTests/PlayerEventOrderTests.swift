import ControlAPI
import Foundation
import GLibRuntime
import GLibTestSupport
import GStreamerKit
@testable import PlayerCore
import TestMedia
import XCTest

/// The player in-process, on real pipelines with fake sinks, as GStreamer's own `play.c`
/// tests drive GstPlay: commands go in, and the exact order of the published events is
/// asserted. No daemon, no HTTP: what the core itself promises.
final class PlayerEventOrderTests: GStreamerTestCase {
    /// Records the events a player publishes, in order.
    @GLibActor
    final class EventLog {
        private(set) var events: [PlayerEvent] = []
        init(_ player: Player) {
            _ = player.subscribe { [weak self] event in self?.events.append(event) }
        }

        /// The state changes so far, as "previous>state".
        var transitions: [String] {
            events.compactMap { if case .state(let change) = $0 { "\(change.previous.rawValue)>\(change.state.rawValue)" } else { nil } }
        }

        func clear() { events.removeAll() }
    }

    @GLibActor
    private func makePlayer() -> Player {
        Player(configuration: .init(sinks: SinkSelection(video: "fakevideosink", audio: "fakeaudiosink")))
    }

    @GLibActor
    func testOpenPauseSeekAndEndInOrder() async throws {
        let clip = try MediaFixtures.mp4(seconds: 3)
        let player = makePlayer()
        defer { player.shutdown() }
        let log = EventLog(player)

        // open: the source first, then opening, the tracks, and playing once it plays.
        let opened = try player.send(.open(OpenRequest(uri: clip.path)))
        XCTAssertEqual(opened.state, .opening)
        let played = try await eventually(timeout: 10) { player.state == .playing && player.isSettled }
        XCTAssertTrue(played, "state \(player.state)")
        let names = log.events.map(\.type)
        XCTAssertEqual(names.first, "source")
        XCTAssertEqual(log.transitions, ["idle>opening", "opening>playing"])
        let tracksAt = try XCTUnwrap(names.firstIndex(of: "tracks"))
        let playingAt = try XCTUnwrap(log.events.firstIndex { if case .state(let c) = $0 { c.state == .playing } else { false } })
        XCTAssertLessThan(tracksAt, playingAt, "the tracks are known before playing is reported")
        log.clear()

        // pause: the reply and the event say paused before the call returns.
        let paused = try player.send(.pause)
        XCTAssertEqual(paused.state, .paused)
        XCTAssertEqual(log.transitions, ["playing>paused"])
        log.clear()

        // seek while paused: a `seek` event at once, the reply at the target, a position event
        // when it landed; no state event (the state holds through a seek).
        let sought = try player.send(.seek(SeekRequest(position: 1.5, exact: true)))
        XCTAssertEqual(try XCTUnwrap(sought.position), 1.5, accuracy: 0.001)
        XCTAssertEqual(log.events.first, .seek(SeekUpdate(position: 1.5, exact: true)))
        let landed = try await eventually(timeout: 5) { player.isSettled }
        XCTAssertTrue(landed)
        XCTAssertEqual(log.transitions, [])
        guard case .position(let update)? = log.events.last else { return XCTFail("\(log.events.map(\.type))") }
        XCTAssertEqual(update.position, 1.5, accuracy: 0.05)
        XCTAssertEqual(update.duration ?? 0, 3, accuracy: 0.2)
        log.clear()

        // play to the end: playing, then eos and ended, in that order.
        XCTAssertEqual(try player.send(.play).state, .playing)
        let ended = try await eventually(timeout: 10) { player.state == .ended }
        XCTAssertTrue(ended)
        XCTAssertEqual(log.transitions, ["paused>playing", "playing>ended"])
        let eosAt = try XCTUnwrap(log.events.firstIndex(of: .eos))
        let endedAt = try XCTUnwrap(log.events.firstIndex { if case .state(let c) = $0 { c.state == .ended } else { false } })
        XCTAssertLessThan(eosAt, endedAt)
    }

    @GLibActor
    func testStopIsIdleAtOnceAndTheNextOpenPlays() async throws {
        let clip = try MediaFixtures.mp4(seconds: 3)
        let player = makePlayer()
        defer { player.shutdown() }
        let log = EventLog(player)
        _ = try player.send(.open(OpenRequest(uri: clip.path)))
        let played = try await eventually(timeout: 10) { player.state == .playing }
        XCTAssertTrue(played)
        log.clear()

        // The pipeline goes to NULL on the worker; the reply does not wait for it.
        let stopped = try player.send(.stop)
        XCTAssertEqual(stopped.state, .idle)
        XCTAssertNil(stopped.position)
        XCTAssertEqual(log.events.map(\.type), ["state", "source"])
        XCTAssertEqual(log.transitions, ["playing>idle"])
        XCTAssertThrowsError(try player.send(.pause)) { XCTAssertEqual(($0 as? APIError)?.code, .noSource) }

        // Opened again at once: the worker released the old pipeline first.
        log.clear()
        _ = try player.send(.open(OpenRequest(uri: clip.path, start: 1)))
        let again = try await eventually(timeout: 10) { player.state == .playing && player.isSettled }
        XCTAssertTrue(again)
        XCTAssertEqual(log.transitions, ["idle>opening", "opening>playing"])
        XCTAssertGreaterThanOrEqual(player.snapshot().position ?? 0, 0.9, "the start position was taken")
    }
}
