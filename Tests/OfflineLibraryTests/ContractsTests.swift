import OfflineLibrary
import XCTest

final class ContractsTests: XCTestCase {
    func testFailureDescribesItselfWithItsCode() {
        let failure = DownloadFailure(code: "origin_error", message: "the origin answered 503", status: 503)
        XCTAssertEqual("\(failure)", "origin_error: the origin answered 503")
        XCTAssertEqual(failure.status, 503)
    }
}
