import FoundationEssentials

/// EXT-X-DEFINE (rfc8216bis s4.4.2.3) and `{$name}` variable references (s4.3).
///
/// References are replaced in URI lines, quoted-string attribute values and hexadecimal
/// attribute values, using only definitions that appear earlier in the playlist. A
/// reference to a name with no definition fails the parse, as the draft requires. Text
/// such as `{$` followed by characters that cannot form a name is left as it is.
struct VariableTable: Sendable {
    private(set) var values: [String: String] = [:]
    /// The parent master playlist's definitions, for `IMPORT=` in a media playlist.
    let imports: [String: String]
    /// The playlist's own URL, for `QUERYPARAM=`.
    let playlistURL: URL?
    /// UTF-8 bytes that substitutions may still produce in this parse. Without a bound, nested
    /// definitions (`B="{$A}{$A}"`, `C="{$B}{$B}"`, ...) make a 2 KB playlist need gigabytes.
    private(set) var expansionBudget = VariableTable.maxExpansion
    static let maxExpansion = 16 << 20

    init(imports: [String: String], playlistURL: URL?) {
        self.imports = imports
        self.playlistURL = playlistURL
    }

    static func isNameCharacter(_ c: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "-" || c == "_"
    }

    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy(isNameCharacter)
    }

    /// Replaces every `{$name}` in `text`.
    mutating func substitute(_ text: String, line: Int) throws -> String {
        guard text.contains("{$") else { return text }
        let scalars = Array(text.unicodeScalars)
        // A String, not a String.UnicodeScalarView: UnicodeScalarView.append(contentsOf:)
        // copies the whole buffer on every call (Swift 6.3), which made this quadratic.
        var out = ""
        var i = 0
        while i < scalars.count {
            if scalars[i] == "{", i + 1 < scalars.count, scalars[i + 1] == "$" {
                var j = i + 2
                while j < scalars.count, Self.isNameCharacter(scalars[j]) { j += 1 }
                if j < scalars.count, scalars[j] == "}", j > i + 2 {
                    let name = String(String.UnicodeScalarView(scalars[(i + 2)..<j]))
                    guard let value = values[name] else {
                        throw PlaylistError(line: line, reason: .undefinedVariable(name))
                    }
                    guard value.utf8.count <= expansionBudget else {
                        throw PlaylistError(line: line, reason: .overflow("substitution of {$\(name)}: more than \(Self.maxExpansion) bytes in all"))
                    }
                    expansionBudget -= value.utf8.count
                    out += value
                    i = j + 1
                    continue
                }
            }
            out.unicodeScalars.append(scalars[i])
            i += 1
        }
        return out
    }

    /// Applies one EXT-X-DEFINE tag.
    mutating func define(_ attrs: AttributeList) throws {
        let tag = attrs.tag
        let line = attrs.line
        let forms = [attrs.has("NAME"), attrs.has("IMPORT"), attrs.has("QUERYPARAM")].filter { $0 }.count
        guard forms == 1 else {
            throw PlaylistError(line: line, reason: .malformedTag(
                tag: tag, detail: "needs exactly one of NAME, IMPORT or QUERYPARAM"))
        }
        let name: String
        let value: String
        if let n = attrs.quotedString("NAME") {
            name = n
            value = try attrs.require("VALUE") { attrs.quotedString($0) }
        } else if let n = attrs.quotedString("IMPORT") {
            name = n
            guard let v = imports[n] else { throw PlaylistError(line: line, reason: .undefinedVariable(n)) }
            value = v
        } else {
            let n = attrs.quotedString("QUERYPARAM") ?? ""
            name = n
            let items = playlistURL.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: true)?.queryItems } ?? []
            guard let v = items.first(where: { $0.name == n })?.value else {
                throw PlaylistError(line: line, reason: .undefinedVariable(n))
            }
            value = v
        }
        guard Self.isValidName(name) else {
            throw PlaylistError(line: line, reason: .invalidAttributeValue(tag: tag, attribute: "NAME", value: name))
        }
        guard values[name] == nil else { throw PlaylistError(line: line, reason: .duplicateVariable(name)) }
        values[name] = value
    }
}
