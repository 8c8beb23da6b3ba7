import XCTest
import ControlAPI
import GStreamerKit
@testable import PlayerCore

final class TrackListTests: XCTestCase {
    let streams = [
        MediaStream(id: "1234/001", kind: .video, codec: "H.264"),
        MediaStream(id: "1234/002", kind: .audio, language: "en", codec: "AAC"),
        MediaStream(id: "1234/003", kind: .other),
        MediaStream(id: "1234/004", kind: .audio, language: "de", title: "Deutsch"),
        MediaStream(id: "1234/005", kind: .text, language: "fr", codec: "WebVTT"),
    ]

    func testTracksAreNumberedPerKindInCollectionOrder() {
        let tracks = TrackList.tracks(streams: streams, selected: ["1234/001", "1234/004"])
        XCTAssertEqual(tracks.video, [Track(id: "video-1", codec: "H.264", selected: true)])
        XCTAssertEqual(tracks.audio, [
            Track(id: "audio-1", language: "en", codec: "AAC", selected: false),
            Track(id: "audio-2", language: "de", title: "Deutsch", selected: true),
        ])
        XCTAssertEqual(tracks.subtitle, [Track(id: "subtitle-1", language: "fr", codec: "WebVTT", selected: false)])
        XCTAssertEqual(TrackList.tracks(streams: [], selected: []), Tracks())
    }

    func testLookupByShortID() {
        XCTAssertEqual(TrackList.stream(for: "audio-1", kind: .audio, in: streams)?.id, "1234/002")
        XCTAssertEqual(TrackList.stream(for: "audio-2", kind: .audio, in: streams)?.id, "1234/004")
        XCTAssertEqual(TrackList.stream(for: "video-1", kind: .video, in: streams)?.id, "1234/001")
        XCTAssertEqual(TrackList.stream(for: "subtitle-1", kind: .text, in: streams)?.id, "1234/005")
    }

    func testLookupByFullStreamID() {
        XCTAssertEqual(TrackList.stream(for: "1234/004", kind: .audio, in: streams)?.language, "de")
        XCTAssertEqual(TrackList.stream(for: "1234/005", kind: .text, in: streams)?.id, "1234/005")
        // A full id of another kind is not an audio track.
        XCTAssertNil(TrackList.stream(for: "1234/005", kind: .audio, in: streams))
        XCTAssertNil(TrackList.stream(for: "1234/001", kind: .audio, in: streams))
    }

    func testUnknownIDsAreRejected() {
        for id in ["audio-0", "audio-3", "audio--1", "audio-", "audio", "audio-1x", "audio-99999999999999999999",
                   "video-1", "subtitle-1", "Audio-1", "", "1234/999"] {
            XCTAssertNil(TrackList.stream(for: id, kind: .audio, in: streams), id)
        }
        XCTAssertNil(TrackList.stream(for: "subtitle-2", kind: .text, in: streams))
        XCTAssertNil(TrackList.stream(for: "text-1", kind: .text, in: streams))
        XCTAssertNil(TrackList.stream(for: "audio-1", kind: .audio, in: []))
    }
}
