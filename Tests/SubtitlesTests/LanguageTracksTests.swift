import Foundation
import XCTest
@testable import Subtitles

/// A SAMI file split by class language, and language tags matched as viewers ask for them.
final class LanguageTracksTests: XCTestCase {
    private let koreanEnglish = """
        <SAMI><HEAD><STYLE TYPE="text/css"><!--
        P { font-family: Arial; }
        .KRCC { Name: Korean; lang: ko-KR; SAMIType: CC; }
        .ENCC { Name: English; lang: en-US; SAMIType: CC; }
        --></STYLE></HEAD><BODY>
        <SYNC Start=1000><P Class=KRCC>안녕하세요</P><P Class=ENCC>Hello</P>
        <SYNC Start=2000><P Class=KRCC>&nbsp;</P><P Class=ENCC>Still English</P>
        <SYNC Start=3000><P Class=KRCC>감사합니다</P><P Class=ENCC>Thank you</P>
        <SYNC Start=4000><P>Music</P>
        </BODY></SAMI>
        """

    func testMultiClassSAMIIsOneTrackPerLanguageInOrder() throws {
        let tracks = try SubtitleDocument.parse(Data(koreanEnglish.utf8)).languageTracks
        XCTAssertEqual(tracks.map(\.language), ["ko-KR", "en-US"])
        XCTAssertEqual(tracks.map(\.name), ["Korean", "English"], "the classes' Name:")
        // Korean: its own two cues (the &nbsp; one ends the first at 2 s) and the class-less one.
        XCTAssertEqual(tracks[0].cues.map(\.plainText), ["안녕하세요", "감사합니다", "Music"])
        XCTAssertEqual(tracks[0].cues.first?.end, 2.0)
        XCTAssertEqual(tracks[1].cues.map(\.plainText), ["Hello", "Still English", "Thank you", "Music"])
        XCTAssertFalse(tracks[1].cues.contains { $0.language?.hasPrefix("ko") == true }, "no Korean in the English track")
    }

    /// A class without `Name:` has no name; the name goes with the language, whatever the
    /// case the class or the `<P>` writes it in.
    func testClassNamesAreTheLanguagesNames() throws {
        let document = try SubtitleDocument.parse(Data("""
            <SAMI><HEAD><STYLE><!-- .KRCC { Name: "한국어"; lang: KO-kr; } .ENCC { lang: en-US; } --></STYLE></HEAD><BODY>
            <SYNC Start=0><P Class=krcc>하나</P><P Class=ENCC>One</P></BODY></SAMI>
            """.utf8))
        XCTAssertEqual(document.languageNames, ["ko-kr": "한국어"])
        XCTAssertEqual(document.languageTracks.map(\.name), ["한국어", nil])
    }

    func testOneLanguageOrNoneIsOneTrackWithEverything() throws {
        let single = try SubtitleDocument.parse(Data("""
            <SAMI><HEAD><STYLE><!-- .ENCC { lang: en-US; } --></STYLE></HEAD><BODY>
            <SYNC Start=0><P Class=ENCC>One</P><SYNC Start=500><P>Two</P></BODY></SAMI>
            """.utf8))
        XCTAssertEqual(single.languageTracks, [LanguageTrack(language: "en-US", cues: single.cues)])
        let srt = try SubtitleDocument.parse(Data("1\n00:00:01,000 --> 00:00:02,000\nHi\n".utf8))
        XCTAssertEqual(srt.languageTracks, [LanguageTrack(language: nil, cues: srt.cues)])
        let empty = SubtitleDocument(format: .srt, cues: [])
        XCTAssertEqual(empty.languageTracks.count, 1, "always a track to list, even an empty one")
    }

    /// Two classes naming the same language (in different cases) are one track.
    func testClassesOfTheSameLanguageShareATrack() throws {
        let doc = try SubtitleDocument.parse(Data("""
            <SAMI><HEAD><STYLE><!-- .A { lang: ko-KR; } .B { lang: KO-kr; } .C { lang: en; } --></STYLE></HEAD><BODY>
            <SYNC Start=0><P Class=A>가</P><P Class=C>a</P><SYNC Start=1000><P Class=B>나</P></BODY></SAMI>
            """.utf8))
        let tracks = doc.languageTracks
        XCTAssertEqual(tracks.map(\.language), ["ko-KR", "en"])
        XCTAssertEqual(tracks[0].cues.map(\.plainText), ["가", "나"])
        XCTAssertEqual(tracks[1].cues.map(\.plainText), ["a"])
    }

    func testLanguageTagMatching() {
        XCTAssertTrue(LanguageTag.matches("ko", "ko-KR"))
        XCTAssertTrue(LanguageTag.matches("KO", "ko_kr"))
        XCTAssertTrue(LanguageTag.matches("ko-kr", "ko-KR"))
        XCTAssertTrue(LanguageTag.matches("en", "en"))
        XCTAssertFalse(LanguageTag.matches("ko-KR", "ko-KP"))
        XCTAssertFalse(LanguageTag.matches("ko-KR", "ko"), "a more specific wish does not take the bare language")
        XCTAssertFalse(LanguageTag.matches("k", "ko-KR"), "a prefix of the tag's letters is not a language")
        XCTAssertFalse(LanguageTag.matches("en", nil))
        XCTAssertFalse(LanguageTag.matches("", "en"))
        XCTAssertEqual(LanguageTag.firstMatch("en", in: ["ko-KR", nil, "en-US", "en"]), 2)
        XCTAssertNil(LanguageTag.firstMatch("fr", in: ["ko-KR", "en-US"]))
    }
}
