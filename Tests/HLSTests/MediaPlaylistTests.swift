import XCTest
@testable import HLS

final class MediaPlaylistTests: XCTestCase {
    func testBasicVODPlaylist() throws {
        let m = try parseMedia(playlist(
            "#EXTM3U",
            "#EXT-X-TARGETDURATION:10",
            "#EXT-X-VERSION:3",
            "#EXT-X-MEDIA-SEQUENCE:100",
            "#EXT-X-DISCONTINUITY-SEQUENCE:4",
            "#EXT-X-PLAYLIST-TYPE:VOD",
            "#EXTINF:9.009,First, with a comma",
            "first.ts",
            "#EXT-X-DISCONTINUITY",
            "#EXT-X-PROGRAM-DATE-TIME:2014-08-13T13:36:55.250+02:00",
            "#EXTINF:10",
            "https://other.example.com/second.ts",
            "#EXT-X-GAP",
            "#EXTINF:3.003,",
            "third.ts",
            "#EXT-X-ENDLIST"
        ))
        XCTAssertEqual(m.version, 3)
        XCTAssertEqual(m.targetDuration, 10)
        XCTAssertEqual(m.mediaSequence, 100)
        XCTAssertEqual(m.playlistType, .vod)
        XCTAssertTrue(m.endList)
        XCTAssertFalse(m.isLive)
        XCTAssertEqual(m.segments.count, 3)
        XCTAssertEqual(m.totalDuration, 22.012, accuracy: 1e-9)
        XCTAssertEqual(m.segments.map(\.sequence), [100, 101, 102])
        XCTAssertEqual(m.segments.map(\.discontinuitySequence), [4, 5, 5])
        XCTAssertEqual(m.segments[0].title, "First, with a comma")
        XCTAssertEqual(m.segments[0].resolvedURL?.absoluteString, "https://cdn.example.com/live/first.ts")
        XCTAssertNil(m.segments[1].title)
        XCTAssertTrue(m.segments[1].discontinuity)
        XCTAssertEqual(m.segments[1].programDateTime?.timeIntervalSince1970 ?? 0, 1_407_929_815.25, accuracy: 1e-6)
        XCTAssertEqual(m.segments[1].resolvedURL?.absoluteString, "https://other.example.com/second.ts")
        XCTAssertTrue(m.segments[2].gap)
        XCTAssertNil(m.segments[2].key)
    }

    func testLiveWhenNoEndListAndNotVOD() throws {
        let event = try parseMedia(playlist("#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXT-X-PLAYLIST-TYPE:EVENT", "#EXTINF:6,", "a.ts"))
        XCTAssertTrue(event.isLive)
        let empty = try parseMedia(playlist("#EXTM3U", "#EXT-X-TARGETDURATION:6"))
        XCTAssertTrue(empty.isLive)
        XCTAssertEqual(empty.totalDuration, 0)
    }

    func testByteRangesExplicitAndImplicitOffsets() throws {
        let m = try parseMedia(playlist(
            "#EXTM3U",
            "#EXT-X-TARGETDURATION:10",
            "#EXT-X-VERSION:4",
            "#EXTINF:10,",
            "#EXT-X-BYTERANGE:1000@500",
            "main.ts",
            "#EXTINF:10,",
            "#EXT-X-BYTERANGE:2000",
            "main.ts",
            "#EXTINF:10,",
            "#EXT-X-BYTERANGE:300",
            "main.ts",
            "#EXTINF:10,",
            "#EXT-X-BYTERANGE:400@0",
            "other.ts",
            "#EXT-X-ENDLIST"
        ))
        XCTAssertEqual(m.segments.map(\.byteRange), [
            ByteRange(length: 1000, offset: 500),
            ByteRange(length: 2000, offset: 1500),
            ByteRange(length: 300, offset: 3500),
            ByteRange(length: 400, offset: 0),
        ])
    }

    func testImplicitByteRangeOffsetNeedsSameResource() {
        let error = assertPlaylistError(playlist(
            "#EXTM3U", "#EXT-X-TARGETDURATION:10",
            "#EXTINF:10,", "#EXT-X-BYTERANGE:1000@0", "a.ts",
            "#EXTINF:10,", "#EXT-X-BYTERANGE:1000", "b.ts"))
        XCTAssertEqual(error?.line, 7)
        XCTAssertNotNil(assertPlaylistError(playlist(
            "#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:10,", "#EXT-X-BYTERANGE:1000", "a.ts")))
        XCTAssertEqual(assertPlaylistError(playlist(
            "#EXTM3U", "#EXT-X-TARGETDURATION:10", "#EXTINF:10,",
            "#EXT-X-BYTERANGE:10@9223372036854775800", "a.ts"))?.reason, .overflow("10@9223372036854775800"))
    }

    func testKeysChangingMidPlaylist() throws {
        let m = try parseMedia(playlist(
            "#EXTM3U",
            "#EXT-X-TARGETDURATION:8",
            "#EXT-X-MEDIA-SEQUENCE:7794",
            "#EXTINF:8,", "clear.ts",
            #"#EXT-X-KEY:METHOD=AES-128,URI="https://keys.example.com/k1""#,
            "#EXTINF:8,", "a.ts",
            "#EXTINF:8,", "b.ts",
            #"#EXT-X-KEY:METHOD=AES-128,URI="k2.bin",IV=0x000102030405060708090a0b0c0d0e0f"#,
            "#EXTINF:8,", "c.ts",
            "#EXT-X-KEY:METHOD=NONE",
            "#EXTINF:8,", "d.ts",
            #"#EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://fairplay",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1""#,
            #"#EXT-X-KEY:METHOD=SAMPLE-AES,URI="data:text/plain;base64,AAAA",KEYFORMAT="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed""#,
            "#EXTINF:8,", "e.ts"
        ))
        let s = m.segments
        XCTAssertNil(s[0].key)
        XCTAssertNil(s[0].initializationVector)
        XCTAssertEqual(s[1].key?.method, .aes128)
        XCTAssertEqual(s[1].key?.resolvedURL?.absoluteString, "https://keys.example.com/k1")
        XCTAssertNil(s[1].key?.iv)
        XCTAssertEqual(s[1].initializationVector, Key.implicitIV(sequence: 7795))
        XCTAssertEqual(s[1].initializationVector?.suffix(2), [0x1e, 0x73])  // 7795 = 0x1e73
        XCTAssertEqual(s[2].key, s[1].key)
        XCTAssertEqual(s[3].key?.uri, "k2.bin")
        XCTAssertEqual(s[3].key?.resolvedURL?.absoluteString, "https://cdn.example.com/live/k2.bin")
        XCTAssertEqual(s[3].key?.iv, Array(0...15))
        XCTAssertEqual(s[3].initializationVector, Array(0...15))
        XCTAssertEqual(s[4].key?.method, Key.Method.none)
        XCTAssertNil(s[4].initializationVector)
        XCTAssertEqual(s[5].keys.count, 2)
        XCTAssertEqual(s[5].keys.map(\.keyFormat), ["com.apple.streamingkeydelivery", "urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed"])
        XCTAssertEqual(s[5].key?.keyFormatVersions, [1])
    }

    func testKeyErrors() {
        XCTAssertEqual(assertPlaylistError(playlist("#EXTM3U", "#EXT-X-KEY:METHOD=AES-128", "#EXTINF:1,", "a.ts"))?.reason,
                       .missingAttribute(tag: "#EXT-X-KEY", attribute: "URI"))
        XCTAssertNotNil(assertPlaylistError(playlist("#EXTM3U", #"#EXT-X-KEY:METHOD=AES-128,URI="k",IV=0x0102030405060708090a0b0c0d0e0f1011"#)))
        XCTAssertNotNil(assertPlaylistError(playlist("#EXTM3U", #"#EXT-X-KEY:URI="k""#)))
    }

    func testMap() throws {
        let m = try parseMedia(playlist(
            "#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXT-X-VERSION:7",
            #"#EXT-X-MAP:URI="init1.mp4",BYTERANGE="720@0""#,
            "#EXTINF:6,", "s1.m4s",
            "#EXTINF:6,", "s2.m4s",
            #"#EXT-X-MAP:URI="https://init.example.com/init2.mp4""#,
            "#EXTINF:6,", "s3.m4s",
            "#EXT-X-ENDLIST"))
        XCTAssertEqual(m.segments[0].map, MapInfo(uri: "init1.mp4",
                                                  resolvedURL: URL(string: "https://cdn.example.com/live/init1.mp4"),
                                                  byteRange: ByteRange(length: 720, offset: 0)))
        XCTAssertEqual(m.segments[1].map, m.segments[0].map)
        XCTAssertEqual(m.segments[2].map?.uri, "https://init.example.com/init2.mp4")
        XCTAssertNil(m.segments[2].map?.byteRange)
        XCTAssertNotNil(assertPlaylistError(playlist("#EXTM3U", #"#EXT-X-MAP:BYTERANGE="1@0""#)))
    }

    func testExtinfMustBeFollowedByURI() {
        let atEnd = assertPlaylistError(playlist("#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXTINF:6,", "#EXT-X-ENDLIST"))
        XCTAssertEqual(atEnd?.line, 3)
        XCTAssertEqual(atEnd?.reason, .missingURI(tag: "#EXTINF"))
        let twice = assertPlaylistError(playlist("#EXTM3U", "#EXTINF:6,", "#EXTINF:6,", "a.ts"))
        XCTAssertEqual(twice?.line, 2)
        let bare = assertPlaylistError(playlist("#EXTM3U", "#EXT-X-TARGETDURATION:6", "a.ts"))
        XCTAssertEqual(bare?.line, 3)
        XCTAssertEqual(bare?.reason, .unexpectedURI("a.ts"))
    }

    func testLenience() throws {
        // No EXT-X-VERSION, no EXT-X-TARGETDURATION, unknown tags and comments: all accepted.
        let m = try parseMedia(playlist("#EXTM3U", "#EXT-X-UNKNOWN:1", "# comment", "#EXTINF:5", "a.ts"))
        XCTAssertNil(m.version)
        XCTAssertNil(m.targetDuration)
        XCTAssertEqual(m.segments.first?.duration, 5)
    }
}
