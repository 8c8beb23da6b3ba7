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
            let pipeline = try file == "composition.pipeline" ? PipelineTemplate.parseBin(text) : PipelineTemplate.parse(text)
            pipeline.setState(.null)
        }
    }

    func testTemplateLibraryFindsTheRepositoryTemplates() throws {
        let found = try TemplateLibrary.text(named: "output")
        let file = try String(contentsOf: Self.pipelinesFolder.appendingPathComponent("output.pipeline"), encoding: .utf8)
        XCTAssertEqual(found, file)
        XCTAssertThrowsError(try TemplateLibrary.text(named: "no-such-template"))
    }

    /// A package upgrade replaces the templates (and the binary) under a running daemon: what
    /// `load` read at start is what it keeps using.
    func testTemplatesAreReadOnceAndKept() throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-pipelines-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        for name in TemplateLibrary.names {
            let text = try String(contentsOf: Self.pipelinesFolder.appendingPathComponent(name + ".pipeline"), encoding: .utf8)
            try ("# the copy read at start\n" + text).write(to: copy.appendingPathComponent(name + ".pipeline"), atomically: true, encoding: .utf8)
        }
        setenv("MARQUEE_PIPELINES", copy.path, 1)
        TemplateLibrary.forget()
        defer {
            unsetenv("MARQUEE_PIPELINES")
            TemplateLibrary.forget()
        }
        try TemplateLibrary.load()
        try FileManager.default.removeItem(at: copy)
        for name in TemplateLibrary.names {
            XCTAssertTrue(try TemplateLibrary.text(named: name).hasPrefix("# the copy read at start"), name)
        }
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

        // No inset shown: no composition, the main video reaches the sink at its own size.
        stage.layout = .init(mainVisible: true, inset: nil, swapped: false)
        let plain = try await eventually(timeout: 10) { stage.currentFrameSize()?.width == 160 && stage.currentFrame() != nil }
        XCTAssertTrue(plain, "size \(String(describing: stage.currentFrameSize()))")
        XCTAssertNil(stage.composition)

        stage.layout = .init(mainVisible: true, inset: Rect(x: 0.5, y: 0.5, width: 0.5, height: 0.5), swapped: false)
        // The sink gets the configured size, whatever the sources' sizes.
        let composed = try await eventually(timeout: 5) { stage.currentFrameSize()?.width == 320 && stage.pendingSplice == nil }
        XCTAssertTrue(composed, "size \(String(describing: stage.currentFrameSize()))")
        XCTAssertEqual(stage.currentFrameSize()?.height, 180)
        XCTAssertNotNil(stage.composition)
        try await assertFramesFlow(stage)

        stage.layout = .init(mainVisible: true, inset: nil, swapped: false)
        let uncomposed = try await eventually(timeout: 5) { stage.currentFrameSize()?.width == 160 && stage.pendingSplice == nil }
        XCTAssertTrue(uncomposed, "size \(String(describing: stage.currentFrameSize()))")
        XCTAssertNil(stage.composition)
        try await assertFramesFlow(stage)

        stage.stop()
        XCTAssertFalse(stage.isRunning)
        XCTAssertNil(stage.currentFrame())
    }

    /// The composition section spliced in and out faster than frames arrive: each change
    /// waits for the previous one, the stage ends in the last layout asked for, and frames
    /// keep reaching the sink (a not-linked push or a flushing pad would stop them).
    @GLibActor
    func testRapidInsetTogglesLeaveFramesFlowing() async throws {
        let stage = OutputStage(videoSink: "fakevideosink")
        try stage.start()
        defer { stage.stop() }
        let main = try feed(stage, channel: stage.mainChannel, pattern: "black")
        let inset = try feed(stage, channel: stage.pipChannel, pattern: "red")
        defer { main.setState(.null); inset.setState(.null) }
        stage.frameSize = VideoSize(width: 320, height: 180, frameRate: (30, 1))
        let corner = Rect(x: 0.5, y: 0.5, width: 0.5, height: 0.5)
        for round in 0..<60 {
            stage.layout = .init(mainVisible: true, inset: round.isMultiple(of: 2) ? corner : nil, swapped: false)
            try await Task.sleep(for: .milliseconds([0, 1, 3, 25][round % 4]))
        }
        stage.layout = .init(mainVisible: true, inset: corner, swapped: false)
        let settled = try await eventually(timeout: 5) { stage.pendingSplice == nil && stage.currentFrameSize()?.width == 320 }
        XCTAssertTrue(settled, "size \(String(describing: stage.currentFrameSize()))")
        XCTAssertNotNil(stage.composition)
        try await assertFramesFlow(stage)
    }

    /// Stopping the stage while a splice is pending (or its probe is running in the streaming
    /// thread) leaves nothing playing: the composition section is not started again after the
    /// pipeline went to NULL (that freed a playing bin and crashed the process).
    @GLibActor
    func testStopWhileASpliceIsPendingLeavesNothingRunning() async throws {
        let corner = Rect(x: 0.5, y: 0.5, width: 0.5, height: 0.5)
        for round in 0..<20 {
            let stage = OutputStage(videoSink: "fakevideosink")
            try stage.start()
            let main = try feed(stage, channel: stage.mainChannel, pattern: "black")
            stage.frameSize = VideoSize(width: 320, height: 180, frameRate: (30, 1))
            stage.layout = .init(mainVisible: true, inset: corner, swapped: false)
            try await Task.sleep(for: .milliseconds(round % 5))
            stage.layout = .init(mainVisible: true, inset: nil, swapped: false)
            try await Task.sleep(for: .milliseconds(round % 3))
            stage.stop()
            main.setState(.null)
            XCTAssertFalse(stage.isRunning)
            XCTAssertNil(stage.composition)
        }
    }

    /// New frames keep arriving at the sink (their timestamps move on).
    @GLibActor
    private func assertFramesFlow(_ stage: OutputStage, file: StaticString = #filePath, line: UInt = #line) async throws {
        let before = stage.currentFrame()?.presentationTime ?? -1
        let moved = try await eventually(timeout: 5) { (stage.currentFrame()?.presentationTime ?? -1) > before + 0.2 }
        XCTAssertTrue(moved, "frames stopped at \(before)", file: file, line: line)
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
