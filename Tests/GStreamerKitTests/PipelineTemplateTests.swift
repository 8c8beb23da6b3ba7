import GLibTestSupport
import GStreamerKit
import XCTest

final class PipelineTemplateTests: GStreamerTestCase {
    func testParsesTemplateWithCommentLineAndFindsNamedChild() throws {
        let template = """
            # videotestsrc -> fakesink; named: sink; plugins: videotestsrc, coreelements
            videotestsrc num-buffers=5 !
              # a comment between elements
              fakesink name=sink
            """
        let pipeline = try PipelineTemplate.parse(template)
        defer { pipeline.setState(.null) }
        let sink = try XCTUnwrap(pipeline.child(named: "sink"))
        XCTAssertEqual(sink.name, "sink")
        XCTAssertTrue(sink.hasProperty("sync"))
        XCTAssertNil(pipeline.child(named: "nope"))

        // It is a real pipeline: it prerolls.
        XCTAssertEqual(pipeline.setState(.paused), .async)
        XCTAssertEqual(pipeline.waitForState(timeoutSeconds: 5).1, .paused)
    }

    func testGarbageThrows() {
        XCTAssertThrowsError(try PipelineTemplate.parse("!! ! ! name=")) { error in
            XCTAssertTrue(error is PipelineTemplate.ParseError, "\(error)")
        }
    }

    func testUnknownElementThrows() {
        XCTAssertThrowsError(try PipelineTemplate.parse("videotestsrc ! nosuchelement42 ! fakesink")) { error in
            XCTAssertTrue("\(error)".contains("nosuchelement42"), "\(error)")
        }
    }

    func testUnknownPropertyThrows() {
        // gst_parse_launch returns an element *and* sets an error here.
        XCTAssertThrowsError(try PipelineTemplate.parse("videotestsrc nosuchproperty=1 ! fakesink"))
    }

    func testCommentOnlyTemplateThrows() {
        XCTAssertThrowsError(try PipelineTemplate.parse("# nothing but a comment\n"))
    }
}
