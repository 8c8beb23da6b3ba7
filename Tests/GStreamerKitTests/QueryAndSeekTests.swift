import GLibTestSupport
import GLibRuntime
import GStreamerKit
import TestMedia
import XCTest

final class QueryAndSeekTests: GStreamerTestCase {
    /// Prerolls playbin3 on the 6 s mp4 (keyframe every second) and waits for ASYNC_DONE:
    /// the duration is queryable only then, and a seek before preroll fails.
    @GLibActor
    private func prerolledMP4() async throws -> (Element, EventLog, BusWatch) {
        let playbin = try makePlaybin(try MediaFixtures.mp4())
        let log = EventLog()
        let watch = log.watch(playbin)
        XCTAssertEqual(playbin.setState(.paused), .async)
        let prerolled = try await eventually { log.contains(.asyncDone) || !log.errors.isEmpty }
        XCTAssertTrue(prerolled && log.errors.isEmpty, "no preroll; saw \(log.events)")
        return (playbin, log, watch)
    }

    /// Seeks, then waits for the ASYNC_DONE that completes the flushing seek in PAUSED.
    @GLibActor
    private func seekAndWait(_ playbin: Element, _ log: EventLog, to position: Double,
                             flags: Element.SeekFlags) async throws -> Double? {
        log.removeAll()
        XCTAssertTrue(playbin.seek(to: position, rate: 1, flags: flags))
        let done = try await eventually { log.contains(.asyncDone) }
        XCTAssertTrue(done, "no ASYNC_DONE after seek; saw \(log.events)")
        return playbin.queryPosition()
    }

    @GLibActor
    func testPositionDurationAndSeekableAfterPreroll() async throws {
        let (playbin, _, watch) = try await prerolledMP4()
        defer { watch.stop(); playbin.setState(.null) }

        let duration: Double = try XCTUnwrap(playbin.queryDuration())
        XCTAssertEqual(duration, 6.0, accuracy: 0.1)
        let position: Double = try XCTUnwrap(playbin.queryPosition())
        XCTAssertEqual(position, 0, accuracy: 0.05)
        guard let seekable = playbin.querySeekable() else { return XCTFail("not seekable") }
        XCTAssertEqual(seekable.start, 0, accuracy: 0.001)
        // A file's demuxer knows its end.
        XCTAssertEqual(seekable.end, duration, accuracy: 0.1)
    }

    @GLibActor
    func testKeyUnitSeekSnapsToEarlierKeyframe() async throws {
        let (playbin, log, watch) = try await prerolledMP4()
        defer { watch.stop(); playbin.setState(.null) }

        let landed = try await seekAndWait(playbin, log, to: 2.5, flags: [.flush, .keyUnit])
        let position = try XCTUnwrap(landed)
        XCTAssertGreaterThanOrEqual(position, 2.0 - 0.001)
        XCTAssertLessThanOrEqual(position, 2.5)
        XCTAssertTrue(log.errors.isEmpty, "\(log.errors)")
    }

    @GLibActor
    func testAccurateSeekLandsOnTarget() async throws {
        let (playbin, log, watch) = try await prerolledMP4()
        defer { watch.stop(); playbin.setState(.null) }

        let landed = try await seekAndWait(playbin, log, to: 2.5, flags: [.flush, .accurate])
        let position = try XCTUnwrap(landed)
        XCTAssertEqual(position, 2.5, accuracy: 0.05)
        XCTAssertTrue(log.errors.isEmpty, "\(log.errors)")
    }

    func testLivePipelineHasNoDuration() throws {
        let pipeline = try PipelineTemplate.parse("videotestsrc is-live=true ! fakesink")
        defer { pipeline.setState(.null) }
        XCTAssertEqual(pipeline.setState(.playing), .async)
        XCTAssertEqual(pipeline.waitForState(timeoutSeconds: 5).1, .playing)
        XCTAssertNil(pipeline.queryDuration())
        XCTAssertNotNil(pipeline.queryPosition())
        // videotestsrc answers "seekable" with no end: nothing to seek in.
        XCTAssertNil(pipeline.querySeekable())
    }
}
