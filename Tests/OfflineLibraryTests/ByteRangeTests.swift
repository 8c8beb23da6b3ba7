@testable import OfflineLibrary
import XCTest

/// The Range header as `LibraryServer` reads it, for a file of 1000 bytes unless said.
final class ByteRangeTests: XCTestCase {
    private func range(_ header: String?, size: Int64 = 1000) -> ByteRangeRequest {
        ByteRangeRequest(header: header, size: size)
    }

    func testNoHeaderIsTheWholeFile() {
        XCTAssertEqual(range(nil), .whole)
    }

    func testFirstToLast() {
        XCTAssertEqual(range("bytes=0-99"), .partial(first: 0, last: 99))
        XCTAssertEqual(range("bytes=500-500"), .partial(first: 500, last: 500))
        XCTAssertEqual(range("bytes=990-5000"), .partial(first: 990, last: 999), "past the end: to the end")
        XCTAssertEqual(range(" Bytes = 10 - 19 "), .partial(first: 10, last: 19), "spaces and the unit's case")
        XCTAssertEqual(range("bytes=0-99999999999999999999999"), .partial(first: 0, last: 999), "a huge last: the end")
    }

    func testOpenEnded() {
        XCTAssertEqual(range("bytes=0-"), .partial(first: 0, last: 999))
        XCTAssertEqual(range("bytes=999-"), .partial(first: 999, last: 999))
    }

    func testSuffix() {
        XCTAssertEqual(range("bytes=-1"), .partial(first: 999, last: 999))
        XCTAssertEqual(range("bytes=-100"), .partial(first: 900, last: 999))
        XCTAssertEqual(range("bytes=-5000"), .partial(first: 0, last: 999), "longer than the file: all of it")
    }

    func testUnsatisfiable() {
        XCTAssertEqual(range("bytes=1000-"), .unsatisfiable)
        XCTAssertEqual(range("bytes=1000-2000"), .unsatisfiable)
        XCTAssertEqual(range("bytes=-0"), .unsatisfiable)
        XCTAssertEqual(range("bytes=99999999999999999999999-"), .unsatisfiable)
        XCTAssertEqual(range("bytes=0-", size: 0), .unsatisfiable, "an empty file has no byte 0")
        XCTAssertEqual(range("bytes=-10", size: 0), .unsatisfiable)
    }

    func testWhatItCannotReadIsIgnored() {
        for header in ["bytes=5-2", "bytes=0-1,5-6", "items=0-1", "bytes=-", "bytes=a-b", "bytes=+1-2", "bytes=1", "bytes", "", "=0-1"] {
            XCTAssertEqual(range(header), .whole, header)
        }
    }
}
