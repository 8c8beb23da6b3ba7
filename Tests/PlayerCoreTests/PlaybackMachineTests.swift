import XCTest
import ControlAPI
import Foundation
import HLS
@testable import PlayerCore

/// PlaybackMachine sequences, without GStreamer: each step feeds one input and checks the
/// actions it returns; `state` is the public state afterwards.
final class PlaybackMachineTests: XCTestCase {
    typealias Input = PlaybackMachine.Input
    typealias Action = PlaybackMachine.Action

    private var machine = PlaybackMachine()

    override func setUp() {
        super.setUp()
        machine = PlaybackMachine()
    }

    /// Feeds `input` and asserts the exact list of actions.
    private func step(_ input: Input, _ expected: [Action], file: StaticString = #filePath, line: UInt = #line) {
        let actions = machine.handle(input)
        XCTAssertEqual(actions, expected, "after \(input)", file: file, line: line)
    }

    /// Feeds `input` and returns only the pipeline-facing actions (no state reports).
    private func pipelineActions(_ input: Input) -> [Action] {
        machine.handle(input).filter { if case .emitState = $0 { false } else { true } }
    }

    private func emit(_ state: PlaybackState, from previous: PlaybackState) -> Action {
        .emitState(state, previous: previous)
    }

    private func seekAction(_ position: Double, exact: Bool = false, rate: Double = 1) -> Action {
        .seek(position: position, exact: exact, rate: rate)
    }

    /// open(autoplay) through preroll to PLAYING, as the pipeline reports it. The machine
    /// always prerolls PAUSED first (only that state change tells a live source by NO_PREROLL).
    private func startPlaying(file: StaticString = #filePath, line: UInt = #line) {
        step(.open(autoplay: true, start: nil), [.setPipelineState(.paused), emit(.opening, from: .idle)], file: file, line: line)
        step(.pipelineState(.ready), [], file: file, line: line)
        step(.pipelineState(.paused), [], file: file, line: line)
        step(.asyncDone, [.setPipelineState(.playing)], file: file, line: line)
        step(.pipelineState(.playing), [emit(.playing, from: .opening)], file: file, line: line)
        XCTAssertEqual(machine.state, .playing, file: file, line: line)
    }

    // MARK: Opening

    func testInitialStateIsIdle() {
        XCTAssertEqual(machine.state, .idle)
        XCTAssertFalse(machine.hasSource)
        XCTAssertNil(machine.pendingSeekTarget)
    }

    func testOpenAutoplayPrerollsThenPlays() {
        startPlaying()
        XCTAssertTrue(machine.prerolled)
        XCTAssertEqual(machine.target, .playing)
    }

    func testLocalFileWithAutoplayGoesStraightToPlaying() {
        step(.open(autoplay: true, start: nil, mayBeLive: false), [.setPipelineState(.playing), emit(.opening, from: .idle)])
        step(.pipelineState(.paused), [])
        // Repeating the PLAYING request at preroll is harmless; the state waits for PLAYING.
        step(.asyncDone, [.setPipelineState(.playing)])
        XCTAssertEqual(machine.state, .opening, "opening until the pipeline plays")
        step(.pipelineState(.playing), [emit(.playing, from: .opening)])
    }

    func testLocalFileWithStartStillPrerollsFirst() {
        step(.open(autoplay: true, start: 5, mayBeLive: false), [.setPipelineState(.paused), emit(.opening, from: .idle)])
        step(.asyncDone, [.seek(position: 5, exact: false, rate: 1)])
    }

    func testOpenWithoutAutoplayPrerollsPaused() {
        step(.open(autoplay: false, start: nil), [.setPipelineState(.paused), emit(.opening, from: .idle)])
        step(.pipelineState(.ready), [])
        step(.pipelineState(.paused), [])
        XCTAssertEqual(machine.state, .opening, "not prerolled until ASYNC_DONE")
        step(.asyncDone, [emit(.paused, from: .opening)])
    }

    func testOpenWithStartPrerollsPausedSeeksThenPlays() {
        step(.open(autoplay: true, start: 30), [.setPipelineState(.paused), emit(.opening, from: .idle)])
        XCTAssertEqual(machine.pendingSeekTarget, 30)
        step(.pipelineState(.paused), [])
        // Preroll: the queued seek goes out, still opening.
        step(.asyncDone, [seekAction(30)])
        XCTAssertEqual(machine.state, .opening)
        XCTAssertEqual(machine.seekInFlight, .init(position: 30, exact: false))
        XCTAssertNil(machine.queuedSeek)
        // The seek landed: now play.
        step(.asyncDone, [.setPipelineState(.playing)])
        XCTAssertEqual(machine.state, .opening)
        step(.pipelineState(.playing), [emit(.playing, from: .opening)])
    }

    func testOpenWithStartZeroNeedsNoSeek() {
        step(.open(autoplay: true, start: 0), [.setPipelineState(.paused), emit(.opening, from: .idle)])
        XCTAssertNil(machine.queuedSeek)
    }

    func testOpenWithStartWithoutAutoplayEndsPausedAtStart() {
        step(.open(autoplay: false, start: 5), [.setPipelineState(.paused), emit(.opening, from: .idle)])
        step(.pipelineState(.paused), [])
        step(.asyncDone, [seekAction(5), emit(.paused, from: .opening)])
        step(.asyncDone, [])
        XCTAssertEqual(machine.state, .paused)
    }

    func testPauseBeforePrerollEndsPaused() {
        step(.open(autoplay: true, start: nil), [.setPipelineState(.paused), emit(.opening, from: .idle)])
        // PAUSED again even before preroll: a local file may already be heading to PLAYING.
        step(.pause, [.setPipelineState(.paused)])
        XCTAssertEqual(machine.target, .paused)
        step(.pipelineState(.paused), [])
        step(.asyncDone, [emit(.paused, from: .opening)])
    }

    func testLiveSourceDropsTheQueuedStartSeek() {
        step(.open(autoplay: true, start: 30), [.setPipelineState(.paused), emit(.opening, from: .idle)])
        step(.liveSource, [.setPipelineState(.playing)])
        XCTAssertNil(machine.queuedSeek)
        step(.pipelineState(.playing), [emit(.playing, from: .opening)])
    }

    func testLivePausedOpenStaysPaused() {
        step(.open(autoplay: false, start: nil), [.setPipelineState(.paused), emit(.opening, from: .idle)])
        // NO_PREROLL counts as prerolled: paused is what was asked for, reported at once.
        step(.liveSource, [emit(.paused, from: .opening)])
        step(.pipelineState(.paused), [])
    }

    func testReopenWhilePlayingReportsOpeningAgainstPlaying() {
        startPlaying()
        step(.open(autoplay: true, start: nil), [.setPipelineState(.paused), emit(.opening, from: .playing)])
        XCTAssertFalse(machine.prerolled)
        XCTAssertEqual(machine.pipelineState, .null)
    }

    // MARK: Seeking

    func testSeekBeforePrerollIsQueued() {
        step(.open(autoplay: false, start: nil), [.setPipelineState(.paused), emit(.opening, from: .idle)])
        step(.seek(.init(position: 10, exact: true)), [])
        XCTAssertEqual(machine.queuedSeek, .init(position: 10, exact: true))
        XCTAssertNil(machine.seekInFlight)
        XCTAssertEqual(machine.pendingSeekTarget, 10)
        step(.seek(.init(position: 20, exact: false)), [])  // the newer request replaces it
        step(.pipelineState(.paused), [])
        // Wanted paused: the pipeline is where it should be, the seek lands while paused.
        step(.asyncDone, [seekAction(20), emit(.paused, from: .opening)])
        step(.asyncDone, [])
        XCTAssertEqual(machine.state, .paused)
        XCTAssertNil(machine.pendingSeekTarget)
    }

    func testSeeksCoalesceWhileOneIsInFlight() {
        startPlaying()
        step(.seek(.init(position: 10, exact: false)), [seekAction(10)])
        XCTAssertEqual(machine.seekInFlight?.position, 10)
        // A dragged slider: the second and third requests wait; only the latest survives.
        step(.seek(.init(position: 20, exact: false)), [])
        step(.seek(.init(position: 30, exact: true)), [])
        XCTAssertEqual(machine.queuedSeek, .init(position: 30, exact: true))
        XCTAssertEqual(machine.pendingSeekTarget, 30, "relative seeks count from the newest target")
        // The flushing seek drops the pipeline to PAUSED and back; the public state holds.
        step(.pipelineState(.paused), [])
        XCTAssertEqual(machine.state, .playing)
        step(.asyncDone, [seekAction(30, exact: true)])
        XCTAssertEqual(machine.state, .playing)
        XCTAssertNil(machine.queuedSeek)
        step(.asyncDone, [.setPipelineState(.playing)])
        XCTAssertEqual(machine.state, .playing)
        step(.pipelineState(.playing), [])
        XCTAssertEqual(machine.state, .playing)
        XCTAssertNil(machine.seekInFlight)
        XCTAssertNil(machine.pendingSeekTarget)
    }

    func testSeekWhilePausedStaysPaused() {
        step(.open(autoplay: false, start: nil), [.setPipelineState(.paused), emit(.opening, from: .idle)])
        step(.pipelineState(.paused), [])
        step(.asyncDone, [emit(.paused, from: .opening)])
        step(.seek(.init(position: 4, exact: false)), [seekAction(4)])
        XCTAssertEqual(machine.state, .paused)
        step(.asyncDone, [])
        XCTAssertEqual(machine.state, .paused)
    }

    func testSeekUsesTheCurrentRate() {
        startPlaying()
        step(.rateChanged(rate: 2, position: 5), [seekAction(5, exact: true, rate: 2)])
        step(.asyncDone, [])  // the pipeline never left PLAYING
        step(.seek(.init(position: 40, exact: false)), [seekAction(40, rate: 2)])
    }

    // MARK: Pause and play

    func testPauseAndPlayReportTheCommandAtOnce() {
        startPlaying()
        // A reply to `pause` says paused: the state follows the command, the pipeline follows
        // within milliseconds, and its arrival changes nothing more.
        step(.pause, [.setPipelineState(.paused), emit(.paused, from: .playing)])
        step(.pipelineState(.paused), [])
        step(.asyncDone, [])  // PLAYING -> PAUSED posts its own ASYNC_DONE
        XCTAssertEqual(machine.state, .paused)

        step(.play, [.setPipelineState(.playing), emit(.playing, from: .paused)])
        step(.pipelineState(.playing), [])
        XCTAssertEqual(machine.state, .playing)
    }

    func testPauseDuringASeekSaysPausedAndTheSeekLandsPaused() {
        startPlaying()
        step(.seek(.init(position: 12, exact: false)), [seekAction(12)])
        step(.pipelineState(.paused), [])  // the flush
        step(.pause, [.setPipelineState(.paused), emit(.paused, from: .playing)])
        step(.asyncDone, [])
        XCTAssertEqual(machine.state, .paused)
    }

    func testPlayBeforePrerollOnlyChangesTheTarget() {
        step(.open(autoplay: false, start: nil), [.setPipelineState(.paused), emit(.opening, from: .idle)])
        step(.play, [])
        XCTAssertEqual(machine.target, .playing)
        step(.pipelineState(.paused), [])
        step(.asyncDone, [.setPipelineState(.playing)])
        step(.pipelineState(.playing), [emit(.playing, from: .opening)])
    }

    // MARK: Buffering

    func testBufferingPausesAndResumesANonLivePipeline() {
        startPlaying()
        step(.buffering(percent: 40), [.setPipelineState(.paused), emit(.buffering, from: .playing)])
        XCTAssertEqual(machine.bufferingPercent, 40)
        step(.pipelineState(.paused), [])
        step(.buffering(percent: 70), [])
        XCTAssertEqual(machine.state, .buffering)
        // The pipeline is resumed at 100%; the state stays "buffering" until it plays.
        step(.buffering(percent: 100), [.setPipelineState(.playing)])
        XCTAssertEqual(machine.bufferingPercent, 100)
        XCTAssertEqual(machine.state, .buffering)
        step(.pipelineState(.playing), [emit(.playing, from: .buffering)])
    }

    func testBufferingWhilePausedDoesNotTouchThePipeline() {
        step(.open(autoplay: false, start: nil), [.setPipelineState(.paused), emit(.opening, from: .idle)])
        step(.pipelineState(.paused), [])
        step(.asyncDone, [emit(.paused, from: .opening)])
        step(.buffering(percent: 10), [])
        XCTAssertEqual(machine.state, .paused)
        step(.buffering(percent: 100), [])
    }

    func testPlayWhileBufferingWaitsForTheBuffer() {
        step(.open(autoplay: false, start: nil), [.setPipelineState(.paused), emit(.opening, from: .idle)])
        step(.pipelineState(.paused), [])
        step(.asyncDone, [emit(.paused, from: .opening)])
        step(.buffering(percent: 10), [])
        step(.play, [emit(.buffering, from: .paused)])
        step(.buffering(percent: 100), [.setPipelineState(.playing)])
        XCTAssertEqual(machine.state, .buffering)
        step(.pipelineState(.playing), [emit(.playing, from: .buffering)])
    }

    func testBufferingPercentIsClamped() {
        startPlaying()
        _ = machine.handle(.buffering(percent: -5))
        XCTAssertEqual(machine.bufferingPercent, 0)
        _ = machine.handle(.buffering(percent: 250))
        XCTAssertEqual(machine.bufferingPercent, 100)
    }

    func testLiveSourceDoesNotPauseForBuffering() {
        step(.open(autoplay: true, start: nil), [.setPipelineState(.paused), emit(.opening, from: .idle)])
        step(.liveSource, [.setPipelineState(.playing)])  // NO_PREROLL: counts as prerolled, nothing to wait for
        XCTAssertTrue(machine.isLive)
        XCTAssertTrue(machine.prerolled)
        step(.pipelineState(.playing), [emit(.playing, from: .opening)])
        step(.buffering(percent: 20), [])
        XCTAssertEqual(machine.state, .playing)
        step(.buffering(percent: 100), [])
        XCTAssertEqual(machine.state, .playing)
    }

    func testLiveSourceCanBePausedAndIgnoresRateSeeks() {
        step(.open(autoplay: true, start: nil), [.setPipelineState(.paused), emit(.opening, from: .idle)])
        step(.liveSource, [.setPipelineState(.playing)])
        step(.pipelineState(.playing), [emit(.playing, from: .opening)])
        step(.rateChanged(rate: 2, position: 3), [])
        XCTAssertEqual(machine.rate, 2)
        step(.pause, [.setPipelineState(.paused), emit(.paused, from: .playing)])
        step(.pipelineState(.paused), [])
    }

    // MARK: End of stream

    func testEndOfStreamEndsAndPlayRestartsFromZero() {
        startPlaying()
        step(.endOfStream, [emit(.ended, from: .playing)])
        XCTAssertTrue(machine.ended)
        step(.play, [seekAction(0), .setPipelineState(.playing), emit(.playing, from: .ended)])
        XCTAssertFalse(machine.ended)
        XCTAssertEqual(machine.seekInFlight?.position, 0)
        step(.asyncDone, [])
    }

    func testSeekAfterEndClearsEnded() {
        startPlaying()
        step(.endOfStream, [emit(.ended, from: .playing)])
        // The pipeline stayed in PLAYING at the end: a seek plays on from its target.
        step(.seek(.init(position: 10, exact: false)), [seekAction(10), emit(.playing, from: .ended)])
        XCTAssertFalse(machine.ended)
        step(.asyncDone, [])
    }

    func testRepeatOneSeeksToZeroInsteadOfEnding() {
        startPlaying()
        machine.repeatOne = true
        step(.endOfStream, [seekAction(0)])
        XCTAssertFalse(machine.ended)
        XCTAssertEqual(machine.state, .playing)
        step(.asyncDone, [])
        XCTAssertEqual(machine.state, .playing)
    }

    func testRepeatSurvivesAnOpen() {
        machine.repeatOne = true
        startPlaying()
        XCTAssertTrue(machine.repeatOne)
    }

    // MARK: Errors and stop

    func testFailureReleasesThePipelineAndReportsError() {
        startPlaying()
        step(.seek(.init(position: 10, exact: false)), [seekAction(10)])
        step(.seek(.init(position: 20, exact: false)), [])
        let error = APIError(.mediaError, "could not demux")
        step(.failed(error), [.releasePipeline, emit(.error, from: .playing)])
        XCTAssertEqual(machine.error, error)
        XCTAssertNil(machine.seekInFlight)
        XCTAssertNil(machine.queuedSeek)
    }

    func testFailureWhileOpening() {
        step(.open(autoplay: true, start: nil), [.setPipelineState(.paused), emit(.opening, from: .idle)])
        step(.failed(APIError(.notFound, "gone")), [.releasePipeline, emit(.error, from: .opening)])
    }

    func testOpenAfterErrorClearsIt() {
        step(.open(autoplay: true, start: nil), [.setPipelineState(.paused), emit(.opening, from: .idle)])
        step(.failed(APIError(.networkError, "timed out")), [.releasePipeline, emit(.error, from: .opening)])
        step(.open(autoplay: true, start: nil), [.setPipelineState(.paused), emit(.opening, from: .error)])
        XCTAssertNil(machine.error)
    }

    func testStopGoesIdleAndKeepsRate() {
        startPlaying()
        step(.rateChanged(rate: 1.5, position: 2), [seekAction(2, exact: true, rate: 1.5)])
        step(.stop, [emit(.idle, from: .playing)])
        XCTAssertFalse(machine.hasSource)
        XCTAssertFalse(machine.prerolled)
        XCTAssertNil(machine.seekInFlight)
        XCTAssertEqual(machine.rate, 1.5)
        step(.stop, [])
    }

    func testStopWhileOpeningAndWhileEnded() {
        step(.open(autoplay: true, start: 3), [.setPipelineState(.paused), emit(.opening, from: .idle)])
        step(.stop, [emit(.idle, from: .opening)])
        XCTAssertNil(machine.queuedSeek)
        startPlaying()
        step(.endOfStream, [emit(.ended, from: .playing)])
        step(.stop, [emit(.idle, from: .ended)])
    }

    // MARK: Rate

    func testRateChangeIssuesAnExactSeekAtThePosition() {
        startPlaying()
        step(.rateChanged(rate: 2, position: 12.5), [seekAction(12.5, exact: true, rate: 2)])
        XCTAssertEqual(machine.rate, 2)
        XCTAssertEqual(machine.state, .playing)
    }

    func testRateChangeBeforePrerollIsAppliedAtPreroll() {
        step(.open(autoplay: false, start: nil), [.setPipelineState(.paused), emit(.opening, from: .idle)])
        step(.rateChanged(rate: 0.5, position: 0), [])
        XCTAssertEqual(machine.queuedSeek, .init(position: 0, exact: false))
        step(.pipelineState(.paused), [])
        step(.asyncDone, [seekAction(0, rate: 0.5), emit(.paused, from: .opening)])
        step(.asyncDone, [])
        step(.seek(.init(position: 1, exact: false)), [seekAction(1, rate: 0.5)])
    }

    func testRateKeptFromTheLastSourceIsAppliedAtPreroll() {
        startPlaying()
        step(.rateChanged(rate: 1.5, position: 2), [seekAction(2, exact: true, rate: 1.5)])
        step(.stop, [emit(.idle, from: .playing)])
        step(.open(autoplay: true, start: nil), [.setPipelineState(.paused), emit(.opening, from: .idle)])
        XCTAssertEqual(machine.queuedSeek, .init(position: 0, exact: false))
        step(.pipelineState(.paused), [])
        step(.asyncDone, [seekAction(0, rate: 1.5)])
        step(.asyncDone, [.setPipelineState(.playing)])
        step(.pipelineState(.playing), [emit(.playing, from: .opening)])
    }

    func testRateChangeWithoutPositionOnlyStoresTheRate() {
        startPlaying()
        step(.rateChanged(rate: 3, position: nil), [])
        XCTAssertEqual(machine.rate, 3)
    }

    func testRateChangeDuringASeekIsCoalesced() {
        startPlaying()
        step(.seek(.init(position: 10, exact: false)), [seekAction(10)])
        step(.rateChanged(rate: 2, position: 10), [])
        step(.asyncDone, [seekAction(10, exact: true, rate: 2)])
    }

    // MARK: Reconnecting after a network fault

    func testLostSourceReleasesThePipelineAndResumesWhereItWas() {
        startPlaying()
        step(.lostSource(resumeAt: 42), [.setPipelineState(.null), emit(.buffering, from: .playing)])
        XCTAssertTrue(machine.reconnecting)
        XCTAssertFalse(machine.prerolled)
        // Nothing touches the pipeline while it is down: not buffering, not pause.
        step(.buffering(percent: 0), [])
        step(.buffering(percent: 100), [])
        step(.pause, [emit(.paused, from: .buffering)])
        step(.play, [emit(.buffering, from: .paused)])
        step(.retry, [.setPipelineState(.paused)])
        step(.pipelineState(.paused), [])
        // Prerolled again: back to where it was, then playing.
        step(.asyncDone, [seekAction(42)])
        XCTAssertFalse(machine.reconnecting)
        step(.asyncDone, [.setPipelineState(.playing)])
        step(.pipelineState(.playing), [emit(.playing, from: .buffering)])
    }

    func testASeekWhileReconnectingIsWhereItResumes() {
        startPlaying()
        _ = machine.handle(.lostSource(resumeAt: 10))
        step(.seek(.init(position: 30, exact: false)), [])
        XCTAssertEqual(machine.pendingSeekTarget, 30)
        _ = machine.handle(.retry)
        _ = machine.handle(.pipelineState(.paused))
        XCTAssertEqual(pipelineActions(.asyncDone), [seekAction(30)])
    }

    func testALiveSourceComesBackAtItsEdge() {
        step(.open(autoplay: true, start: nil), [.setPipelineState(.paused), emit(.opening, from: .idle)])
        XCTAssertEqual(pipelineActions(.liveSource), [.setPipelineState(.playing)])
        _ = machine.handle(.pipelineState(.playing))
        XCTAssertEqual(pipelineActions(.lostSource(resumeAt: nil)), [.setPipelineState(.null)])
        XCTAssertEqual(pipelineActions(.retry), [.setPipelineState(.paused)])
        XCTAssertEqual(pipelineActions(.liveSource), [.setPipelineState(.playing)])
        XCTAssertFalse(machine.reconnecting)
        XCTAssertNil(machine.pendingSeekTarget)
    }

    func testGivingUpIsAnError() {
        startPlaying()
        _ = machine.handle(.lostSource(resumeAt: 5))
        step(.failed(APIError(.networkError, "gave up")), [.releasePipeline, emit(.error, from: .buffering)])
        XCTAssertFalse(machine.reconnecting)
        // A retry or a late preroll after that changes nothing.
        step(.retry, [])
        XCTAssertEqual(machine.state, .error)
    }
}

/// The backoff and give-up arithmetic of a reconnect, and which segments a probe asks for.
final class SourceRecoveryTests: XCTestCase {
    func testBackoffDoublesToThirtySecondsThenGivesUp() {
        let start = ContinuousClock.now
        var recovery = SourceRecovery(since: start, reason: "HTTP 503")
        var delays: [Double] = []
        for _ in 0..<8 {
            guard let next = recovery.nextAttempt(reason: "HTTP 503", now: start + .seconds(10), giveUpAfter: 120) else { break }
            delays.append(next.delay)
        }
        XCTAssertEqual(delays, [1, 2, 4, 8, 16, 30, 30, 30])
        XCTAssertEqual(recovery.attempts, 8)
        XCTAssertNil(recovery.nextAttempt(reason: "HTTP 503", now: start + .seconds(121), giveUpAfter: 120))
        XCTAssertEqual(recovery.downtime(now: start + .milliseconds(2500)), 2.5, accuracy: 0.001)
    }

    func testARestartThatDoesNotPrerollIsOverdue() {
        let start = ContinuousClock.now
        var recovery = SourceRecovery(since: start, reason: "x")
        XCTAssertFalse(recovery.restartOverdue(now: start + .seconds(60)), "no restart yet")
        recovery.restartedAt = start
        XCTAssertFalse(recovery.restartOverdue(now: start + .seconds(9)))
        XCTAssertTrue(recovery.restartOverdue(now: start + .seconds(11)))
    }

    func testStallWatchCountsTimeWithoutProgress() {
        let start = ContinuousClock.now
        var watch = StallWatch()
        XCTAssertEqual(watch.note(position: 4.0, now: start).still, 0)
        XCTAssertFalse(watch.note(position: 4.0, now: start).moved, "the first note is no progress")
        XCTAssertEqual(watch.note(position: 4.0, now: start + .seconds(3)).still, 3, accuracy: 0.001)
        let moved = watch.note(position: 4.2, now: start + .seconds(4))
        XCTAssertEqual(moved.still, 0)
        XCTAssertTrue(moved.moved)
        XCTAssertEqual(watch.note(position: nil, now: start + .seconds(9)).still, 0, "an unknown position is no stall")
    }

    func testAProbeAsksForTheSegmentsPlaybackNeedsNext() throws {
        func media(_ text: String) throws -> MediaPlaylist {
            guard case .media(let m) = try Playlist.parse(data: Data(text.utf8), url: URL(string: "http://o.example/v/index.m3u8")) else {
                throw XCTSkip("not a media playlist")
            }
            return m
        }
        let segments = (0..<20).map { "#EXTINF:2.0,\nseg\($0).ts" }.joined(separator: "\n")
        let vod = try media("#EXTM3U\n#EXT-X-TARGETDURATION:2\n\(segments)\n#EXT-X-ENDLIST\n")
        XCTAssertEqual(Array(OriginProbe.segmentsAhead(of: 4.5, in: vod)),
                       (2...7).map { "http://o.example/v/seg\($0).ts" }, "from the one playing to 10 s ahead, at most 6")
        XCTAssertEqual(OriginProbe.segmentsAhead(of: 39.9, in: vod).first, "http://o.example/v/seg19.ts")
        XCTAssertTrue(OriginProbe.segmentsAhead(of: 41, in: vod).isEmpty, "past the end: nothing to ask")
        let live = try media("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:100\n\(segments)\n")
        XCTAssertEqual(Array(OriginProbe.segmentsAhead(of: 3, in: live)), ["http://o.example/v/seg18.ts", "http://o.example/v/seg19.ts"])
    }
}
