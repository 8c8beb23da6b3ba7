import ControlAPI
import Foundation
import GLibRuntime
import GLibTestSupport
import GStreamerKit
@testable import PlayerCore
import XCTest

/// The output stage on real pipelines: every template parses, and frames fed over the
/// stage's channels come out composed at the sink (read back through `currentFrame`).
final class OutputStageTests: GStreamerTestCase {
    static let pipelinesFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("pipelines")

    func testEveryTemplateParses() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.pipelinesFolder.path).filter { $0.hasSuffix(".pipeline") }
        XCTAssertFalse(files.isEmpty)
        for file in files {
            let text = try String(contentsOf: Self.pipelinesFolder.appendingPathComponent(file), encoding: .utf8)
            XCTAssertTrue(text.hasPrefix("#"), "\(file) opens with a comment")
            let pipeline = try PipelineTemplate.parse(text)
            pipeline.setState(.null)
        }
    }

    func testTemplateLibraryFindsTheRepositoryTemplates() throws {
        let found = try TemplateLibrary.text(named: "output")
        let file = try String(contentsOf: Self.pipelinesFolder.appendingPathComponent("output.pipeline"), encoding: .utf8)
        XCTAssertEqual(found, file)
        XCTAssertThrowsError(try TemplateLibrary.text(named: "no-such-template"))
    }

    @GLibActor
    func testComposesTheMainVideoAndTheInsetAtTheSink() async throws {
        let stage = OutputStage(videoSink: "fakevideosink")
        try stage.start()
        defer { stage.stop() }
        XCTAssertTrue(stage.isRunning)
        let main = try feed(stage, channel: stage.mainChannel, pattern: "black")
        let inset = try feed(stage, channel: stage.pipChannel, pattern: "red")
        defer { main.setState(.null); inset.setState(.null) }
        stage.frameSize = VideoSize(width: 320, height: 180, frameRate: (30, 1))
        stage.layout = .init(mainVisible: true, inset: Rect(x: 0.5, y: 0.5, width: 0.5, height: 0.5), swapped: false)

        let composed = try await eventually(timeout: 10) { stage.currentFrame()?.jpeg() != nil }
        XCTAssertTrue(composed, "a frame reached the sink")
        // The sink gets the configured size, whatever the sources' sizes.
        let resized = try await eventually(timeout: 5) { stage.currentFrameSize()?.width == 320 }
        XCTAssertTrue(resized, "size \(String(describing: stage.currentFrameSize()))")
        XCTAssertEqual(stage.currentFrameSize()?.height, 180)
        stage.stop()
        XCTAssertFalse(stage.isRunning)
        XCTAssertNil(stage.currentFrame())
    }

    /// A live test pattern into one of the stage's channels.
    @GLibActor
    private func feed(_ stage: OutputStage, channel: String, pattern: String) throws -> Element {
        let pipeline = Element.pipeline(name: "feed-\(pattern)")
        let source = try XCTUnwrap(Element(factory: "videotestsrc"))
        source.set("is-live", true)
        source.set("pattern", nick: pattern)
        let caps = try XCTUnwrap(Element(factory: "capsfilter"))
        caps.set("caps", capsString: "video/x-raw,width=160,height=90,framerate=30/1")
        let sink = try stage.makeSourceSink(channel: channel)
        pipeline.add(source, caps, sink)
        XCTAssertTrue(Element.link([source, caps, sink]))
        XCTAssertNotEqual(pipeline.setState(.playing), .failure)
        return pipeline
    }
}
