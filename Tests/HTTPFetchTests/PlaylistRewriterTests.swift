import Foundation
@testable import HTTPFetch
import XCTest

final class PlaylistRewriterTests: XCTestCase {
    func testEveryURIIsResolvedAndMappedWithKeysMarked() {
        let playlist = """
        #EXTM3U\r
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="English",URI="audio/en.m3u8"\r
        #EXT-X-KEY:METHOD=AES-128,URI="../keys/k1.bin",IV=0x01
        #EXT-X-MAP:URI="init.mp4"

        #EXTINF:1.0,
        seg0.ts
        #EXTINF:1.0,
        https://cdn2.example/abs/seg1.ts
        #EXT-X-KEY:METHOD=SAMPLE-AES,URI="data:text/plain;base64,AAAA"
        """
        let base = URL(string: "https://cdn.example/v/1/index.m3u8")!
        let out = PlaylistRewriter.rewrite(playlist, base: base) { url, isKey in (isKey ? "K<" : "P<") + url + ">" }
        let lines = out.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        XCTAssertEqual(lines.count, playlist.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).count)
        XCTAssertEqual(lines.first, "#EXTM3U", "the CR of a CRLF line ending goes")
        for expected in [
            #"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="English",URI="P<https://cdn.example/v/1/audio/en.m3u8>""#,
            #"#EXT-X-KEY:METHOD=AES-128,URI="K<https://cdn.example/v/keys/k1.bin>",IV=0x01"#,
            #"#EXT-X-MAP:URI="P<https://cdn.example/v/1/init.mp4>""#,
            "P<https://cdn.example/v/1/seg0.ts>",
            "P<https://cdn2.example/abs/seg1.ts>",
            #"#EXT-X-KEY:METHOD=SAMPLE-AES,URI="data:text/plain;base64,AAAA""#,
        ] {
            XCTAssertTrue(lines.contains(expected), "missing \(expected) in \(lines)")
        }
        XCTAssertFalse(lines.contains("seg0.ts"), "no URI is left pointing at the origin")
    }

    func testLinesWithoutURIsAreUntouched() {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-ENDLIST\n"
        XCTAssertEqual(PlaylistRewriter.rewrite(text, base: URL(string: "http://h/x.m3u8")!) { _, _ in "X" }, text)
    }
}
