import FoundationEssentials
import SessionControl
import XCTest

/// The decisions of concurrent-session control, without a clock or a network: the times are
/// the test's.
final class SessionMachineTests: XCTestCase {
    private let film = SessionMachine.Viewing(sessionId: "s1", contentId: "film-42", userId: "user-7")
    private let next = SessionMachine.Viewing(sessionId: "s2", contentId: nil, userId: nil)

    private func machine(interval: Double = 30, grace: Double = 120) -> SessionMachine {
        SessionMachine(configuration: .init(interval: interval, grace: grace))
    }

    /// Loaded and playing: `start` at once, then `alive` an interval after each heartbeat.
    func testStartsAtTheFirstPlayingThenHeartbeatsEveryInterval() {
        var m = machine()
        XCTAssertEqual(m.handle(.loaded(film), now: 0), [], "nothing before playing")
        XCTAssertNil(m.wakeAt)
        XCTAssertEqual(m.handle(.playing, now: 1), [.post(.start, film)])
        XCTAssertEqual(m.wakeAt, 121, "only the grace while the start is unanswered")
        XCTAssertEqual(m.handle(.verdict(.allow, sessionId: "s1"), now: 1.2), [])
        XCTAssertEqual(m.wakeAt, 31, "the next alive is an interval after the start was sent")
        XCTAssertEqual(m.handle(.tick, now: 20), [], "an early tick does nothing")
        XCTAssertEqual(m.handle(.playing, now: 25), [], "playing again (after a pause) starts nothing new")
        XCTAssertEqual(m.handle(.tick, now: 31), [.post(.alive, film)])
        XCTAssertEqual(m.handle(.verdict(.allow, sessionId: "s1"), now: 31.1), [])
        XCTAssertEqual(m.wakeAt, 61)
        XCTAssertEqual(m.handle(.closing, now: 40), [.post(.stop, film)])
        XCTAssertNil(m.wakeAt)
        XCTAssertEqual(m.handle(.tick, now: 61), [], "nothing after the stop")
    }

    /// Content that closes before it ever played was never a viewing: no start, no stop.
    func testContentClosedBeforePlayingSendsNothing() {
        var m = machine()
        _ = m.handle(.loaded(film), now: 0)
        XCTAssertEqual(m.handle(.closing, now: 3), [])
        XCTAssertEqual(m.handle(.playing, now: 4), [], "playing after a close without a load is no viewing")
    }

    /// Each loaded content is its own viewing; a verdict about the previous one is ignored.
    func testANewLoadIsANewViewingAndLateVerdictsAreIgnored() {
        var m = machine(interval: 1, grace: 2)
        _ = m.handle(.loaded(film), now: 0)
        _ = m.handle(.playing, now: 0)
        XCTAssertEqual(m.handle(.closing, now: 0.5), [.post(.stop, film)])
        _ = m.handle(.loaded(next), now: 0.6)
        XCTAssertEqual(m.handle(.playing, now: 0.7), [.post(.start, next)])
        XCTAssertEqual(m.handle(.verdict(.deny(code: "concurrent", message: "no"), sessionId: "s1"), now: 0.8), [],
                       "a refusal of the closed viewing does not block the new one")
        XCTAssertEqual(m.activeViewing, next)
    }

    /// `"allow": false` blocks at once; the close that follows sends `stop`; the next load
    /// starts afresh.
    func testARefusalBlocksAtOnce() {
        var m = machine(interval: 1, grace: 2)
        _ = m.handle(.loaded(film), now: 0)
        _ = m.handle(.playing, now: 0)
        XCTAssertEqual(m.handle(.verdict(.deny(code: "concurrent", message: "watching on another device"), sessionId: "s1"), now: 0.1),
                       [.block(code: "concurrent", message: "watching on another device")])
        XCTAssertNil(m.wakeAt, "no heartbeat once blocked")
        XCTAssertEqual(m.handle(.tick, now: 5), [])
        XCTAssertEqual(m.handle(.closing, now: 0.2), [.post(.stop, film)])
        _ = m.handle(.loaded(next), now: 1)
        XCTAssertEqual(m.handle(.playing, now: 1), [.post(.start, next)])
    }

    /// Unreachable is tolerated for the grace, counted from when the first unanswered
    /// heartbeat was sent; an answer in between forgives it; past the grace, it blocks.
    func testUnreachableIsToleratedForTheGraceThenBlocks() {
        var m = machine(interval: 1, grace: 2)
        _ = m.handle(.loaded(film), now: 0)
        _ = m.handle(.playing, now: 0)
        XCTAssertEqual(m.handle(.verdict(.unreachable("HTTP 503"), sessionId: "s1"), now: 0.1), [])
        XCTAssertEqual(m.wakeAt, 1)
        XCTAssertEqual(m.handle(.tick, now: 1), [.post(.alive, film)])
        XCTAssertEqual(m.handle(.verdict(.allow, sessionId: "s1"), now: 1.1), [], "back: forgiven")
        XCTAssertEqual(m.handle(.tick, now: 2), [.post(.alive, film)])
        XCTAssertEqual(m.handle(.verdict(.unreachable("connection refused"), sessionId: "s1"), now: 2.1), [])
        XCTAssertEqual(m.handle(.tick, now: 3), [.post(.alive, film)])
        XCTAssertEqual(m.handle(.verdict(.unreachable("connection refused"), sessionId: "s1"), now: 3.1), [])
        XCTAssertEqual(m.wakeAt, 4, "the grace ends 2 s after the heartbeat sent at 2")
        let actions = m.handle(.tick, now: 4)
        guard case .block(let code, let message)? = actions.first, actions.count == 1 else {
            return XCTFail("expected one block, got \(actions)")
        }
        XCTAssertEqual(code, "unreachable")
        XCTAssertTrue(message?.contains("connection refused") == true, message ?? "-")
        XCTAssertEqual(m.handle(.closing, now: 4.1), [.post(.stop, film)], "stop is still sent, best effort")
    }

    /// A heartbeat that hangs delays the next one (one in flight) and counts as unreachable
    /// from when it was sent; grace 0 blocks at the first failure.
    func testAHangingHeartbeatDelaysTheNextAndCountsAgainstTheGrace() {
        var m = machine(interval: 1, grace: 5)
        _ = m.handle(.loaded(film), now: 0)
        _ = m.handle(.playing, now: 0)
        XCTAssertEqual(m.wakeAt, 5, "no alive while the start is unanswered")
        XCTAssertEqual(m.handle(.tick, now: 1), [])
        XCTAssertEqual(m.handle(.verdict(.allow, sessionId: "s1"), now: 3), [.post(.alive, film)], "overdue: at once")
        XCTAssertEqual(m.handle(.tick, now: 8), [.block(code: "unreachable", message: "the session server has not answered for 5 s: no answer")])

        var strict = machine(interval: 1, grace: 0)
        _ = strict.handle(.loaded(film), now: 0)
        _ = strict.handle(.playing, now: 0)
        XCTAssertEqual(strict.handle(.verdict(.unreachable("HTTP 500"), sessionId: "s1"), now: 0.1).count, 1)
    }

    /// A gapless queue item: the previous closes, the next loads already playing.
    func testGaplessSwitchStopsOneViewingAndStartsTheNext() {
        var m = machine()
        _ = m.handle(.loaded(film), now: 0)
        _ = m.handle(.playing, now: 0)
        XCTAssertEqual(m.handle(.closing, now: 10), [.post(.stop, film)])
        XCTAssertEqual(m.handle(.loaded(next), now: 10), [])
        XCTAssertEqual(m.handle(.playing, now: 10), [.post(.start, next)])
    }

    func testVerdictOfAReplyBody() {
        XCTAssertEqual(SessionVerdict(replyBody: Data(#"{"allow": false, "code": "concurrent", "message": "m"}"#.utf8)),
                       .deny(code: "concurrent", message: "m"))
        XCTAssertEqual(SessionVerdict(replyBody: Data(#"{"allow": false}"#.utf8)), .deny(code: nil, message: nil))
        XCTAssertEqual(SessionVerdict(replyBody: Data(#"{"allow": true, "code": "x"}"#.utf8)), .allow)
        XCTAssertEqual(SessionVerdict(replyBody: Data("{}".utf8)), .allow)
        XCTAssertEqual(SessionVerdict(replyBody: Data()), .allow)
        XCTAssertEqual(SessionVerdict(replyBody: Data("ok".utf8)), .allow)
    }
}
