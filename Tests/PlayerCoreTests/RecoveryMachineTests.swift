import ControlAPI
import XCTest
@testable import PlayerCore

/// RecoveryMachine sequences, without GStreamer, timers or a network: each step feeds one
/// input (with the time it happens) and checks the exact actions it returns.
final class RecoveryMachineTests: XCTestCase {
    typealias Input = RecoveryMachine.Input
    typealias Action = RecoveryMachine.Action
    typealias Playback = RecoveryMachine.Playback

    private let t0 = ContinuousClock.now
    private var machine = RecoveryMachine(giveUpAfter: 120, canProbe: true)

    private let playing = Playback(prerolled: true, wantsToPlay: true)
    private let playingLive = Playback(prerolled: true, wantsToPlay: true, isLive: true)
    private let reconnecting = Playback(reconnecting: true, wantsToPlay: true)

    private func at(_ seconds: Double) -> ContinuousClock.Instant { t0 + .milliseconds(Int(seconds * 1000)) }

    private func step(_ input: Input, _ expected: [Action], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(machine.handle(input), expected, "after \(input)", file: file, line: line)
    }

    /// Playback that stops moving at 5.0 s of media: probed after `StallWatch.stallSeconds`.
    private func stallUntilProbe(file: StaticString = #filePath, line: UInt = #line) {
        step(.tick(progress: 5, playback: playing, now: at(0)), [], file: file, line: line)
        step(.tick(progress: 5, playback: playing, now: at(3)), [], file: file, line: line)
        step(.tick(progress: 5, playback: playing, now: at(4)), [.probeOrigin], file: file, line: line)
        XCTAssertEqual(machine.probe, .stall, file: file, line: line)
    }

    // MARK: Stalls

    func testPlaybackThatMovesIsNoStall() {
        for second in 0..<10 { step(.tick(progress: Double(second), playback: playing, now: at(Double(second))), []) }
        XCTAssertNil(machine.fault)
    }

    func testASlowOriginIsWaitedFor() {
        stallUntilProbe()
        // No tick probes again while the probe is out.
        step(.tick(progress: 5, playback: playing, now: at(5)), [])
        step(.probeAnswered(.healthy, playback: playing, now: at(5.5)), [])
        XCTAssertNil(machine.fault)
        // The watch starts again from nothing.
        step(.tick(progress: 5, playback: playing, now: at(6)), [])
        step(.tick(progress: 5, playback: playing, now: at(9)), [])
        step(.tick(progress: 5, playback: playing, now: at(10)), [.probeOrigin])
    }

    func testAFailingOriginReleasesThePipelineAndSchedulesTheFirstAttempt() {
        stallUntilProbe()
        step(.probeAnswered(.failed("HTTP 503 for seg5.ts"), playback: playing, now: at(5)),
             [.faultBegan(reason: "HTTP 503 for seg5.ts"), .cancelProbe, .release(again: false),
              .scheduleAttempt(attempt: 1, delay: 1, reason: "HTTP 503 for seg5.ts")])
        XCTAssertNotNil(machine.fault)
    }

    func testPausedOrUnprerolledPlaybackIsNeverAStall() {
        let paused = Playback(prerolled: true, wantsToPlay: false)
        for second in 0..<10 { step(.tick(progress: 5, playback: paused, now: at(Double(second))), []) }
        let opening = Playback(prerolled: false, wantsToPlay: true)
        for second in 10..<20 { step(.tick(progress: 5, playback: opening, now: at(Double(second))), []) }
    }

    func testAStallProbeAnsweredAfterAFaultBeganSaysNothing() {
        stallUntilProbe()
        // A pipeline error arrived meanwhile: the fault began and cancelled the probe.
        step(.lost(reason: "HTTP 404", playback: playing, now: at(4.5)),
             [.faultBegan(reason: "HTTP 404"), .cancelProbe, .release(again: false), .scheduleAttempt(attempt: 1, delay: 1, reason: "HTTP 404")])
        step(.probeAnswered(.failed("late"), playback: reconnecting, now: at(5)), [])
    }

    // MARK: Attempts

    func testAnAttemptProbesThenRestartsAndThePrerollEndsTheFault() {
        step(.lost(reason: "HTTP 503", playback: playing, now: at(0)),
             [.faultBegan(reason: "HTTP 503"), .cancelProbe, .release(again: false), .scheduleAttempt(attempt: 1, delay: 1, reason: "HTTP 503")])
        step(.attemptDue(playback: reconnecting, now: at(1)), [.probeOrigin])
        XCTAssertEqual(machine.probe, .attempt)
        step(.probeAnswered(.healthy, playback: reconnecting, now: at(1.2)), [.restart])
        // Still reconnecting until the new pipeline prerolled.
        step(.machineRan(playback: reconnecting, now: at(1.3)), [])
        step(.machineRan(playback: playing, now: at(3)), [.recovered(attempts: 1, downtime: 3)])
        XCTAssertNil(machine.fault)
        step(.machineRan(playback: playing, now: at(4)), [], )
    }

    func testAFailedAttemptBacksOff() {
        step(.lost(reason: "a", playback: playing, now: at(0)),
             [.faultBegan(reason: "a"), .cancelProbe, .release(again: false), .scheduleAttempt(attempt: 1, delay: 1, reason: "a")])
        step(.attemptDue(playback: reconnecting, now: at(1)), [.probeOrigin])
        step(.probeAnswered(.failed("b"), playback: reconnecting, now: at(1.1)),
             [.cancelProbe, .release(again: true), .scheduleAttempt(attempt: 2, delay: 2, reason: "b")])
        step(.attemptDue(playback: reconnecting, now: at(3.1)), [.probeOrigin])
        step(.probeAnswered(.failed("c"), playback: reconnecting, now: at(3.2)),
             [.cancelProbe, .release(again: true), .scheduleAttempt(attempt: 3, delay: 4, reason: "c")])
    }

    func testARestartThatDoesNotPrerollIsAnotherFailedAttempt() {
        step(.lost(reason: "a", playback: playing, now: at(0)),
             [.faultBegan(reason: "a"), .cancelProbe, .release(again: false), .scheduleAttempt(attempt: 1, delay: 1, reason: "a")])
        step(.attemptDue(playback: reconnecting, now: at(1)), [.probeOrigin])
        step(.probeAnswered(.healthy, playback: reconnecting, now: at(1)), [.restart])
        step(.tick(progress: nil, playback: reconnecting, now: at(10)), [])
        let reason = "the source did not deliver again within \(SourceRecovery.restartLimit)"
        step(.tick(progress: nil, playback: reconnecting, now: at(11.5)),
             [.cancelProbe, .release(again: true), .scheduleAttempt(attempt: 2, delay: 2, reason: reason)])
    }

    func testAnAttemptDueAfterTheFaultEndedDoesNothing() {
        step(.attemptDue(playback: playing, now: at(1)), [])
        XCTAssertNil(machine.probe)
    }

    func testGivesUpAfterTheReconnectTimeout() {
        machine = RecoveryMachine(giveUpAfter: 3, canProbe: true)
        step(.lost(reason: "a", playback: playing, now: at(0)),
             [.faultBegan(reason: "a"), .cancelProbe, .release(again: false), .scheduleAttempt(attempt: 1, delay: 1, reason: "a")])
        step(.attemptDue(playback: reconnecting, now: at(1)), [.probeOrigin])
        step(.probeAnswered(.failed("HTTP 404 for x"), playback: reconnecting, now: at(3.5)),
             [.cancelProbe, .release(again: true),
              .giveUp(APIError(.networkError, "gave up after 1 attempts in 3 s: HTTP 404 for x"))])
        XCTAssertNil(machine.fault)
    }

    // MARK: Sources that cannot be asked (udp, rtsp)

    func testALiveSourceWithoutDataIsLostAtOnceAndRestartedWithoutAProbe() {
        machine = RecoveryMachine(giveUpAfter: 120, canProbe: false)
        step(.tick(progress: -1, playback: playingLive, now: at(0)), [])
        step(.tick(progress: -1, playback: playingLive, now: at(4)),
             [.faultBegan(reason: "no data for 4 s"), .cancelProbe, .release(again: false),
              .scheduleAttempt(attempt: 1, delay: 1, reason: "no data for 4 s")])
        step(.attemptDue(playback: reconnecting, now: at(5)), [.restart])
        // The restart answers NO_PREROLL at once: prerolled, but that is not data.
        step(.machineRan(playback: playingLive, now: at(5.1)), [])
        step(.tick(progress: -1, playback: playingLive, now: at(6)), [])
        // Data flows again: that is the recovery, 3 s after the loss.
        step(.tick(progress: 12.5, playback: playingLive, now: at(7)), [.recovered(attempts: 1, downtime: 3)])
    }

    // MARK: Which errors are ridden out

    func testOnlyNetworkErrorsOfASourceThatWorkedAreRiddenOut() {
        let network = APIError(.networkError, "HTTP 503")
        XCTAssertFalse(RecoveryMachine.ridesOut(network, playedBefore: false, reconnecting: false), "a URL that never worked fails")
        XCTAssertTrue(RecoveryMachine.ridesOut(network, playedBefore: true, reconnecting: false))
        XCTAssertTrue(RecoveryMachine.ridesOut(network, playedBefore: false, reconnecting: true))
        XCTAssertFalse(RecoveryMachine.ridesOut(APIError(.mediaError, "bad"), playedBefore: true, reconnecting: false))
    }
}
