import Foundation
@testable import MarqueeClient
import XCTest

/// `JSONTree`: the `Any` trees the command line reads replies into, without JSONSerialization.
final class JSONTreeTests: XCTestCase {
    func testParsesIntoTheShapesJSONSerializationUsed() throws {
        let tree = try XCTUnwrap(JSONTree.parse(Data(#"{"a": null, "b": 3, "c": 0.5, "d": true, "e": "x", "f": [1, "y"], "g": 1e300, "h": 9007199254740993}"#.utf8)) as? [String: Any])
        XCTAssertTrue(tree["a"] is JSONNull)
        XCTAssertEqual(tree["b"] as? Int, 3)
        XCTAssertEqual(tree["c"] as? Double, 0.5)
        XCTAssertEqual(tree["d"] as? Bool, true)
        XCTAssertEqual(tree["e"] as? String, "x")
        XCTAssertEqual((tree["f"] as? [Any])?.count, 2)
        XCTAssertEqual(JSONTree.double(tree["g"]), 1e300)
        XCTAssertEqual(tree["h"] as? Int, 9007199254740993, "integers stay exact")
        XCTAssertEqual(JSONTree.double(tree["b"]), 3)
        XCTAssertNil(JSONTree.double(tree["d"]), "a boolean is not a number")
        XCTAssertEqual(try JSONTree.parse(Data("7".utf8)) as? Int, 7, "a bare scalar is allowed")
        XCTAssertThrowsError(try JSONTree.parse(Data("{".utf8)))
    }

    func testWritesTreesBackAsJSON() throws {
        let value = try XCTUnwrap(JSONTree.value(["n": JSONNull(), "i": 2, "x": 0.25, "b": false, "s": "é", "l": [1, NSNull()]] as [String: Any]))
        let text = String(decoding: try JSONEncoder.sorted.encode(value), as: UTF8.self)
        XCTAssertEqual(text, #"{"b":false,"i":2,"l":[1,null],"n":null,"s":"é","x":0.25}"#)
        XCTAssertNil(JSONTree.value(["bad": Double.nan] as [String: Any]), "not JSON")
        XCTAssertNil(JSONTree.value([1: "key not a string"] as [Int: Any]))
    }
}

private extension JSONEncoder {
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
