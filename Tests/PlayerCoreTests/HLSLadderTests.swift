import ControlAPI
import Foundation
import GStreamerKit
import HLS
@testable import PlayerCore
import XCTest

final class HLSLadderTests: XCTestCase {
    let master = """
    #EXTM3U
    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=NO,URI="a/en.m3u8"
    #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="French",LANGUAGE="fr",DEFAULT=YES,URI="a/fr.m3u8"
    #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Deutsch",LANGUAGE="de",URI="s/de.m3u8"
    #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="CC1",INSTREAM-ID="CC1"
    #EXT-X-STREAM-INF:BANDWIDTH=1600000,AVERAGE-BANDWIDTH=1500000,RESOLUTION=960x540,FRAME-RATE=30,CODECS="avc1.4d401f,mp4a.40.2",AUDIO="aud"
    v540/index.m3u8
    #EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=320x180,AUDIO="aud"
    v1/index.m3u8
    #EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,AUDIO="aud"
    v10/index.m3u8
    """

    func ladder() throws -> HLSLadder {
        guard case .master(let m) = try Playlist.parse(master, url: URL(string: "http://h.example/live/master.m3u8")) else {
            throw XCTSkip("not a master")
        }
        return HLSLadder(master: m)
    }

    func testVariantsAreSortedByBandwidthWithStableIDs() throws {
        let l = try ladder()
        XCTAssertEqual(l.variants.map(\.id), ["v1", "v2", "v3"])
        XCTAssertEqual(l.variants.map(\.bandwidth), [300_000, 800_000, 1_600_000])
        XCTAssertEqual(l.variants[2].averageBandwidth, 1_500_000)
        XCTAssertEqual(l.variants[2].width, 960)
        XCTAssertEqual(l.variants[2].frameRate, 30)
        XCTAssertEqual(l.variants[2].codecs, "avc1.4d401f,mp4a.40.2")
        XCTAssertEqual(l.variants[0].audio, "aud")
        XCTAssertEqual(l.firstListedID, "v3", "the demuxer starts on the variant listed first")
        XCTAssertEqual(l.entry(id: "v2")?.url, "http://h.example/live/v10/index.m3u8")
        XCTAssertNil(l.entry(id: "v9"))
    }

    func testDownloadsAreAttributedToTheirVariant() throws {
        let l = try ladder()
        XCTAssertEqual(l.entry(forDownloaded: "http://h.example/live/v1/index.m3u8")?.variant.id, "v1")
        XCTAssertEqual(l.entry(forDownloaded: "http://h.example/live/v1/seg00003.ts")?.variant.id, "v1")
        // "v1/" must not claim "v10/".
        XCTAssertEqual(l.entry(forDownloaded: "http://h.example/live/v10/seg00003.ts")?.variant.id, "v2")
        XCTAssertNil(l.entry(forDownloaded: "http://h.example/live/master.m3u8"))
        XCTAssertNil(l.entry(forDownloaded: "http://other.example/v1/seg.ts"))
    }

    func testRenditionsNameTheirStreams() throws {
        let l = try ladder()
        XCTAssertEqual(l.renditions(.audio).map(\.name), ["English", "French"])
        XCTAssertEqual(l.renditions(.audio).first(where: \.isDefault)?.name, "French")
        let stream = MediaStream(id: "1234/audio-French", kind: .audio)
        let described = l.describe(stream)
        XCTAssertEqual(described.title, "French")
        XCTAssertEqual(described.language, "fr")
        XCTAssertEqual(l.renditions(.text).map(\.name), ["Deutsch"], "closed captions are not tracks")
        let subtitles = l.describe(MediaStream(id: "1234/subtitle-Deutsch", kind: .text))
        XCTAssertEqual(subtitles.title, "Deutsch")
        XCTAssertEqual(subtitles.language, "de")
        // A name is matched with the stream's kind: an audio stream never takes a subtitle's name.
        XCTAssertNil(l.describe(MediaStream(id: "1234/audio-Deutsch", kind: .audio)).title)
        let video = MediaStream(id: "1234/video", kind: .video)
        XCTAssertEqual(l.describe(video), video)
    }
}
