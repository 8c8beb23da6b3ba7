import FoundationEssentials

/// The one JSON configuration of the API. Never build JSON by hand.
public enum JSONCoding {
    public static func encoder() -> JSONEncoder {
        let e = JSONEncoder()
        // Sorted keys keep replies stable for diffing in scripts; slashes stay readable in URIs.
        e.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return e
    }

    public static func encode<T: Encodable>(_ value: T) -> Data {
        // Our own value types only hold finite numbers and strings: encoding cannot fail.
        (try? encoder().encode(value)) ?? Data("{}".utf8)
    }

    /// Decodes a request body into `T`, turning Foundation's errors into API errors:
    /// malformed JSON is `invalid_json`, a wrong shape is `invalid_argument` naming the field.
    public static func decodeBody<T: Decodable>(_ type: T.Type, from data: Data) throws(APIError) -> T {
        let body = data.isEmpty ? Data("{}".utf8) : data
        if nestingDepth(of: body) > maxNesting {
            throw APIError(.invalidJSON, "the body is nested deeper than \(maxNesting) levels")
        }
        guard (try? JSONDecoder().decode(JSONValue.self, from: body)) != nil else {
            throw APIError(.invalidJSON, "the body is not valid JSON")
        }
        do {
            return try JSONDecoder().decode(T.self, from: body)
        } catch let error as APIError {
            throw error
        } catch let DecodingError.keyNotFound(key, context) {
            throw APIError(.invalidArgument, "missing field \(path(context.codingPath + [key]))")
        } catch let DecodingError.typeMismatch(type, context) {
            throw APIError(.invalidArgument, "field \(path(context.codingPath)) must be \(describe(type))")
        } catch let DecodingError.valueNotFound(type, context) {
            throw APIError(.invalidArgument, "field \(path(context.codingPath)) must be \(describe(type)), not null")
        } catch let DecodingError.dataCorrupted(context) {
            throw APIError(.invalidArgument, "field \(path(context.codingPath)): \(context.debugDescription)")
        } catch {
            throw APIError(.invalidArgument, "invalid body: \(error)")
        }
    }

    /// No request of the API nests deeper than a handful of levels; a deeper body is an attack
    /// on the parser (each level costs stack) and is refused before parsing.
    public static let maxNesting = 32

    /// The deepest array/object nesting in `json`, counting brackets outside strings. A
    /// malformed body may count wrong; the parser rejects it anyway.
    static func nestingDepth(of json: Data) -> Int {
        var depth = 0, deepest = 0
        var inString = false, escaped = false
        for byte in json {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        let p = keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        return p.isEmpty ? "(body)" : "'\(p)'"
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Double.Type, is Int.Type: return "a number"
        case is Bool.Type: return "a boolean"
        default: return "an object of the right shape"
        }
    }
}

/// Rejects keys a request type does not know, so a typo ("volum") is an error, not a no-op.
struct UnknownKeys: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }

    static func reject(in decoder: any Decoder, allowed: Set<String>) throws {
        let container = try decoder.container(keyedBy: UnknownKeys.self)
        if let unknown = container.allKeys.map(\.stringValue).first(where: { !allowed.contains($0) }) {
            throw APIError(.invalidArgument, "unknown field '\(unknown)'")
        }
    }
}
