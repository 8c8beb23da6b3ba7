import XCTest
@testable import HLS

final class VariableSubstitutionTests: XCTestCase {
    func testDefineInMaster() throws {
        let m = try parseMaster(playlist(
            "#EXTM3U",
            #"#EXT-X-DEFINE:NAME="host",VALUE="media.example.com""#,
            #"#EXT-X-DEFINE:NAME="codec",VALUE="avc1.64001f""#,
            #"#EXT-X-DEFINE:NAME="nested",VALUE="{$codec}-x""#,
            #"#EXT-X-DEFINE:NAME="two",VALUE="2""#,
            #"#EXT-X-SESSION-KEY:METHOD=AES-128,URI="https://{$host}/key",IV=0x0{$two}"#,
            #"#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS="{$codec},mp4a.40.2",NAME="{$nested}""#,
            "https://{$host}/v{$two}/index.m3u8",
            "#EXT-X-STREAM-INF:BANDWIDTH=2",
            "literal-{$-not a reference-}{$}.m3u8"
        ))
        XCTAssertEqual(m.definitions, ["host": "media.example.com", "codec": "avc1.64001f", "nested": "avc1.64001f-x", "two": "2"])
        XCTAssertEqual(m.variants[0].uri, "https://media.example.com/v2/index.m3u8")
        XCTAssertEqual(m.variants[0].codecs, "avc1.64001f,mp4a.40.2")
        XCTAssertEqual(m.variants[0].attributes["NAME"], "avc1.64001f-x")
        XCTAssertEqual(m.variants[1].uri, "literal-{$-not a reference-}{$}.m3u8")
        XCTAssertEqual(m.sessionKeys[0].uri, "https://media.example.com/key")
        XCTAssertEqual(m.sessionKeys[0].iv, Array(repeating: 0, count: 15) + [2])
    }

    func testUndefinedVariableThrows() {
        let e = assertPlaylistError(playlist("#EXTM3U", "#EXTINF:1,", "{$nope}/a.ts"))
        XCTAssertEqual(e?.line, 3)
        XCTAssertEqual(e?.reason, .undefinedVariable("nope"))
        // Used before its definition: also undefined.
        XCTAssertEqual(assertPlaylistError(playlist(
            "#EXTM3U", #"#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS="{$c}""#, "a.m3u8", #"#EXT-X-DEFINE:NAME="c",VALUE="x""#))?.reason,
            .undefinedVariable("c"))
    }

    func testDefineErrors() {
        XCTAssertEqual(assertPlaylistError(playlist(
            "#EXTM3U", #"#EXT-X-DEFINE:NAME="a",VALUE="1""#, #"#EXT-X-DEFINE:NAME="a",VALUE="2""#))?.reason,
            .duplicateVariable("a"))
        XCTAssertNotNil(assertPlaylistError(playlist("#EXTM3U", #"#EXT-X-DEFINE:NAME="a b",VALUE="1""#)))
        XCTAssertNotNil(assertPlaylistError(playlist("#EXTM3U", #"#EXT-X-DEFINE:NAME="a""#)))
        XCTAssertNotNil(assertPlaylistError(playlist("#EXTM3U", #"#EXT-X-DEFINE:NAME="a",VALUE="1",IMPORT="b""#)))
    }

    func testImportFromParentMaster() throws {
        let text = playlist("#EXTM3U", #"#EXT-X-DEFINE:IMPORT="token""#, "#EXTINF:4,", "seg.ts?auth={$token}")
        let m = try parseMedia(text, importing: ["token": "abc123", "unused": "x"])
        XCTAssertEqual(m.segments[0].uri, "seg.ts?auth=abc123")
        XCTAssertEqual(m.definitions, ["token": "abc123"])
        XCTAssertEqual(assertPlaylistError(text)?.reason, .undefinedVariable("token"))
    }

    func testQueryParam() throws {
        let text = playlist("#EXTM3U", #"#EXT-X-DEFINE:QUERYPARAM="session""#, "#EXTINF:4,", "seg.ts?s={$session}")
        let m = try parseMedia(text, url: "https://cdn.example.com/index.m3u8?session=xyz%20q&other=1")
        XCTAssertEqual(m.segments[0].uri, "seg.ts?s=xyz q")
        XCTAssertNotNil(assertPlaylistError(text, url: URL(string: "https://cdn.example.com/index.m3u8")))
    }
}
