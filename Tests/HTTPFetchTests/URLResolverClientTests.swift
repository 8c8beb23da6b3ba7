import FoundationEssentials
import XCTest
@testable import HTTPFetch

/// The URL resolver's request and reply (the exchange itself runs in URLResolverTests).
final class URLResolverClientTests: XCTestCase {
    func testQueryAlwaysNamesTheUserAndOnlyAGivenURI() throws {
        let bare = try JSONSerialization.jsonObject(with: JSONEncoder().encode(ResolverQuery(contentId: "c1", userId: nil, uri: ""))) as? [String: Any]
        XCTAssertEqual(bare?["contentId"] as? String, "c1")
        XCTAssertTrue(bare?.keys.contains("userId") == true && bare?["userId"] is NSNull, "\(bare ?? [:])")
        XCTAssertNil(bare?["uri"], "an empty uri is not sent")
        let refresh = try JSONSerialization.jsonObject(with: JSONEncoder().encode(ResolverQuery(contentId: "c1", userId: "u", uri: "http://o/m?t=1"))) as? [String: Any]
        XCTAssertEqual(refresh?["uri"] as? String, "http://o/m?t=1")
        XCTAssertEqual(refresh?["userId"] as? String, "u")
    }

    func testReplyNeedsAnHTTPURIAndValidHeaders() {
        func parse(_ text: String) -> ResolvedURL? { try? URLResolverClient.parse(Data(text.utf8)).get() }
        XCTAssertEqual(parse(#"{"uri": "https://cdn/a.m3u8?sig=1", "headers": {"X-Signed": "1"}}"#),
                       ResolvedURL(uri: "https://cdn/a.m3u8?sig=1", headers: ["X-Signed": "1"]))
        XCTAssertEqual(parse(#"{"uri": "http://cdn/a.mp4"}"#), ResolvedURL(uri: "http://cdn/a.mp4"))
        XCTAssertNil(parse(#"{"headers": {}}"#), "no uri")
        XCTAssertNil(parse(#"{"uri": "file:///etc/passwd"}"#), "not http(s)")
        XCTAssertNil(parse(#"{"uri": "http://cdn/a", "headers": {"X-A": "1\r\nX-B: 2"}}"#), "a line break in a value")
        XCTAssertNil(parse(#"{"uri": "http://cdn/a", "headers": {"X A": "1"}}"#), "not a header name")
        XCTAssertNil(parse("not json"))
    }

    func testDisplayURIDropsTheToken() {
        XCTAssertEqual(ResolvedURL(uri: "https://cdn/a/master.m3u8?token=9#x").displayURI, "https://cdn/a/master.m3u8")
        XCTAssertEqual(ResolvedURL(uri: "https://cdn/a.mp4").displayURI, "https://cdn/a.mp4")
    }
}
