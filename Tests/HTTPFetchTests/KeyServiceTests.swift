import FoundationEssentials
@testable import HTTPFetch
import XCTest

final class KeyServiceUnitTests: XCTestCase {
    private let key = Data((0..<16).map { UInt8($0) })

    private func resource(_ body: Data) -> FetchedResource {
        FetchedResource(status: 200, contentType: "application/octet-stream", body: body, finalURL: "http://ks/keys")
    }

    func testTheBodyHasTheThreeFieldsAndNullForAbsentIDs() throws {
        let service = KeyService(url: "http://ks/keys", contentId: "c-1", userId: nil)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: service.requestBody(keyURI: "skd://c/k")) as? [String: Any])
        XCTAssertEqual(json["keyUri"] as? String, "skd://c/k")
        XCTAssertEqual(json["contentId"] as? String, "c-1")
        XCTAssertTrue(json.keys.contains("userId") && json["userId"] is NSNull, "\(json)")
    }

    func testSixteenBytesAreTheKey() {
        XCTAssertEqual(KeyRetryPolicy.decide(.success(resource(key)), keyURI: "skd://k", attempt: 0), .done(.key(key)))
    }

    func testAnotherLengthIsRefused() {
        guard case .done(.refused(let why)) = KeyRetryPolicy.decide(.success(resource(Data(count: 32))), keyURI: "skd://k", attempt: 0) else {
            return XCTFail("32 bytes are not an AES-128 key")
        }
        XCTAssertTrue(why.contains("skd://k") && why.contains("32"), why)
    }

    func testA4xxIsRefusedAtOnceWithTheStatus() {
        let result = KeyRetryPolicy.decide(.failure(FetchError(message: "no", status: 403)), keyURI: "skd://k", attempt: 0)
        XCTAssertEqual(result, .done(.refused("the key service refused skd://k with HTTP 403")))
    }

    func testA5xxOrNoAnswerIsRetriedWithBackoffThenUnavailable() {
        let failures = [FetchError(message: "busy", status: 503), FetchError(message: "connection refused", status: nil)]
        for failure in failures {
            let decisions = (0...3).map { KeyRetryPolicy.decide(.failure(failure), keyURI: "skd://k", attempt: $0) }
            XCTAssertEqual(Array(decisions.prefix(3)), [.retry(afterMilliseconds: 500), .retry(afterMilliseconds: 1000),
                                                        .retry(afterMilliseconds: 2000)])
            guard case .done(.unavailable) = decisions[3] else { return XCTFail("\(decisions[3])") }
        }
    }

    func testTheCacheKeepsTheMostRecentlyUsed() {
        var cache = KeyCache(capacity: 2)
        cache.store(Data([1]), for: "a")
        cache.store(Data([2]), for: "b")
        XCTAssertEqual(cache.key(for: "a"), Data([1]))  // a is now the most recent
        cache.store(Data([3]), for: "c")  // b goes
        XCTAssertNil(cache.key(for: "b"))
        XCTAssertEqual(cache.key(for: "a"), Data([1]))
        XCTAssertEqual(cache.key(for: "c"), Data([3]))
        XCTAssertEqual(cache.count, 2)
    }

    func testKeyURIsWithASchemeAreKeptAsWrittenAndRelativeOnesResolved() {
        let text = "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"skd://content-1/key-0\"\nseg.ts\n#EXT-X-KEY:METHOD=AES-128,URI=\"k.bin\"\nseg2.ts"
        var keys: [String] = []
        _ = PlaylistRewriter.rewrite(text, base: URL(string: "http://h/v/x.m3u8")!) { url, isKey in
            if isKey { keys.append(url) }
            return url
        }
        XCTAssertEqual(keys, ["skd://content-1/key-0", "http://h/v/k.bin"])
    }
}
