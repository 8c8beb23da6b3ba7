import Foundation
@testable import Subtitles
import XCTest

/// CP949/EUC-KR subtitle bytes (Korean SAMI files before UTF-8): decoded when a charset,
/// the viewer's language or the bytes themselves say Korean; Western text stays Windows-1252.
final class KoreanLegacyTextTests: XCTestCase {
    /// "안녕하세요" in CP949 (EUC-KR's KS X 1001 syllables), as Python's `encode("cp949")` gives.
    private static let hello: [UInt8] = [0xBE, 0xC8, 0xB3, 0xE7, 0xC7, 0xCF, 0xBC, 0xBC, 0xBF, 0xE4]
    /// "똠방각하": 똠 (8C 63) is in CP949's UHC extension only, not in EUC-KR.
    private static let ttomBanggakha: [UInt8] = [0x8C, 0x63, 0xB9, 0xE6, 0xB0, 0xA2, 0xC7, 0xCF]

    private static func srt(_ text: [UInt8]) -> Data {
        Data(Array("1\r\n00:00:01,000 --> 00:00:02,000\r\n".utf8) + text + Array(" (Hello)\r\n".utf8))
    }

    func testKoreanBytesWithoutAnyHintAreSniffed() {
        let decoded = TextDecoding.decode(Self.srt(Self.hello))
        XCTAssertEqual(decoded.encoding, .cp949)
        XCTAssertTrue(decoded.text.contains("안녕하세요 (Hello)"), decoded.text)
    }

    func testTheUHCExtensionDecodesWhenKoreanIsAskedFor() throws {
        // One UHC syllable of four is under the nine-in-ten rule: not Korean by itself...
        XCTAssertEqual(TextDecoding.decode(Self.srt(Self.ttomBanggakha)).encoding, .windows1252)
        // ...but Korean when the viewer asked for it, or a charset says so.
        XCTAssertTrue(TextDecoding.decode(Self.srt(Self.ttomBanggakha), language: "ko-KR").text.contains("똠방각하"))
        XCTAssertEqual(TextDecoding.decode(Self.srt(Self.ttomBanggakha), charset: "EUC-KR").encoding, .cp949)
        let document = try SubtitleDocument.parse(Self.srt(Self.ttomBanggakha), charset: "ks_c_5601-1987")
        XCTAssertEqual(document.cues.map(\.plainText), ["똠방각하 (Hello)"])
    }

    func testSAMIMetaCharsetIsRead() throws {
        let head = "<SAMI><HEAD><META http-equiv=\"Content-Type\" content=\"text/html; charset=euc-kr\"></HEAD><BODY>\r\n"
        let body = Array("<SYNC Start=1000><P Class=KRCC>".utf8) + Self.ttomBanggakha + Array("\r\n</BODY></SAMI>\r\n".utf8)
        let document = try SubtitleDocument.parse(Data(Array(head.utf8) + body))
        XCTAssertEqual(document.cues.first?.plainText, "똠방각하")
    }

    /// A charset that names something else is believed over the language asked for.
    func testAnotherDeclaredCharsetWins() {
        let decoded = TextDecoding.decode(Self.srt(Self.hello), charset: "iso-8859-1", language: "ko")
        XCTAssertEqual(decoded.encoding, .windows1252)
        XCTAssertTrue(decoded.text.contains("¾È³çÇÏ¼¼¿ä"), decoded.text)
    }

    /// Western text stays Windows-1252: "é " is no CP949 sequence, and capitals that pair
    /// ("ÀÉ" = C0 C9) are too few to look Korean.
    func testWesternTextIsNotReadAsKorean() {
        let french = Data("1\n00:00:01,000 --> 00:00:02,000\nDéjà vu, ÀÉ l'été\n".utf8.map { $0 }).latin1
        let decoded = TextDecoding.decode(french)
        XCTAssertEqual(decoded.encoding, .windows1252)
        XCTAssertTrue(decoded.text.contains("Déjà vu, ÀÉ l'été"), decoded.text)
        XCTAssertFalse(KoreanLegacyText.looksKorean([0xC0, 0xC9, 0x20, 0x61]), "one pair")
        XCTAssertTrue(KoreanLegacyText.looksKorean(Self.hello))
        // Valid UTF-8 is UTF-8 whatever is declared or asked.
        XCTAssertEqual(TextDecoding.decode(Data("안녕".utf8), charset: "euc-kr", language: "ko").encoding, .utf8)
    }

    func testCutSequenceIsNotCP949() {
        XCTAssertNil(KoreanLegacyText.decode(Array(Self.hello.dropLast())))
        XCTAssertEqual(KoreanLegacyText.decode(Self.hello), "안녕하세요")
    }
}

private extension Data {
    /// The text's characters as Latin-1 bytes (test input in Windows-1252).
    var latin1: Data {
        Data(String(decoding: self, as: UTF8.self).unicodeScalars.map { UInt8($0.value) })
    }
}
