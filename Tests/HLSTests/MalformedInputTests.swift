import XCTest
@testable import HLS

final class MalformedInputTests: XCTestCase {
    /// Each of these must throw a PlaylistError (and not trap).
    let malformed: [(String, String)] = [
        ("empty", ""),
        ("no header", "#EXTINF:1,\na.ts"),
        ("header not first", "\n#EXTM3U"),
        ("extinf without uri", "#EXTM3U\n#EXTINF:1,"),
        ("extinf negative", "#EXTM3U\n#EXTINF:-1,\na.ts"),
        ("extinf nan", "#EXTM3U\n#EXTINF:nan,\na.ts"),
        ("extinf inf", "#EXTM3U\n#EXTINF:inf,\na.ts"),
        ("extinf huge", "#EXTM3U\n#EXTINF:" + String(repeating: "9", count: 400) + ",\na.ts"),
        ("extinf empty", "#EXTM3U\n#EXTINF:\na.ts"),
        ("uri without extinf", "#EXTM3U\n#EXT-X-TARGETDURATION:1\na.ts"),
        ("target duration text", "#EXTM3U\n#EXT-X-TARGETDURATION:ten"),
        ("target duration overflow", "#EXTM3U\n#EXT-X-TARGETDURATION:99999999999999999999999"),
        ("media sequence negative", "#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:-1"),
        ("media sequence overflow", "#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:9223372036854775808"),
        ("sequence + index overflow", "#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:9223372036854775807\n#EXTINF:1,\na\n#EXTINF:1,\nb"),
        ("playlist type", "#EXTM3U\n#EXT-X-PLAYLIST-TYPE:LIVE"),
        ("version text", "#EXTM3U\n#EXT-X-VERSION:three"),
        ("byterange garbage", "#EXTM3U\n#EXTINF:1,\n#EXT-X-BYTERANGE:abc\na.ts"),
        ("byterange bad offset", "#EXTM3U\n#EXTINF:1,\n#EXT-X-BYTERANGE:10@\na.ts"),
        ("byterange overflow", "#EXTM3U\n#EXTINF:1,\n#EXT-X-BYTERANGE:9223372036854775807@1\na.ts"),
        ("map overflow", "#EXTM3U\n#EXT-X-MAP:URI=\"i\",BYTERANGE=\"9223372036854775807@9\""),
        ("key no method", "#EXTM3U\n#EXT-X-KEY:URI=\"k\""),
        ("key no attributes", "#EXTM3U\n#EXT-X-KEY"),
        ("key iv not hex", "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\",IV=[IV]"),
        ("key unterminated", "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"k"),
        ("keyformatversions", "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\",KEYFORMATVERSIONS=\"1/x\""),
        ("program date time", "#EXTM3U\n#EXT-X-PROGRAM-DATE-TIME:yesterday\n#EXTINF:1,\na"),
        ("stream-inf without uri", "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1"),
        ("stream-inf no attributes", "#EXTM3U\n#EXT-X-STREAM-INF:\na.m3u8"),
        ("stream-inf bad resolution", "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=wide\na.m3u8"),
        ("stream-inf bad bandwidth", "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=lots\na.m3u8"),
        ("stream-inf bandwidth overflow", "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1e400\na.m3u8"),
        ("stream-inf bandwidth float overflow", "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=" + String(repeating: "9", count: 30) + ".5\na.m3u8"),
        ("master uri without stream-inf", "#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"b\"\nx.m3u8"),
        ("media missing name", "#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\""),
        ("media bad default", "#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"b\",DEFAULT=yes"),
        ("session-data without id", "#EXTM3U\n#EXT-X-SESSION-DATA:VALUE=\"v\""),
        ("start without offset", "#EXTM3U\n#EXT-X-START:PRECISE=YES"),
        ("start offset text", "#EXTM3U\n#EXT-X-START:TIME-OFFSET=soon"),
        ("mixed", "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-STREAM-INF:BANDWIDTH=1\na.m3u8"),
        ("undefined variable", "#EXTM3U\n#EXTINF:1,\n{$x}.ts"),
        ("attribute without value separator", "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH\na.m3u8"),
    ]

    func testMalformedInputsThrowPlaylistError() {
        for (name, text) in malformed {
            do {
                let parsed = try Playlist.parse(text, url: URL(string: "https://example.com/p.m3u8"))
                XCTFail("\(name): parsed as \(parsed)")
            } catch let error as PlaylistError {
                XCTAssertGreaterThanOrEqual(error.line, 1, name)
                XCTAssertFalse(error.description.isEmpty, name)
            } catch {
                XCTFail("\(name): not a PlaylistError: \(error)")
            }
        }
    }

    // MARK: - Fuzz

    /// SplitMix64: small, seeded, the same sequence on every platform.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let seedMaster = playlist(
        "#EXTM3U",
        "#EXT-X-VERSION:7",
        #"#EXT-X-DEFINE:NAME="h",VALUE="cdn.example.com""#,
        "#EXT-X-START:TIME-OFFSET=-3.5,PRECISE=NO",
        #"#EXT-X-SESSION-DATA:DATA-ID="t",VALUE="x, y""#,
        #"#EXT-X-SESSION-KEY:METHOD=SAMPLE-AES,URI="skd://k",KEYFORMATVERSIONS="1/2",IV=0x0102"#,
        #"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="En",DEFAULT=YES,AUTOSELECT=NO,URI="en.m3u8""#,
        #"#EXT-X-STREAM-INF:BANDWIDTH=1280000,AVERAGE-BANDWIDTH=1000000.5,CODECS="avc1.4d401f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=29.97,AUDIO="a",CLOSED-CAPTIONS=NONE"#,
        "https://{$h}/v/720.m3u8",
        #"#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=86000,URI="iframe.m3u8""#
    )

    static let seedMedia = playlist(
        "#EXTM3U",
        "#EXT-X-TARGETDURATION:10",
        "#EXT-X-MEDIA-SEQUENCE:9223372036854775800",
        "#EXT-X-DISCONTINUITY-SEQUENCE:3",
        "#EXT-X-PLAYLIST-TYPE:EVENT",
        #"#EXT-X-KEY:METHOD=AES-128,URI="k.bin",IV=0x000102030405060708090a0b0c0d0e0f"#,
        #"#EXT-X-MAP:URI="init.mp4",BYTERANGE="720@0""#,
        "#EXT-X-PROGRAM-DATE-TIME:2020-01-01T00:00:00.5Z",
        "#EXTINF:9.5,title",
        "#EXT-X-BYTERANGE:1000@720",
        "seg.mp4",
        "#EXT-X-DISCONTINUITY",
        "#EXTINF:9.5,",
        "#EXT-X-BYTERANGE:1000",
        "seg.mp4",
        "#EXT-X-GAP",
        "#EXTINF:1,",
        "gap.mp4",
        "#EXT-X-ENDLIST"
    )

    static let fragments = [",", "\"", "=", ":", "@", "#", "\n", "\r\n", "0x", "-", ".", "{$", "}", "{$h}", "{$x}",
                            "99999999999999999999", "9223372036854775807", "1e400", "nan", "x", " ", "\u{FEFF}",
                            "\u{0}", "é", "#EXTINF:1,", "#EXT-X-STREAM-INF:BANDWIDTH=1", "#EXT-X-ENDLIST",
                            "#EXT-X-BYTERANGE:5", "#EXT-X-KEY:METHOD=NONE", "YES", "NONE", "A=\"", "\\"]

    static func mutate(_ text: String, using rng: inout SeededGenerator) -> String {
        var scalars = Array(text.unicodeScalars)
        var lines = text.components(separatedBy: "\n")
        switch rng.next() % 8 {
        case 0:  // delete a character
            if !scalars.isEmpty { scalars.remove(at: Int(rng.next() % UInt64(scalars.count))) }
            return String(String.UnicodeScalarView(scalars))
        case 1, 2:  // insert a fragment
            let at = scalars.isEmpty ? 0 : Int(rng.next() % UInt64(scalars.count + 1))
            let fragment = fragments[Int(rng.next() % UInt64(fragments.count))]
            scalars.insert(contentsOf: fragment.unicodeScalars, at: at)
            return String(String.UnicodeScalarView(scalars))
        case 3:  // replace a character
            if !scalars.isEmpty {
                let at = Int(rng.next() % UInt64(scalars.count))
                scalars[at] = Unicode.Scalar(UInt8(truncatingIfNeeded: rng.next() % 128))
            }
            return String(String.UnicodeScalarView(scalars))
        case 4:  // delete a line
            if !lines.isEmpty { lines.remove(at: Int(rng.next() % UInt64(lines.count))) }
        case 5:  // duplicate a line
            if !lines.isEmpty {
                let i = Int(rng.next() % UInt64(lines.count))
                lines.insert(lines[i], at: Int(rng.next() % UInt64(lines.count + 1)))
            }
        case 6:  // swap two lines
            if lines.count > 1 {
                lines.swapAt(Int(rng.next() % UInt64(lines.count)), Int(rng.next() % UInt64(lines.count)))
            }
        default:  // truncate
            if !scalars.isEmpty {
                return String(String.UnicodeScalarView(scalars.prefix(Int(rng.next() % UInt64(scalars.count)))))
            }
        }
        return lines.joined(separator: "\n")
    }

    func testSeededFuzzNeverTraps() {
        var rng = SeededGenerator(state: 0x4D61_7271_7565_6521)
        var parsed = 0
        var thrown = 0
        for i in 0..<2000 {
            var text = i % 2 == 0 ? Self.seedMaster : Self.seedMedia
            for _ in 0...(rng.next() % 4) { text = Self.mutate(text, using: &rng) }
            do {
                _ = try Playlist.parse(text, url: URL(string: "https://example.com/a/p.m3u8?x=1"), importing: ["h": "i"])
                _ = try Playlist.parse(data: Data(text.utf8), url: nil)
                parsed += 1
            } catch is PlaylistError {
                thrown += 1
            } catch {
                XCTFail("mutation \(i) threw a non-PlaylistError: \(error)")
            }
        }
        XCTAssertEqual(parsed + thrown, 2000)
        // Both outcomes must be exercised, or the fuzz loop is not testing much.
        XCTAssertGreaterThan(parsed, 100)
        XCTAssertGreaterThan(thrown, 100)
    }

    func testRandomBytesNeverTrap() {
        var rng = SeededGenerator(state: 42)
        for _ in 0..<300 {
            var bytes = Array("#EXTM3U\n".utf8)
            for _ in 0..<(rng.next() % 200) { bytes.append(UInt8(truncatingIfNeeded: rng.next())) }
            do { _ = try Playlist.parse(data: Data(bytes), url: nil) } catch is PlaylistError {} catch {
                XCTFail("non-PlaylistError: \(error)")
            }
        }
    }
}
