import Foundation
import XCTest
import ControlAPI

/// Parses JSON text (or data) into a Foundation object for order-independent comparison.
func jsonObject(_ data: Data, file: StaticString = #filePath, line: UInt = #line) -> NSObject? {
    do {
        return try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? NSObject
    } catch {
        XCTFail("not JSON: \(String(decoding: data, as: UTF8.self))", file: file, line: line)
        return nil
    }
}

/// Asserts that `data` is the same JSON value as `expected` (key order and spacing ignored).
func assertJSONEqual(_ data: Data, _ expected: String, _ message: String = "",
                     file: StaticString = #filePath, line: UInt = #line) {
    guard let actual = jsonObject(data, file: file, line: line),
          let wanted = jsonObject(Data(expected.utf8), file: file, line: line) else { return }
    XCTAssertEqual(actual, wanted, "\(message)\n  actual:   \(String(decoding: data, as: UTF8.self))\n  expected: \(expected)",
                   file: file, line: line)
}

/// The top-level keys of a JSON object.
func jsonKeys(_ data: Data, file: StaticString = #filePath, line: UInt = #line) -> Set<String> {
    guard let object = jsonObject(data, file: file, line: line) as? [String: Any] else {
        XCTFail("not a JSON object", file: file, line: line)
        return []
    }
    return Set(object.keys)
}

func encodedText<T: Encodable>(_ value: T) -> String {
    String(decoding: JSONCoding.encode(value), as: UTF8.self)
}

/// Builds a value that has no public initializer from its JSON form.
func decoded<T: Decodable>(_ type: T.Type = T.self, _ json: String) -> T {
    do {
        return try JSONDecoder().decode(T.self, from: Data(json.utf8))
    } catch {
        fatalError("test fixture does not decode as \(T.self): \(error)")
    }
}

/// A patch of the given settings (wire name, typed value), as a PATCH body would give them.
func settingsPatch(_ pairs: (String, any Encodable)...) -> SettingsPatch {
    var patch = SettingsPatch()
    for (name, value) in pairs { patch = try! patch.with(name, value) }
    return patch
}

/// A `settings` event of the default settings changed by `change`.
func settingsUpdate(_ change: (inout PlayerSettings) -> Void) -> SettingsUpdate {
    var settings = PlayerSettings()
    change(&settings)
    return SettingsUpdate(settings)
}

/// `json` (an object) with every setting it leaves out at its default: a fixture spells the
/// settings it is about, and a new setting does not change it.
func withSettingDefaults(_ json: String) -> String {
    var object = try! JSONDecoder().decode([String: JSONValue].self, from: Data(json.utf8))
    for descriptor in PlayerSettings.descriptors where object[descriptor.name] == nil {
        object[descriptor.name] = try! JSONDecoder().decode(JSONValue.self, from: Data(descriptor.defaultJSON.utf8))
    }
    return String(decoding: JSONCoding.encode(object), as: UTF8.self)
}
