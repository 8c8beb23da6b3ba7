import GLibTestSupport
import GLibRuntime
import GStreamerKit
import TestMedia
import XCTest

final class BusWatchTests: GStreamerTestCase {
    @GLibActor
    func testStateChangesAsyncDoneAndEndOfStream() async throws {
        let pipeline = try PipelineTemplate.parse("videotestsrc num-buffers=10 ! fakesink sync=false")
        let log = EventLog()
        let watch = log.watch(pipeline)
        defer { watch.stop(); pipeline.setState(.null) }

        XCTAssertEqual(pipeline.setState(.playing), .async)
        let ended = try await eventually { log.contains(.endOfStream) }
        XCTAssertTrue(ended, "no EOS; saw \(log.events)")

        // Only the pipeline's own transitions: its children's are filtered out.
        let transitions = log.stateChanges.map { "\($0.old)->\($0.new)" }
        XCTAssertEqual(transitions, ["null->ready", "ready->paused", "paused->playing"])
        XCTAssertTrue(log.contains(.asyncDone))
        let asyncDone = try XCTUnwrap(log.events.firstIndex(of: .asyncDone))
        let eos = try XCTUnwrap(log.events.firstIndex(of: .endOfStream))
        XCTAssertLessThan(asyncDone, eos)
        XCTAssertTrue(log.errors.isEmpty, "\(log.errors)")
    }

    @GLibActor
    func testMissingFileIsResourceNotFound() async throws {
        let pipeline = try PipelineTemplate.parse("filesrc name=src location=/nonexistent ! fakesink")
        let log = EventLog()
        let watch = log.watch(pipeline)
        defer { watch.stop(); pipeline.setState(.null) }

        XCTAssertEqual(pipeline.setState(.paused), .failure)
        let failed = try await eventually { !log.errors.isEmpty }
        XCTAssertTrue(failed, "no error; saw \(log.events)")
        let error = try XCTUnwrap(log.errors.first)
        XCTAssertEqual(error.domain, .resource)
        XCTAssertTrue(error.isResourceNotFound, "\(error)")
        XCTAssertFalse(error.isMissingPlugin)
        XCTAssertEqual(error.source, "src")
        XCTAssertFalse(error.message.isEmpty)
        XCTAssertTrue(error.debug?.contains("/nonexistent") ?? false, "\(error.debug ?? "nil")")
    }

    @GLibActor
    func testGarbageFileIsStreamError() async throws {
        let playbin = try makePlaybin(try MediaFixtures.garbage())
        let log = EventLog()
        let watch = log.watch(playbin)
        defer { watch.stop(); playbin.setState(.null) }

        playbin.setState(.paused)
        let failed = try await eventually { !log.errors.isEmpty }
        XCTAssertTrue(failed, "no error; saw \(log.events)")
        let error = try XCTUnwrap(log.errors.first)
        XCTAssertEqual(error.domain, .stream, "\(error)")
        XCTAssertFalse(error.isResourceNotFound)
        XCTAssertFalse(log.contains(.asyncDone))
    }

    @GLibActor
    func testStopEndsDelivery() async throws {
        let pipeline = try PipelineTemplate.parse("videotestsrc num-buffers=10 ! fakesink sync=false")
        let log = EventLog()
        let watch = log.watch(pipeline)
        defer { pipeline.setState(.null) }

        XCTAssertEqual(pipeline.setState(.ready), .success)
        let readied = try await eventually { !log.stateChanges.isEmpty }
        XCTAssertTrue(readied, "the watch delivers before stop()")
        watch.stop()
        watch.stop()  // idempotent
        log.removeAll()

        // Run the pipeline to its end: nothing more may arrive.
        pipeline.setState(.playing)
        XCTAssertEqual(pipeline.waitForState(timeoutSeconds: 5).1, .playing)
        try await Task.sleep(for: .milliseconds(200))
        XCTAssertEqual(log.events, [])
    }
}
