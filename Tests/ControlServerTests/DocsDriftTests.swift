import Foundation
import XCTest
import ControlAPI
@testable import ControlServer

/// docs/API.md against the vocabulary: its generated tables are the descriptors' (run with
/// `MARQUEE_UPDATE_DOCS=1` to rewrite them), and its prose names every route, every WebSocket
/// command and every error code the OpenAPI document lists.
final class DocsDriftTests: XCTestCase {
    static let docsURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/API.md")

    private func docs() throws -> String { try String(contentsOf: Self.docsURL, encoding: .utf8) }

    static func begin(_ name: String) -> String {
        "<!-- generated: \(name) (from ControlAPI's descriptors; MARQUEE_UPDATE_DOCS=1 swift test --filter DocsDriftTests rewrites it) -->"
    }
    static func end(_ name: String) -> String { "<!-- end generated: \(name) -->" }

    func testGeneratedTablesMatchTheDescriptors() throws {
        var text = try docs()
        var stale: [String] = []
        for (name, table) in [("commands", VocabularyTables.commands), ("settings", VocabularyTables.settings)] {
            guard let from = text.range(of: Self.begin(name)), let to = text.range(of: Self.end(name), range: from.upperBound..<text.endIndex) else {
                XCTFail("docs/API.md has no section between '\(Self.begin(name))' and '\(Self.end(name))'")
                continue
            }
            let wanted = "\n" + table + "\n"
            if String(text[from.upperBound..<to.lowerBound]) != wanted {
                stale.append(name)
                text.replaceSubrange(from.upperBound..<to.lowerBound, with: wanted)
            }
        }
        if !stale.isEmpty, ProcessInfo.processInfo.environment["MARQUEE_UPDATE_DOCS"] == "1" {
            try text.write(to: Self.docsURL, atomically: true, encoding: .utf8)
            return
        }
        XCTAssertEqual(stale, [], "docs/API.md's generated tables differ from the descriptors; run MARQUEE_UPDATE_DOCS=1 swift test --filter DocsDriftTests")
    }

    func testEveryRouteIsNamed() throws {
        let text = try docs()
        for route in Routes.all {
            let named = "`\(route.method) \(route.path)"
            let found = [named + "`", named + "?", named + " "].contains { text.contains($0) }
            XCTAssertTrue(found, "docs/API.md does not name `\(route.method) \(route.path)`")
        }
    }

    func testEveryWebSocketCommandIsNamed() throws {
        let text = try docs()
        for name in Command.names {
            XCTAssertTrue(text.contains("`\(name)`"), "docs/API.md does not name the WebSocket command `\(name)`")
        }
    }

    func testEveryDocumentedErrorCodeIsInTheDocs() throws {
        let text = try docs()
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8)) as? [String: Any])
        let schemas = try XCTUnwrap((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let codes = try XCTUnwrap((schemas["ErrorCode"] as? [String: Any])?["enum"] as? [String])
        XCTAssertFalse(codes.isEmpty)
        for code in codes {
            XCTAssertTrue(text.contains("`\(code)`"), "docs/API.md does not name the error code `\(code)` that openapi.json lists")
        }
    }

    /// Every setting is in the `SettingsPatch` schema, the `settings` event and the snapshot,
    /// with the range of its descriptor.
    func testEverySettingIsInEveryShape() throws {
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8)) as? [String: Any])
        let schemas = try XCTUnwrap((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        func properties(_ name: String) throws -> [String: Any] {
            try XCTUnwrap((schemas[name] as? [String: Any])?["properties"] as? [String: Any], name)
        }
        let patch = try properties("SettingsPatch"), update = try properties("SettingsUpdate"), snapshot = try properties("PlayerSnapshot")
        let event = JSONCoding.encode(SettingsUpdate())
        let eventKeys = Set(try XCTUnwrap(try JSONSerialization.jsonObject(with: event) as? [String: Any]).keys)
        for setting in PlayerSettings.descriptors {
            XCTAssertNotNil(patch[setting.name], "SettingsPatch.\(setting.name)")
            XCTAssertNotNil(update[setting.name], "SettingsUpdate.\(setting.name)")
            XCTAssertNotNil(snapshot[setting.name], "PlayerSnapshot.\(setting.name)")
            XCTAssertTrue(eventKeys.contains(setting.name), "the settings event carries \(setting.name)")
            if let range = setting.range {
                let schema = try XCTUnwrap(patch[setting.name] as? [String: Any])
                XCTAssertEqual(schema["minimum"] as? Double, range.lowerBound, setting.name)
                XCTAssertEqual(schema["maximum"] as? Double, range.upperBound, setting.name)
            }
        }
    }
}
