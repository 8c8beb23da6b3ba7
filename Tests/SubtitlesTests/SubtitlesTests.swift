import Foundation
import XCTest
@testable import Subtitles

final class SubtitlesTests: XCTestCase {
    private func parse(_ text: String, _ format: SubtitleFormat? = nil) throws -> SubtitleDocument {
        try SubtitleDocument.parse(Data(text.utf8), format: format)
    }

    // MARK: SRT

    func testSRTBasic() throws {
        let doc = try parse("1\n00:00:01,000 --> 00:00:02,500\nHello\n<i>world</i>\n\n2\n00:01:00,000 --> 01:00:00,001\nBye\n", .srt)
        XCTAssertEqual(doc.format, .srt)
        XCTAssertEqual(doc.cues, [
            Cue(start: 1, end: 2.5, text: "Hello\n<i>world</i>", id: "1"),
            Cue(start: 60, end: 3600.001, text: "Bye", id: "2"),
        ])
        XCTAssertEqual(doc.cues[0].plainText, "Hello\nworld")
    }

    func testSRTVariants() throws {
        // '.' separator, no index, missing blank line, CRLF, trailing coordinates, short fraction.
        let text = "00:00:01.000 --> 00:00:02.000 X1:10 X2:20\r\nA\r\n2\r\n00:00:03,5 --> 00:00:04,000\r\nB\r\n00:00:05,000 --> 00:00:06,000\r\nC"
        let cues = try parse(text, .srt).cues
        XCTAssertEqual(cues.map(\.text), ["A", "B", "C"])
        XCTAssertEqual(cues.map(\.id), [nil, "2", nil])
        XCTAssertEqual(cues[1].start, 3.5, accuracy: 1e-9)
        // Blank cue text and a block without timing line are tolerated.
        let sloppy = try parse("1\n00:00:01,000 --> 00:00:02,000\n\n\n2\nno timing\n\n3\n00:00:03,000 --> 00:00:04,000\nC\n", .srt).cues
        XCTAssertEqual(sloppy.map(\.text), ["", "C"])
        XCTAssertEqual(try parse("  \n\n", .srt).cues, [])
    }

    func testSRTErrors() {
        XCTAssertThrowsError(try parse("1\nsome text\n", .srt)) { error in
            XCTAssertEqual(error as? SubtitleError, .noCues(.srt, "no timing line of the form \"00:00:01,000 --> 00:00:02,000\" found"))
            XCTAssertTrue("\(error)".contains("srt"))
        }
        XCTAssertThrowsError(try parse("1\n00:61:00,000 --> 00:62:00,000\nX\n", .srt))
    }

    // MARK: WebVTT

    func testWebVTTBasicIdsSettingsAndBlocks() throws {
        let text = """
        WEBVTT - a title
        Kind: captions

        STYLE
        ::cue { color: red }

        NOTE a comment
        spanning lines

        REGION
        id:r1

        intro
        00:01.000 --> 00:02.000 align:start line:0
        <v Roger>Hi</v> <c.loud>there</c> &amp; you

        00:00:03.000 --> 00:00:04.000
        Two
        lines

        bad
        00:05.000 --> 00:xx.000
        dropped

        01:00:05.000-->01:00:06.000
        Last
        """
        let doc = try parse(text)
        XCTAssertEqual(doc.format, .webvtt)
        XCTAssertEqual(doc.cues, [
            Cue(start: 1, end: 2, text: "<v Roger>Hi</v> <c.loud>there</c> &amp; you", id: "intro", settings: "align:start line:0"),
            Cue(start: 3, end: 4, text: "Two\nlines"),
            Cue(start: 3605, end: 3606, text: "Last"),
        ])
        XCTAssertEqual(doc.cues[0].plainText, "Hi there & you")
    }

    func testWebVTTTimestampRules() throws {
        let cues = try parse("WEBVTT\n\n0:00.000 --> 0:01.000\nA\n\n00:60.000 --> 00:61.000\nB\n\n100:00:00.000 --> 100:00:01.000\nC\n").cues
        XCTAssertEqual(cues.map(\.text), ["C"])
        XCTAssertEqual(cues.first?.start, 360_000)
        // A second arrow line ends the cue; header text before the first cue is allowed.
        let more = try parse("WEBVTT\nheader\n00:01.000 --> 00:02.000\nA\n00:03.000 --> 00:04.000\nB").cues
        XCTAssertEqual(more.map(\.text), ["A", "B"])
    }

    func testWebVTTErrors() {
        XCTAssertThrowsError(try parse("WEBVTTX\n\n00:01.000 --> 00:02.000\nA", .webvtt)) {
            XCTAssertEqual($0 as? SubtitleError, .missingWebVTTSignature)
        }
        XCTAssertThrowsError(try parse("", .webvtt))
        XCTAssertEqual(try parse("WEBVTT", .webvtt).cues, [])
        XCTAssertEqual(try parse("WEBVTT\tfoo\n", .webvtt).cues, [])
    }

    // MARK: SAMI

    let sami = """
    <SAMI><HEAD><STYLE TYPE="text/css"><!--
    P { color: white; }
    .ENCC { Name: English; lang: en-US; }
    .DECC { Name: Deutsch; lang: de-DE; }
    --></STYLE></HEAD><BODY>
    <SYNC Start=1000><P Class=ENCC>Hello<br>  <b>big</b>
       world &amp; &lt;friends&gt; &#62;&#x3E;&nbsp;&quot;x&quot;</P>
    <P Class=DECC>Hallo
    <sync start="2500"><p class="ENCC">&nbsp;
    <SYNC Start=3000><P Class=ENCC>Again
    <SYNC Start=4000><P Class=DECC>Wieder</P></SYNC>
    </BODY></SAMI>
    """

    func testSAMIClassesLanguagesEntitiesAndClear() throws {
        let doc = try parse(sami)
        XCTAssertEqual(doc.format, .sami)
        XCTAssertEqual(doc.cues.count, 4)
        let en = doc.cues.filter { $0.language == "en-US" }
        let de = doc.cues.filter { $0.language == "de-DE" }
        XCTAssertEqual(en.map(\.start), [1, 3])
        XCTAssertEqual(en.map(\.end), [2.5, 7])  // cleared by &nbsp;, then last cue lasts 4 s
        XCTAssertEqual(en[0].text, "Hello\n<b>big</b> world &amp; &lt;friends&gt; >>\u{A0}\"x\"")
        XCTAssertEqual(en[0].plainText, "Hello\nbig world & <friends> >>\u{A0}\"x\"")
        XCTAssertEqual(en[0].className, "ENCC")
        XCTAssertEqual(de.map(\.text), ["Hallo", "Wieder"])
        XCTAssertEqual(de.map(\.end), [4, 8])
    }

    func testSAMIWithoutStyleAndErrors() throws {
        let cues = try parse("<sami><body><sync start=500>Bare text<sync start=900><p lang=fr>Oui</body></sami>").cues
        XCTAssertEqual(cues.map(\.text), ["Bare text", "Oui"])
        XCTAssertEqual(cues.map(\.end), [0.9, 4.9])
        XCTAssertEqual(cues.map(\.language), [nil, "fr"])
        XCTAssertThrowsError(try parse("<SAMI><BODY><SYNC><P>x</BODY></SAMI>")) {
            guard case .missingSyncStart? = $0 as? SubtitleError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try parse("<SAMI><BODY></BODY></SAMI>"))
    }

    // MARK: Encodings and sniffing

    func testEncodings() throws {
        let text = "WEBVTT\r\n\r\n00:01.000 --> 00:02.000\r\nCafé ♪ 😀\r\n"
        let scalars = text.unicodeScalars.map(\.value)
        var utf16LE: [UInt8] = [0xFF, 0xFE], utf16BE: [UInt8] = [0xFE, 0xFF]
        for unit in text.utf16 {
            utf16LE += [UInt8(unit & 0xFF), UInt8(unit >> 8)]
            utf16BE += [UInt8(unit >> 8), UInt8(unit & 0xFF)]
        }
        var utf32LE: [UInt8] = [0xFF, 0xFE, 0, 0], utf32BE: [UInt8] = [0, 0, 0xFE, 0xFF]
        for v in scalars {
            utf32LE += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
            utf32BE += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        }
        let inputs: [([UInt8], TextDecoding.Encoding)] = [
            (Array(text.utf8), .utf8), ([0xEF, 0xBB, 0xBF] + Array(text.utf8), .utf8),
            (utf16LE, .utf16LittleEndian), (utf16BE, .utf16BigEndian),
            (utf32LE, .utf32LittleEndian), (utf32BE, .utf32BigEndian),
        ]
        for (bytes, encoding) in inputs {
            XCTAssertEqual(TextDecoding.decode(Data(bytes)).encoding, encoding)
            let doc = try SubtitleDocument.parse(Data(bytes))
            XCTAssertEqual(doc.cues.map(\.text), ["Café ♪ 😀"], "\(encoding)")
        }
        // Invalid UTF-8 without BOM: Windows-1252.
        let latin: [UInt8] = Array("1\n00:00:01,000 --> 00:00:02,000\nCaf".utf8) + [0xE9, 0x20, 0x80]
        XCTAssertEqual(TextDecoding.decode(Data(latin)).encoding, .windows1252)
        XCTAssertEqual(try SubtitleDocument.parse(Data(latin)).cues.first?.text, "Café €")
        // CR-only line endings.
        XCTAssertEqual(try parse("1\r00:00:01,000 --> 00:00:02,000\rA\rB\r\r").cues.first?.text, "A\nB")
    }

    func testSniffing() {
        XCTAssertEqual(SubtitleDocument.sniff(text: "\u{FEFF}WEBVTT\n"), .webvtt)
        XCTAssertEqual(SubtitleDocument.sniff(text: "<!-- x --><sami>"), .sami)
        XCTAssertEqual(SubtitleDocument.sniff(text: "1\n00:00:01,000 --> 00:00:02,000\n"), .srt)
    }

    // MARK: Robustness

    func testRandomAndTruncatedInputNeverCrashes() {
        var rng = SplitMix64(seed: 0x5EED)
        let seeds = [
            "WEBVTT\n\nid\n00:01.000 --> 00:02.000 align:start\n<b>x</b>\n\nNOTE\n",
            sami,
            "1\n00:00:01,000 --> 00:00:02,000\nA\n\n2\n00:00:03.000 --> 00:00:04.000\nB\n",
        ]
        let alphabet = Array("<>&;#x0123456789:.,-> \n\r\tSYNCPsyncp=\"'WEBVTT-->&nbsp;".utf8)
        for seed in seeds {
            let bytes = Array(seed.utf8)
            for cut in 0...bytes.count { exercise(Array(bytes[0..<cut])) }
            for _ in 0..<60 {
                var mutated = bytes
                for _ in 0..<Int(rng.next() % 8 + 1) where !mutated.isEmpty {
                    let i = Int(rng.next() % UInt64(mutated.count))
                    mutated[i] = rng.next() % 2 == 0 ? UInt8(truncatingIfNeeded: rng.next())
                                                     : alphabet[Int(rng.next() % UInt64(alphabet.count))]
                }
                exercise(mutated)
            }
        }
        for _ in 0..<80 {
            let count = Int(rng.next() % 200)
            exercise((0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        }
    }

    private func exercise(_ bytes: [UInt8]) {
        for format in [nil] + SubtitleFormat.allCases.map(Optional.some) {
            _ = try? SubtitleDocument.parse(Data(bytes), format: format)
        }
    }
}

struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
