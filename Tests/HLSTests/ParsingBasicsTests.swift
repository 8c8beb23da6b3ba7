import XCTest
@testable import HLS

final class ParsingBasicsTests: XCTestCase {
    let lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:4", "", "#EXTINF:4,", "a.ts", "", "#EXT-X-ENDLIST", ""]

    func testCRLFAndBOM() throws {
        let crlf = lines.joined(separator: "\r\n")
        let withBOM = "\u{FEFF}" + crlf
        for text in [lines.joined(separator: "\n"), crlf, withBOM] {
            let m = try parseMedia(text)
            XCTAssertEqual(m.segments.map(\.uri), ["a.ts"])
            XCTAssertTrue(m.endList)
        }
        let data = Data([0xEF, 0xBB, 0xBF]) + Data(crlf.utf8)
        let parsed = try Playlist.parse(data: data, url: nil)
        XCTAssertEqual(parsed.media?.segments.count, 1)
        XCTAssertNil(parsed.media?.segments.first?.resolvedURL)  // relative, and no playlist URL
    }

    func testInvalidUTF8Throws() {
        XCTAssertThrowsError(try Playlist.parse(data: Data([0x23, 0x45, 0xFF, 0xFE]), url: nil)) { error in
            XCTAssertEqual(error as? PlaylistError, PlaylistError(line: 0, reason: .invalidEncoding))
        }
    }

    func testHeaderMustComeFirst() {
        for text in ["", "\n#EXTM3U", "#EXT-X-VERSION:3\n#EXTM3U", "#EXTM3U#EXT-X-STREAM-INF:BANDWIDTH=1\na.m3u8", "EXTM3U"] {
            XCTAssertEqual(assertPlaylistError(text), PlaylistError(line: 1, reason: .missingHeader), text.debugDescription)
        }
    }

    func testMixedPlaylistThrows() {
        let e = assertPlaylistError(playlist("#EXTM3U", "#EXT-X-STREAM-INF:BANDWIDTH=1", "a.m3u8", "#EXTINF:1,", "b.ts"))
        XCTAssertEqual(e?.line, 4)
        XCTAssertEqual(e?.reason, .mixedPlaylist(tag: "#EXTINF"))
    }

    func testURLResolution() throws {
        let base = URL(string: "https://cdn.example.com/a/b/master.m3u8?token=1")
        let cases: [(String, String?)] = [
            ("low/index.m3u8", "https://cdn.example.com/a/b/low/index.m3u8"),
            ("../c/index.m3u8", "https://cdn.example.com/a/c/index.m3u8"),
            ("/root.m3u8", "https://cdn.example.com/root.m3u8"),
            ("//other.example.org/x.m3u8", "https://other.example.org/x.m3u8"),
            ("http://abs.example.net/y.m3u8?q=1#f", "http://abs.example.net/y.m3u8?q=1#f"),
            ("?v=2", "https://cdn.example.com/a/b/master.m3u8?v=2"),
        ]
        for (uri, expected) in cases {
            XCTAssertEqual(URLResolution.resolve(uri, against: base)?.absoluteString, expected, uri)
        }
        XCTAssertEqual(URLResolution.resolve("https://x.example/a.ts", against: nil)?.absoluteString, "https://x.example/a.ts")
        XCTAssertNil(URLResolution.resolve("a.ts", against: nil))
        XCTAssertNil(URLResolution.resolve("", against: base))
    }

    func testValuesAreSendableAndEquatable() throws {
        let a = try Playlist.parse(lines.joined(separator: "\n"), url: nil)
        let b = try Playlist.parse(lines.joined(separator: "\r\n"), url: nil)
        XCTAssertEqual(a, b)
        let sendable: any Sendable = a
        XCTAssertNotNil(sendable)
    }
}
