import GLibTestSupport
import GStreamerKit
import XCTest

final class StateChangeTests: GStreamerTestCase {
    func testNonLivePipelinePausesAsynchronously() throws {
        let pipeline = try PipelineTemplate.parse("videotestsrc num-buffers=5 ! fakesink")
        defer { pipeline.setState(.null) }
        XCTAssertEqual(pipeline.setState(.paused), .async)
        let (result, state) = pipeline.waitForState(timeoutSeconds: 5)
        XCTAssertEqual(result, .success)
        XCTAssertEqual(state, .paused)
        XCTAssertEqual(pipeline.currentState.current, .paused)
        XCTAssertEqual(pipeline.currentState.pending, .voidPending)
    }

    func testLiveSourceGivesNoPreroll() throws {
        let pipeline = try PipelineTemplate.parse("videotestsrc is-live=true ! fakesink")
        defer { pipeline.setState(.null) }
        XCTAssertEqual(pipeline.setState(.paused), .noPreroll)
        let (result, state) = pipeline.waitForState(timeoutSeconds: 5)
        XCTAssertEqual(result, .noPreroll)
        XCTAssertEqual(state, .paused)
    }

    func testNullStateIsImmediate() throws {
        let pipeline = try PipelineTemplate.parse("videotestsrc ! fakesink")
        XCTAssertEqual(pipeline.setState(.ready), .success)
        XCTAssertEqual(pipeline.currentState.current, .ready)
        XCTAssertEqual(pipeline.setState(.null), .success)
        XCTAssertEqual(pipeline.currentState.current, .null)
    }

    func testElementStateOrderAndNames() {
        XCTAssertLessThan(ElementState.null, .ready)
        XCTAssertLessThan(ElementState.paused, .playing)
        XCTAssertEqual(ElementState.playing.description, "playing")
        XCTAssertEqual(ElementState.voidPending.description, "void")
    }
}
