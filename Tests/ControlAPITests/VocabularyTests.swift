import Foundation
import XCTest
import ControlAPI

/// The descriptor tables themselves: every row is consistent, and what is derived from them
/// behaves for every row (so a new command or setting is tested without a new test).
final class VocabularyTests: XCTestCase {
    func testCommandsAreUniqueAndNameKnownEvents() {
        let all = CommandDescriptor.all
        XCTAssertEqual(all.map(\.name), CommandName.allCases)
        XCTAssertEqual(Set(all.map { "\($0.method) \($0.path)" }).count, all.count, "one command per route")
        XCTAssertEqual(Set(all.map(\.operationID)).count, all.count, "unique operation ids")
        for command in all {
            XCTAssertFalse(command.help.isEmpty || command.help.contains("\n"), "\(command.name): one line of help")
            XCTAssertTrue(["commands", "output", "content"].contains(command.tag), "\(command.name): tag")
            for event in command.events {
                XCTAssertTrue(PlayerEvent.types.contains(event), "\(command.name) names an unknown event \(event)")
            }
            XCTAssertEqual(CommandDescriptor.named(command.name.rawValue)?.path, command.path)
            XCTAssertTrue(Routes.all.contains(Route(command.method, command.path, .command(command.name.rawValue))), "\(command.name) is routed")
            for example in command.body?.examples ?? [] {
                XCTAssertNoThrow(try Command.decode(name: command.name.rawValue, arguments: Data(example.json.utf8)),
                                 "\(command.name) example \(example.name) decodes")
            }
        }
    }

    func testBodyFieldsAreWhatTheDecoderAccepts() {
        let samples: [String: String] = [
            "open": #""uri": "a.mp4""#, "seek": #""position": 1"#, "variant": #""id": "auto""#, "audio": #""id": "a1""#,
            "subtitle": #""id": null"#, "pip.start": #""uri": "b.mp4""#, "pip.update": #""muted": true"#,
            "watermark": #""text": "LIVE""#, "queue.set": #""items": []"#, "set": "",
        ]
        // `variant` and `audio` still ignore unknown fields (their schemas allow them too).
        for command in CommandDescriptor.all where command.body != nil && ![.variant, .audio].contains(command.name) {
            let base = samples[command.name.rawValue] ?? ""
            let unknown = "{" + (base.isEmpty ? "" : base + ", ") + #""notAField": 1}"#
            XCTAssertThrowsError(try Command.decode(name: command.name.rawValue, arguments: Data(unknown.utf8)),
                                 "\(command.name) refuses a field it does not list")
        }
    }

    func testNumberSettingsTakeTheirRangeAndNothingBeyond() throws {
        for setting in PlayerSettings.descriptors {
            guard let range = setting.range else { continue }
            for value in [range.lowerBound, range.upperBound, (range.lowerBound + range.upperBound) / 2] {
                let patch = try SettingsPatch([setting.name: .number(value)])
                var settings = PlayerSettings()
                settings.merge(patch)
                let encoded = try JSONDecoder().decode([String: JSONValue].self, from: JSONCoding.encode(settings.update(abLoop: nil)))
                XCTAssertEqual(encoded[setting.name].flatMap(Self.double), value, "\(setting.name) = \(value) is set and carried")
            }
            for value in [range.lowerBound - 0.01, range.upperBound + 0.01, 1e300] {
                XCTAssertThrowsError(try SettingsPatch([setting.name: .number(value)]), "\(setting.name) = \(value)") { error in
                    XCTAssertEqual((error as? APIError)?.code, .invalidArgument)
                    XCTAssertTrue((error as? APIError)?.message.contains("'\(setting.name)'") ?? false, "\(error)")
                }
            }
            XCTAssertThrowsError(try SettingsPatch([setting.name: .string("1")]), "\(setting.name) takes a number only")
        }
    }

    func testEverySettingIsInTheSnapshotAndTheEventAndRoundTrips() throws {
        let snapshot = try JSONDecoder().decode([String: JSONValue].self, from: JSONCoding.encode(PlayerSnapshot()))
        let event = try JSONDecoder().decode([String: JSONValue].self, from: JSONCoding.encode(SettingsUpdate()))
        for setting in PlayerSettings.descriptors {
            XCTAssertNotNil(snapshot[setting.name], "the snapshot has \(setting.name)")
            XCTAssertEqual(event[setting.name].map { String(decoding: JSONCoding.encode($0), as: UTF8.self) }, setting.defaultJSON,
                           "the settings event has \(setting.name) at its default")
        }
        XCTAssertEqual(Set(event.keys), Set(PlayerSettings.wireNames))
        var changed = PlayerSettings()
        changed.audioDelay = -1.5
        changed.rate = 2
        var full = PlayerSnapshot()
        full.settings = changed
        XCTAssertEqual(try JSONDecoder().decode(PlayerSnapshot.self, from: JSONCoding.encode(full)).settings, changed)
        XCTAssertEqual(try JSONDecoder().decode(SettingsUpdate.self, from: JSONCoding.encode(SettingsUpdate(changed))).settings, changed)
    }

    func testNullLeavesASettingAndClearsTheLoop() throws {
        let patch = try SettingsPatch(PlayerSettings.descriptors.reduce(into: ["abLoop": .null]) { $0[$1.name] = .null })
        XCTAssertTrue(patch.values.isEmpty)
        XCTAssertTrue(patch.clearsABLoop)
    }

    func testTablesNameEverything() {
        for command in CommandDescriptor.all {
            XCTAssertTrue(VocabularyTables.commands.contains("| `\(command.name.rawValue)` | `\(command.method) \(command.path)` |"))
        }
        for name in PlayerSettings.wireNames { XCTAssertTrue(VocabularyTables.settings.contains("| `\(name)` |"), name) }
    }

    private static func double(_ value: JSONValue) -> Double? {
        switch value {
        case .integer(let n): return Double(n)
        case .number(let n): return n
        default: return nil
        }
    }
}
