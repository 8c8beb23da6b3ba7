import GLibRuntime
import GStreamerKit
import TestMedia
import XCTest

final class StreamSelectionTests: GStreamerTestCase {
    @GLibActor
    func testCollectionListsTracksAndSelectionSwitchesAudio() async throws {
        let playbin = try makePlaybin(try MediaFixtures.mkvWithTracks())
        let log = EventLog()
        var french: MediaStream?
        var sent = false
        // Select in the handler, on the collection, as an application does: the choice
        // then applies from the first buffer on.
        let watch = BusWatch(pipeline: playbin) { event in
            log.append(event)
            if case let .streamCollection(streams) = event, !sent,
               let fr = streams.first(where: { $0.kind == .audio && $0.language == "fr" }),
               let video = streams.first(where: { $0.kind == .video }) {
                french = fr
                sent = playbin.selectStreams([video.id, fr.id])
            }
        }
        defer { watch.stop(); playbin.setState(.null) }

        playbin.setState(.paused)
        let prerolled = try await eventually(timeout: 10) { log.contains(.asyncDone) || !log.errors.isEmpty }
        XCTAssertTrue(prerolled, "no preroll; saw \(log.events)")
        XCTAssertTrue(log.errors.isEmpty, "\(log.errors)")
        let streams = try XCTUnwrap(log.collections.last, "no stream collection; saw \(log.events)")

        let video = streams.filter { $0.kind == .video }
        let audio = streams.filter { $0.kind == .audio }
        let text = streams.filter { $0.kind == .text }
        XCTAssertEqual(video.count, 1, "\(streams)")
        XCTAssertEqual(audio.count, 2, "\(streams)")
        XCTAssertEqual(text.count, 1, "\(streams)")
        XCTAssertEqual(streams.count, 4, "\(streams)")
        XCTAssertEqual(audio.map(\.language), ["en", "fr"])
        XCTAssertEqual(text.first?.language, "en")
        XCTAssertEqual(audio.map(\.title), ["English", "French"])
        XCTAssertEqual(Set(streams.map(\.id)).count, 4, "stream ids are unique")
        XCTAssertTrue(audio.allSatisfy { $0.codec != nil }, "\(audio)")

        XCTAssertTrue(sent, "select-streams was not accepted")
        let fr = try XCTUnwrap(french)
        let switched = try await eventually(timeout: 10) { log.selections.contains { $0.contains(fr.id) } }
        XCTAssertTrue(switched, "no selection with \(fr.id); saw \(log.selections)")
        let selected = try XCTUnwrap(log.selections.last)
        XCTAssertEqual(Set(selected), [video[0].id, fr.id])
        XCTAssertTrue(log.errors.isEmpty, "\(log.errors)")
    }
}
