import XCTest
@testable import HLS

final class AttributeListTests: XCTestCase {
    private func list(_ text: String) throws -> AttributeList {
        try AttributeList(parsing: text, tag: "#EXT-X-TEST", line: 7)
    }

    func testQuotedStringsKeepCommasAndEquals() throws {
        let a = try list(#"CODECS="avc1.64001f,mp4a.40.2",NAME="a=b, c",BANDWIDTH=100"#)
        XCTAssertEqual(a.quotedString("CODECS"), "avc1.64001f,mp4a.40.2")
        XCTAssertEqual(a.quotedString("NAME"), "a=b, c")
        XCTAssertEqual(try a.decimalInteger("BANDWIDTH"), 100)
        XCTAssertEqual(a["CODECS"]?.quoted, true)
        XCTAssertEqual(a["BANDWIDTH"]?.quoted, false)
    }

    func testEmptyQuotedStringAndOrder() throws {
        let a = try list(#"URI="",B=1"#)
        XCTAssertEqual(a.quotedString("URI"), "")
        XCTAssertEqual(a.names, ["URI", "B"])
    }

    func testLenientBlanksTrailingCommaAndUnderscore() throws {
        let a = try list(#"PROGRAM-ID=1, BANDWIDTH=2,AVERAGE_BANDWIDTH=3,"#)
        XCTAssertEqual(try a.decimalInteger("PROGRAM-ID"), 1)
        XCTAssertEqual(try a.decimalInteger("BANDWIDTH"), 2)
        XCTAssertEqual(try a.decimalInteger("AVERAGE-BANDWIDTH"), 3)
    }

    func testMissingQuotesAndStrayQuotesThrow() {
        for bad in [#"URI="abc"#, #"URI="a"b,C=1"#, #"URI=a"b""#, #"=1"#, #"A"#, #"A=1,,B=2"#, #"A B=1"#] {
            XCTAssertThrowsError(try list(bad), bad) { error in
                XCTAssertEqual((error as? PlaylistError)?.line, 7, bad)
            }
        }
    }

    func testHexIV() throws {
        let a = try list("IV=0X10ef8f758ca555115584bb5b3c687f52,SHORT=0xabc,BAD=0xZZ,NOHEX=0x")
        XCTAssertEqual(try a.hexadecimal("IV"),
                       [0x10, 0xef, 0x8f, 0x75, 0x8c, 0xa5, 0x55, 0x11, 0x55, 0x84, 0xbb, 0x5b, 0x3c, 0x68, 0x7f, 0x52])
        XCTAssertEqual(try a.hexadecimal("SHORT"), [0x0a, 0xbc])
        XCTAssertThrowsError(try a.hexadecimal("BAD"))
        XCTAssertThrowsError(try a.hexadecimal("NOHEX"))
    }

    func testResolution() throws {
        let a = try list("R=1920x1080,U=640X360,BAD=1920,NEG=-1x2,HUGE=99999999999999999999x1")
        XCTAssertEqual(try a.resolution("R"), Resolution(width: 1920, height: 1080))
        XCTAssertEqual(try a.resolution("U"), Resolution(width: 640, height: 360))
        XCTAssertThrowsError(try a.resolution("BAD"))
        XCTAssertThrowsError(try a.resolution("NEG"))
        XCTAssertThrowsError(try a.resolution("HUGE")) { error in
            XCTAssertEqual((error as? PlaylistError)?.reason, .overflow("99999999999999999999"))
        }
    }

    func testNumbersAndEnumerations() throws {
        let a = try list("T=-30.5,P=+2,F=29.97,I=18446744073709551615,N=nan,E=1e5,D=YES,X=MAYBE,BW=2560000.6")
        XCTAssertEqual(try a.signedFloat("T"), -30.5)
        XCTAssertEqual(try a.signedFloat("P"), 2)
        XCTAssertEqual(try a.decimalFloat("F"), 29.97)
        XCTAssertThrowsError(try a.decimalFloat("T"))
        XCTAssertThrowsError(try a.decimalInteger("I"))  // 2^64-1 does not fit an Int: overflow, no trap
        XCTAssertThrowsError(try a.decimalFloat("N"))
        XCTAssertThrowsError(try a.decimalFloat("E"))
        XCTAssertEqual(try a.bool("D"), true)
        XCTAssertThrowsError(try a.bool("X"))
        XCTAssertEqual(try a.bitRate("BW"), 2_560_000)
        XCTAssertNil(try a.decimalInteger("ABSENT"))
    }
}
