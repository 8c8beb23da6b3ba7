import GLibTestSupport
import GLibRuntime
import GStreamerKit
import TestMedia
import XCTest

/// playbin3 on `mkvWithTracks()`: H.264 video, AAC "en"/"English", AAC "fr"/"French",
/// and an "en" subtitle track, in that order.
final class StreamSelectionTests: GStreamerTestCase {
    @GLibActor
    func testCollectionListsTracksAndSelectionSwitchesAudio() async throws {
        let playbin = try makePlaybin(try MediaFixtures.mkvWithTracks())
        // No text rendering. With GStreamer 1.22.0 and the subtitle track rendered, a
        // switch that also deselects it, followed by set_state(NULL), deadlocked in
        // 5 of 8 runs (streaming threads inside playbin3/decodebin3). The collection
        // still lists the text track.
        playbin.set("flags", nick: "video+audio")
        let log = EventLog()
        let watch = log.watch(playbin)
        defer { watch.stop(); playbin.setState(.null) }

        playbin.setState(.paused)
        let prerolled = try await eventually(timeout: 10) { log.contains(.asyncDone) || !log.errors.isEmpty }
        XCTAssertTrue(prerolled, "no preroll; saw \(log.events)")
        XCTAssertTrue(log.errors.isEmpty, "\(log.errors)")
        let streams = try XCTUnwrap(log.collections.last, "no stream collection; saw \(log.events)")

        let video = streams.filter { $0.kind == .video }
        let audio = streams.filter { $0.kind == .audio }
        let text = streams.filter { $0.kind == .text }
        XCTAssertEqual(streams.map(\.kind), [.video, .audio, .audio, .text], "\(streams)")
        XCTAssertEqual(Set(streams.map(\.id)).count, 4, "stream ids are unique")
        XCTAssertTrue(streams.allSatisfy { !$0.id.isEmpty })
        XCTAssertTrue(streams.allSatisfy { $0.codec != nil }, "\(streams)")
        guard video.count == 1, audio.count == 2, text.count == 1 else { return }
        // Tags reach the streams after the collection message; BusWatch re-reads the
        // collection at ASYNC_DONE, so the last one reported has them all.
        XCTAssertEqual(audio.map(\.language), ["en", "fr"], "\(audio)")
        XCTAssertEqual(audio.map(\.title), ["English", "French"], "\(audio)")
        XCTAssertEqual(text[0].language, "en")

        let (english, french) = (audio[0], audio[1])
        // The default selection: video and the first audio track (decodebin3 also
        // selects the text track, whatever playbin3's flags say).
        let initial = try XCTUnwrap(log.selections.last, "no streams-selected; saw \(log.events)")
        XCTAssertTrue(Set(initial).isSuperset(of: [video[0].id, english.id]), "\(initial)")
        XCTAssertFalse(initial.contains(french.id), "\(initial)")

        // Select after preroll and while playing. With GStreamer 1.22.0, sending
        // select-streams from the collection message (before preroll) deadlocked in
        // playbin3/decodebin3 in 4 of 6 runs, and in PAUSED no streams-selected came
        // within 5 s (no data flows).
        playbin.setState(.playing)
        XCTAssertTrue(playbin.selectStreams([video[0].id, french.id]))
        let switched = try await eventually(timeout: 10) { log.selections.contains { $0.contains(french.id) } }
        XCTAssertTrue(switched, "no selection with \(french.id); saw \(log.selections)")
        let selected = try XCTUnwrap(log.selections.last)
        XCTAssertTrue(Set(selected).isSuperset(of: [video[0].id, french.id]), "\(selected)")
        XCTAssertFalse(selected.contains(english.id), "\(selected)")
        XCTAssertTrue(log.errors.isEmpty, "\(log.errors)")
    }
}
