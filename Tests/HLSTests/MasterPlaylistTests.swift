import XCTest
@testable import HLS

final class MasterPlaylistTests: XCTestCase {
    let text = playlist(
        "#EXTM3U",
        "#EXT-X-VERSION:6",
        "#EXT-X-INDEPENDENT-SEGMENTS",
        "#EXT-X-START:TIME-OFFSET=-12.5,PRECISE=YES",
        #"#EXT-X-SESSION-DATA:DATA-ID="com.example.title",VALUE="Hello, world",LANGUAGE="en""#,
        #"#EXT-X-SESSION-KEY:METHOD=SAMPLE-AES,URI="skd://key1",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1/2""#,
        #"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="audio/en.m3u8""#,
        #"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Deutsch",LANGUAGE="de",ASSOC-LANGUAGE="de-AT",URI="audio/de.m3u8""#,
        #"#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English, forced",FORCED=YES,AUTOSELECT=YES,CHARACTERISTICS="public.accessibility.transcribes-spoken-dialog",URI="https://subs.example.org/en.m3u8""#,
        #"#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="CC1",INSTREAM-ID="CC1""#,
        "",
        "# a comment between the tag and its URI is skipped",
        #"#EXT-X-STREAM-INF:BANDWIDTH=1280000,AVERAGE-BANDWIDTH=1000000,CODECS="avc1.4d401f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=29.970,HDCP-LEVEL=TYPE-0,VIDEO-RANGE=SDR,AUDIO="aac",SUBTITLES="subs",CLOSED-CAPTIONS="cc",NAME="720p""#,
        "# comment",
        "",
        "video/720p.m3u8",
        #"#EXT-X-STREAM-INF:BANDWIDTH=64000,CODECS="mp4a.40.5",CLOSED-CAPTIONS=NONE"#,
        "/audio-only.m3u8",
        #"#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=86000,CODECS="avc1.4d401f",RESOLUTION=1280x720,URI="video/720p-iframes.m3u8""#,
        "#EXT-X-SOMETHING-NEW:ignored=1"
    )

    func testVariants() throws {
        let m = try parseMaster(text)
        XCTAssertEqual(m.version, 6)
        XCTAssertTrue(m.independentSegments)
        XCTAssertEqual(m.start, StartOffset(timeOffset: -12.5, precise: true))
        XCTAssertEqual(m.variants.count, 2)

        let v = m.variants[0]
        XCTAssertEqual(v.uri, "video/720p.m3u8")
        XCTAssertEqual(v.resolvedURL?.absoluteString, "https://cdn.example.com/live/video/720p.m3u8")
        XCTAssertEqual(v.bandwidth, 1_280_000)
        XCTAssertEqual(v.averageBandwidth, 1_000_000)
        XCTAssertEqual(v.codecs, "avc1.4d401f,mp4a.40.2")
        XCTAssertEqual(v.videoCodec, "avc1.4d401f")
        XCTAssertEqual(v.audioCodec, "mp4a.40.2")
        XCTAssertEqual(v.resolution, Resolution(width: 1280, height: 720))
        XCTAssertEqual(v.frameRate, 29.97)
        XCTAssertEqual(v.hdcpLevel, "TYPE-0")
        XCTAssertEqual(v.videoRange, "SDR")
        XCTAssertEqual(v.audio, "aac")
        XCTAssertEqual(v.subtitles, "subs")
        XCTAssertNil(v.video)
        XCTAssertEqual(v.closedCaptions, .group("cc"))
        XCTAssertEqual(v.attributes["NAME"], "720p")

        let audioOnly = m.variants[1]
        XCTAssertEqual(audioOnly.resolvedURL?.absoluteString, "https://cdn.example.com/audio-only.m3u8")
        XCTAssertEqual(audioOnly.closedCaptions, VariantStream.ClosedCaptions.none)
        XCTAssertNil(audioOnly.videoCodec)

        XCTAssertEqual(m.iFrameVariants.count, 1)
        XCTAssertEqual(m.iFrameVariants[0].uri, "video/720p-iframes.m3u8")
        XCTAssertEqual(m.iFrameVariants[0].bandwidth, 86000)
        XCTAssertEqual(m.iFrameVariants[0].resolvedURL?.absoluteString, "https://cdn.example.com/live/video/720p-iframes.m3u8")
    }

    func testRenditionsAndGroups() throws {
        let m = try parseMaster(text)
        XCTAssertEqual(m.renditions.count, 4)
        let audio = m.renditions(inGroup: "aac", type: .audio)
        XCTAssertEqual(audio.map(\.name), ["English", "Deutsch"])
        XCTAssertTrue(audio[0].isDefault)
        XCTAssertTrue(audio[0].autoselect)
        XCTAssertEqual(audio[0].channels, "2")
        XCTAssertEqual(audio[0].resolvedURL?.absoluteString, "https://cdn.example.com/live/audio/en.m3u8")
        XCTAssertFalse(audio[1].isDefault)
        XCTAssertFalse(audio[1].autoselect)
        XCTAssertEqual(audio[1].assocLanguage, "de-AT")

        let subs = m.renditions(inGroup: "subs", type: .subtitles)
        XCTAssertEqual(subs.first?.name, "English, forced")
        XCTAssertEqual(subs.first?.forced, true)
        XCTAssertEqual(subs.first?.resolvedURL?.absoluteString, "https://subs.example.org/en.m3u8")

        let cc = m.renditions(inGroup: "cc", type: .closedCaptions)
        XCTAssertEqual(cc.first?.instreamID, "CC1")
        XCTAssertNil(cc.first?.uri)
        XCTAssertNil(cc.first?.resolvedURL)
        XCTAssertTrue(m.renditions(inGroup: "aac", type: .video).isEmpty)
    }

    func testSessionDataAndKeys() throws {
        let m = try parseMaster(text)
        XCTAssertEqual(m.sessionData, [SessionData(dataID: "com.example.title", value: "Hello, world", language: "en")])
        XCTAssertEqual(m.sessionKeys.count, 1)
        XCTAssertEqual(m.sessionKeys[0].method, .sampleAES)
        XCTAssertEqual(m.sessionKeys[0].uri, "skd://key1")
        XCTAssertEqual(m.sessionKeys[0].keyFormat, "com.apple.streamingkeydelivery")
        XCTAssertEqual(m.sessionKeys[0].keyFormatVersions, [1, 2])
    }

    func testMasterOnlyRenditionsIsAMasterWithNoVariants() throws {
        let m = try parseMaster(playlist("#EXTM3U", #"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="x",URI="a.m3u8""#))
        XCTAssertTrue(m.variants.isEmpty)
        XCTAssertEqual(m.renditions.count, 1)
    }

    func testLenientStreamInf() throws {
        // BANDWIDTH absent (0) or a decimal-float (truncated); PROGRAM-ID kept; blanks after commas.
        let m = try parseMaster(playlist(
            "#EXTM3U",
            "#EXT-X-STREAM-INF:PROGRAM-ID=1, HDCP-LEVEL=NONE",
            "a.m3u8",
            "#EXT-X-STREAM-INF:BANDWIDTH=2560000.6",
            "b.m3u8"))
        XCTAssertEqual(m.variants.map(\.bandwidth), [0, 2_560_000])
        XCTAssertNil(m.variants[0].attributes["BANDWIDTH"])
        XCTAssertEqual(m.variants[0].programID, 1)
        XCTAssertEqual(m.variants[0].hdcpLevel, "NONE")
    }

    func testStreamInfWithoutURIThrows() {
        let e1 = assertPlaylistError(playlist("#EXTM3U", "#EXT-X-STREAM-INF:BANDWIDTH=1"))
        XCTAssertEqual(e1?.line, 2)
        XCTAssertEqual(e1?.reason, .missingURI(tag: "#EXT-X-STREAM-INF"))
        let e2 = assertPlaylistError(playlist("#EXTM3U", "#EXT-X-STREAM-INF:BANDWIDTH=1", "#EXT-X-STREAM-INF:BANDWIDTH=2", "b.m3u8"))
        XCTAssertEqual(e2?.line, 2)
    }

    func testRenditionRequiredAttributes() {
        XCTAssertEqual(assertPlaylistError(playlist("#EXTM3U", #"#EXT-X-MEDIA:TYPE=AUDIO,NAME="x""#))?.reason,
                       .missingAttribute(tag: "#EXT-X-MEDIA", attribute: "GROUP-ID"))
        XCTAssertEqual(assertPlaylistError(playlist("#EXTM3U", #"#EXT-X-MEDIA:TYPE=SOUND,GROUP-ID="g",NAME="x""#))?.reason,
                       .invalidAttributeValue(tag: "#EXT-X-MEDIA", attribute: "TYPE", value: "SOUND"))
        XCTAssertNotNil(assertPlaylistError(playlist("#EXTM3U", #"#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1"#)))
    }
}
