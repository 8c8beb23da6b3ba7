import Foundation
import XCTest
import ControlAPI
@testable import ControlServer

final class OpenAPIDocumentTests: XCTestCase {
    static let httpMethods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    private func document() throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8))
        return try XCTUnwrap(object as? [String: Any], "the document is a JSON object")
    }

    func testParsesAsOpenAPI31() throws {
        let doc = try document()
        let version = try XCTUnwrap(doc["openapi"] as? String)
        XCTAssertTrue(version.hasPrefix("3.1."), version)
        let info = try XCTUnwrap(doc["info"] as? [String: Any])
        XCTAssertNotNil(info["title"] as? String)
        XCTAssertNotNil(info["version"] as? String)
    }

    func testOperationsMatchTheRoutingTableExactly() throws {
        let paths = try XCTUnwrap(try document()["paths"] as? [String: Any])
        var documented = Set<String>()
        for (path, item) in paths {
            let operations = try XCTUnwrap(item as? [String: Any], path)
            for key in operations.keys where Self.httpMethods.contains(key.lowercased()) {
                XCTAssertEqual(key, key.lowercased(), "\(path): methods are lowercase in OpenAPI")
                documented.insert("\(key.uppercased()) \(path)")
            }
        }
        let routed = Set(Routes.all.map { "\($0.method) \($0.path)" })
        XCTAssertEqual(documented.subtracting(routed), [], "documented but not routed")
        XCTAssertEqual(routed.subtracting(documented), [], "routed but not documented")
    }

    func testEveryOperationHasResponsesAndAUniqueOperationID() throws {
        let paths = try XCTUnwrap(try document()["paths"] as? [String: Any])
        var ids: [String] = []
        for (path, item) in paths {
            for (method, operation) in (item as? [String: Any] ?? [:]) where Self.httpMethods.contains(method) {
                let op = try XCTUnwrap(operation as? [String: Any], "\(method) \(path)")
                XCTAssertFalse((op["responses"] as? [String: Any] ?? [:]).isEmpty, "\(method) \(path) has no responses")
                if let id = op["operationId"] as? String { ids.append(id) }
            }
        }
        XCTAssertEqual(Set(ids).count, ids.count, "duplicate operationId in \(ids.sorted())")
    }

    func testEveryErrorCodeIsDocumented() {
        for code in ErrorCode.allCases {
            XCTAssertTrue(OpenAPIDocument.json.contains(code.rawValue), "\(code.rawValue) is not in openapi.json")
        }
    }

    func testEveryLocalReferenceResolves() throws {
        let doc = try document()
        var refs: [String] = []
        func walk(_ value: Any) {
            if let object = value as? [String: Any] {
                if let ref = object["$ref"] as? String { refs.append(ref) }
                object.values.forEach(walk)
            } else if let array = value as? [Any] {
                array.forEach(walk)
            }
        }
        walk(doc)
        XCTAssertFalse(refs.isEmpty)
        for ref in Set(refs) {
            guard ref.hasPrefix("#/") else { continue }
            var node: Any? = doc
            for part in ref.dropFirst(2).split(separator: "/") {
                let key = part.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
                node = (node as? [String: Any])?[key]
            }
            XCTAssertNotNil(node, "\(ref) does not resolve")
        }
    }
}
