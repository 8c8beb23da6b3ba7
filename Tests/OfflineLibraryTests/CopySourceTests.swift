import CGStreamer
import Foundation
import GLibRuntime
import GLibTestSupport
import GStreamerKit
import GStreamerSupport
import OfflineLibrary
import TestMedia
import XCTest

/// A file copy read in-process through `marquee-copy://` (marqueecopysrc): playbin3 prerolls
/// it, qtdemux pulls from it (pull mode, as from filesrc), seeks land, and a token nobody
/// published is a clear "not found".
final class CopySourceTests: GStreamerTestCase {
    /// Counts the media's releases: the element holds the copy while it runs.
    final class CountingMedia: RandomAccessMedia, @unchecked Sendable {
        let inner: PlainMedia
        let reads = ManagedCounter()
        init(_ inner: PlainMedia) { self.inner = inner }
        var size: Int64 { inner.size }
        func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            reads.increment()
            return try inner.read(at: offset, into: buffer)
        }
    }

    final class ManagedCounter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func increment() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }

    private func errors(_ events: [BusEvent]) -> [GStreamerError] {
        events.compactMap { event -> GStreamerError? in
            if case .error(let error) = event { return error }
            return nil
        }
    }

    @GLibActor
    private func playbin(_ uri: String) throws -> Element {
        let playbin = try XCTUnwrap(Element(factory: "playbin3"))
        playbin.set("uri", uri)
        playbin.set("video-sink", try XCTUnwrap(Element(factory: "fakevideosink")))
        playbin.set("audio-sink", try XCTUnwrap(Element(factory: "fakeaudiosink")))
        return playbin
    }

    @GLibActor
    func testPlaysAndSeeksAnMP4InPullMode() async throws {
        let media = CountingMedia(try PlainMedia(path: try MediaFixtures.mp4(seconds: 6).path))
        let uri = CopySource.publish(media)
        defer { CopySource.unpublish(uri) }
        XCTAssertTrue(uri.hasPrefix("marquee-copy://"))
        let playbin = try playbin(uri)
        var events: [BusEvent] = []
        let watch = BusWatch(pipeline: playbin) { events.append($0) }
        defer { watch.stop(); playbin.setState(.null) }

        XCTAssertEqual(playbin.setState(.paused), .async)
        var prerolled = try await eventually(timeout: 10) { events.contains(.asyncDone) || !errors(events).isEmpty }
        XCTAssertTrue(prerolled && events.contains(.asyncDone), "no preroll; saw \(events)")
        XCTAssertEqual(try XCTUnwrap(playbin.queryDuration()), 6.0, accuracy: 0.1)
        XCTAssertGreaterThan(media.reads.value, 0)

        // qtdemux activated its sink pad in pull mode: the source's pad is PULL, not PUSH.
        let mode = playbin.pointer.withMemoryRebound(to: GstBin.self, capacity: 1) { cgst_copy_src_pad_mode($0) }
        XCTAssertEqual(mode, GST_PAD_MODE_PULL, "marqueecopysrc's src pad is not in pull mode")

        for (target, flags) in [(2.5, Element.SeekFlags([.flush, .keyUnit])), (4.2, [.flush, .accurate]), (1.0, [.flush, .accurate])] {
            events.removeAll()
            XCTAssertTrue(playbin.seek(to: target, rate: 1, flags: flags))
            prerolled = try await eventually(timeout: 10) { events.contains(.asyncDone) }
            XCTAssertTrue(prerolled, "no ASYNC_DONE after the seek to \(target); saw \(events)")
            let position = try XCTUnwrap(playbin.queryPosition())
            if flags.contains(.keyUnit) {
                XCTAssertGreaterThanOrEqual(position, 2.0 - 0.001)
                XCTAssertLessThanOrEqual(position, 2.5)
            } else {
                XCTAssertEqual(position, target, accuracy: 0.05)
            }
        }
        XCTAssertEqual(errors(events), [])

        // Playing to the end: an EOS, no error.
        events.removeAll()
        XCTAssertTrue(playbin.seek(to: 5.0, rate: 1, flags: [.flush, .keyUnit]))
        playbin.setState(.playing)
        let ended = try await eventually(timeout: 15) { events.contains(.endOfStream) || !errors(events).isEmpty }
        XCTAssertTrue(ended && events.contains(.endOfStream), "no EOS; saw \(events)")
    }

    @GLibActor
    func testAnUnknownTokenIsNotFound() async throws {
        let playbin = try playbin("marquee-copy://0123456789abcdef")
        var events: [BusEvent] = []
        let watch = BusWatch(pipeline: playbin) { events.append($0) }
        defer { watch.stop(); playbin.setState(.null) }
        playbin.setState(.paused)
        let failed = try await eventually(timeout: 10) { !errors(events).isEmpty }
        XCTAssertTrue(failed, "no error; saw \(events)")
        let error = try XCTUnwrap(errors(events).first)
        XCTAssertEqual(error.domain, .resource)
        XCTAssertEqual(error.code, Int32(GST_RESOURCE_ERROR_NOT_FOUND.rawValue))
        XCTAssertTrue(error.message.contains("0123456789abcdef"), error.message)
    }

    /// Unpublished while it plays (the copy deleted): the running element keeps its reference
    /// and plays on; new opens fail; the media goes when the pipeline stops.
    @GLibActor
    func testUnpublishWhilePlayingKeepsTheRunningElementReading() async throws {
        weak var released: CountingMedia?
        let uri: String
        do {
            let media = CountingMedia(try PlainMedia(path: try MediaFixtures.mp4(seconds: 6).path))
            released = media
            uri = CopySource.publish(media)
        }
        let playbin = try playbin(uri)
        var events: [BusEvent] = []
        let watch = BusWatch(pipeline: playbin) { events.append($0) }
        playbin.setState(.paused)
        let prerolled = try await eventually(timeout: 10) { events.contains(.asyncDone) }
        XCTAssertTrue(prerolled, "no preroll; saw \(events)")
        CopySource.unpublish(uri)
        XCTAssertNotNil(released, "the running element still holds the copy")
        events.removeAll()
        XCTAssertTrue(playbin.seek(to: 4.0, rate: 1, flags: [.flush, .accurate]))
        let sought = try await eventually(timeout: 10) { events.contains(.asyncDone) }
        XCTAssertTrue(sought, "no ASYNC_DONE after the seek; saw \(events)")
        watch.stop()
        playbin.setState(.null)
        XCTAssertNil(released, "released once the element stopped")
    }
}
