@testable import OfflineLibrary
import XCTest

/// The downloader's rules apart from the network: what each response means for a resume,
/// `Content-Range`, the backoff, the token bucket.
final class DownloadRulesTests: XCTestCase {
    private func plan(_ status: Int, from offset: Int64, range: String? = nil, length: Int64? = nil,
                      retryAfter: String? = nil, knownTotal: Int64? = nil) -> ResponsePlan {
        ResponsePlan.plan(status: status, offset: offset,
                          headers: .init(contentRange: range, contentLength: length, retryAfter: retryAfter),
                          knownTotal: knownTotal)
    }

    func testContentRangeForms() {
        XCTAssertEqual(ContentRange("bytes 100-199/1000"), ContentRange(first: 100, last: 199, total: 1000))
        XCTAssertEqual(ContentRange("bytes 100-199/*"), ContentRange(first: 100, last: 199, total: nil))
        XCTAssertEqual(ContentRange("bytes */1000"), ContentRange(first: nil, last: nil, total: 1000))
        XCTAssertEqual(ContentRange(" Bytes 0-0/1 "), ContentRange(first: 0, last: 0, total: 1))
        for bad in [nil, "", "bytes", "bytes */*", "bytes 5-4/10", "bytes 0-10/10", "items 0-1/2", "bytes -1-2/3", "bytes 1-2"] {
            XCTAssertNil(ContentRange(bad), bad ?? "nil")
        }
    }

    func testAFreshRequestTakesTheBodyAndItsLength() {
        XCTAssertEqual(plan(200, from: 0, length: 500), .body(restart: false, total: 500))
        XCTAssertEqual(plan(200, from: 0), .body(restart: false, total: nil), "chunked: the total comes at the end")
    }

    func testAResumeContinuesOnlyWhereItAsked() {
        XCTAssertEqual(plan(206, from: 100, range: "bytes 100-999/1000", length: 900), .body(restart: false, total: 1000))
        XCTAssertEqual(plan(206, from: 100, range: "bytes 100-999/*", length: 900), .body(restart: false, total: 1000))
        guard case let .retry(failure, _) = plan(206, from: 100, range: "bytes 0-999/1000") else { return XCTFail() }
        XCTAssertEqual(failure.code, "origin_error")
        guard case .retry = plan(206, from: 100) else { return XCTFail("a 206 without Content-Range") }
    }

    func testA200ToAResumeStartsAgain() {
        XCTAssertEqual(plan(200, from: 100, length: 1000), .body(restart: true, total: 1000))
    }

    func testA416AtTheEndIsComplete() {
        XCTAssertEqual(plan(416, from: 1000, range: "bytes */1000"), .complete(total: 1000))
        XCTAssertEqual(plan(416, from: 1000, knownTotal: 1000), .complete(total: 1000))
        XCTAssertEqual(plan(416, from: 1000, range: "bytes */800"), .startOver, "the origin's file shrank")
        XCTAssertEqual(plan(416, from: 1000), .startOver)
        guard case let .fail(failure) = plan(416, from: 0) else { return XCTFail() }
        XCTAssertEqual(failure.status, 416)
    }

    func testServerFaultsAreRetriedAndRefusalsAreNot() {
        for status in [500, 502, 503, 504, 408, 429] {
            guard case let .retry(failure, retryAfter) = plan(status, from: 0) else { return XCTFail("\(status)") }
            XCTAssertEqual(failure, DownloadFailure(code: "origin_error", message: "the origin answered \(status)", status: status))
            XCTAssertNil(retryAfter)
        }
        XCTAssertEqual(plan(503, from: 0, retryAfter: "7"),
                       .retry(DownloadFailure(code: "origin_error", message: "the origin answered 503", status: 503),
                              retryAfter: .seconds(7)))
        guard case .retry(_, nil) = plan(429, from: 0, retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT") else { return XCTFail() }
        for status in [400, 401, 403, 404, 410, 451, 304] {
            XCTAssertEqual(plan(status, from: 0),
                           .fail(DownloadFailure(code: "origin_refused", message: "the origin answered \(status)", status: status)))
        }
    }

    func testTheBackoffDoublesUpToItsCeiling() {
        let backoff = DownloadBackoff(initial: .milliseconds(500), maximum: .seconds(30), jitter: 0)
        XCTAssertEqual((1...9).map { backoff.delay(afterFailures: $0) },
                       [0.5, 1, 2, 4, 8, 16, 30, 30, 30].map { .milliseconds(Int64($0 * 1000)) })
        XCTAssertEqual(backoff.delay(afterFailures: 1000), .seconds(30))
    }

    func testTheJitterStaysWithinItsShare() {
        let backoff = DownloadBackoff(initial: .seconds(4), maximum: .seconds(30), jitter: 0.2)
        XCTAssertEqual(backoff.delay(afterFailures: 1, random: 0), .milliseconds(3200))
        XCTAssertEqual(backoff.delay(afterFailures: 1, random: 0.5), .seconds(4))
        XCTAssertEqual(backoff.delay(afterFailures: 4, random: 0.999_999), .seconds(30), "never above the ceiling")
        for _ in 0..<100 {
            let delay = backoff.delay(afterFailures: 2)
            XCTAssertGreaterThanOrEqual(delay, .milliseconds(6400))
            XCTAssertLessThanOrEqual(delay, .milliseconds(9600))
        }
    }

    func testTheBucketGoesIntoDebtAndAsksForAWait() {
        let unlimited = DownloadRateLimiter(bytesPerSecond: nil)
        unlimited.consume(10 << 20)
        XCTAssertEqual(unlimited.delayBeforeRead(), .zero)
        XCTAssertEqual(unlimited.readSize(upTo: 65536), 65536)

        let limiter = DownloadRateLimiter(bytesPerSecond: 1_000_000)
        XCTAssertEqual(limiter.delayBeforeRead(), .zero, "a full bucket to start with")
        XCTAssertEqual(limiter.readSize(upTo: 65536), 65536)
        limiter.consume(100_000 + 500_000)  // the bucket (a tenth of a second) and half a second more
        let wait = limiter.delayBeforeRead()
        XCTAssertGreaterThan(wait, .milliseconds(400))
        XCTAssertLessThanOrEqual(wait, .milliseconds(500))

        limiter.bytesPerSecond = nil
        XCTAssertEqual(limiter.delayBeforeRead(), .zero, "lifting the limit lifts the debt")
        XCTAssertEqual(DownloadRateLimiter(bytesPerSecond: 40_000).readSize(upTo: 65536), 5000, "small reads at small rates")
        XCTAssertEqual(DownloadRateLimiter(bytesPerSecond: 1000).readSize(upTo: 65536), 4096)
    }

    func testWholeMillisecondsRoundUp() {
        XCTAssertEqual(Duration.zero.wholeMilliseconds, 0)
        XCTAssertEqual(Duration.nanoseconds(1).wholeMilliseconds, 1)
        XCTAssertEqual(Duration.milliseconds(1500).wholeMilliseconds, 1500)
        XCTAssertEqual(Duration.seconds(-1).wholeMilliseconds, 0)
    }

    func testLoggedURLsLeaveTheirQueryOut() {
        XCTAssertEqual(FileDownload.redacted("https://cdn.example/a.mp4?token=secret"), "https://cdn.example/a.mp4?…")
        XCTAssertEqual(FileDownload.redacted("https://cdn.example/a.mp4"), "https://cdn.example/a.mp4")
    }
}
