import ControlAPI
import FoundationEssentials

/// JSON null in the `Any` trees that `jsonTree()` returns. It stands in for JSONSerialization's
/// NSNull: the daemon links only FoundationEssentials, which has neither.
public struct JSONNull: Equatable, Sendable, CustomStringConvertible {
    public init() {}
    /// NSNull's description, so text built from these trees reads as before.
    public var description: String { "<null>" }
}

/// `Any` trees in the shapes JSONSerialization used: [String: Any], [Any], String, Bool,
/// numbers and null. Without NSNumber a number is an Int when it is a whole number that
/// fits, else a Double; `JSONTree.double(_:)` reads either.
public enum JSONTree {
    /// Parses `data`; a bare scalar at the top is allowed (JSONSerialization's `.fragmentsAllowed`).
    public static func parse(_ data: Data) throws -> Any {
        any(try JSONDecoder().decode(JSONValue.self, from: data))
    }

    /// A number as Double, whichever of Int and Double `parse` made of it.
    public static func double(_ value: Any?) -> Double? {
        if let value = value as? Double { return value }
        if let value = value as? Int { return Double(value) }
        return nil
    }

    static func any(_ value: JSONValue) -> Any {
        switch value {
        case .null: JSONNull()
        case .bool(let value): value
        case .integer(let value): Int(exactly: value).map { $0 as Any } ?? Double(value)
        case .number(let value): value
        case .string(let value): value
        case .array(let values): values.map(any)
        case .object(let members): members.mapValues(any)
        }
    }

    /// The JSON for an `Any` tree; nil when something in it is not JSON (a non-finite
    /// number, a key that is not a String, another type).
    public static func value(_ object: Any) -> JSONValue? {
        switch object {
        case is JSONNull: return .null
        case let value as String: return .string(value)
        // Exact type checks first: a bridged number would also cast to Bool.
        case let value as Bool where type(of: object) == Bool.self: return .bool(value)
        case let value as Double where type(of: object) == Double.self:
            return value.isFinite ? .number(value) : nil
        case let value as Int: return .integer(Int64(value))
        case let value as Double: return value.isFinite ? .number(value) : nil
        case let value as Bool: return .bool(value)
        case let values as [Any]:
            var out: [JSONValue] = []
            for element in values {
                guard let element = value(element) else { return nil }
                out.append(element)
            }
            return .array(out)
        case let members as [String: Any]:
            var out: [String: JSONValue] = [:]
            for (key, member) in members {
                guard let member = value(member) else { return nil }
                out[key] = member
            }
            return .object(out)
        default:
            // Callers that import Foundation may still pass NSNull for null.
            return String(describing: type(of: object)) == "NSNull" ? .null : nil
        }
    }
}
