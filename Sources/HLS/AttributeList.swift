/// An RFC 8216 s4.2 attribute-list: `NAME=value,NAME="quoted, value",...`.
///
/// Tokenizing keeps each value's raw text and whether it was quoted; the typed accessors
/// below check the value against the attribute's type and throw a `PlaylistError` that
/// names the tag, the attribute and the line. Lenient where players are: blanks after a
/// comma, a trailing comma, and `_` in a name (read as `-`) are accepted; when a name
/// repeats, the last value wins.
struct AttributeList: Sendable, Equatable {
    struct Value: Sendable, Equatable {
        var text: String
        var quoted: Bool
    }

    let tag: String
    let line: Int
    private(set) var values: [String: Value] = [:]
    /// Names in the order they appear (first appearance).
    private(set) var names: [String] = []

    init(tag: String, line: Int, values: [String: Value] = [:]) {
        self.tag = tag
        self.line = line
        self.values = values
        self.names = values.keys.sorted()
    }

    /// Tokenizes `text`. Variable references are substituted in quoted strings and in
    /// hexadecimal sequences (rfc8216bis s4.3), through `substitute`.
    init(parsing text: String, tag: String, line: Int,
         substitute: (String) throws -> String = { $0 }) throws {
        self.tag = tag
        self.line = line
        let scalars = Array(text.unicodeScalars)
        var i = 0
        func fail(_ detail: String) -> PlaylistError {
            PlaylistError(line: line, reason: .malformedAttributeList(tag: tag, detail: detail))
        }
        func skipBlanks() { while i < scalars.count, scalars[i] == " " || scalars[i] == "\t" { i += 1 } }

        while true {
            skipBlanks()
            if i >= scalars.count { break }
            // AttributeName: [A-Z0-9-]; lower case and '_' are tolerated.
            var name = String.UnicodeScalarView()
            while i < scalars.count, scalars[i] != "=" {
                let c = scalars[i]
                if c == "_" {
                    name.append("-")
                } else if ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "-" {
                    name.append(c)
                } else if ("a"..."z").contains(c) {
                    name.append(contentsOf: String(c).uppercased().unicodeScalars)
                } else {
                    break
                }
                i += 1
            }
            let key = String(name)
            if key.isEmpty { throw fail("expected an attribute name at offset \(i)") }
            skipBlanks()
            guard i < scalars.count, scalars[i] == "=" else { throw fail("expected '=' after \(key)") }
            i += 1
            skipBlanks()
            var value = String.UnicodeScalarView()
            var quoted = false
            if i < scalars.count, scalars[i] == "\"" {
                quoted = true
                i += 1
                while i < scalars.count, scalars[i] != "\"" {
                    value.append(scalars[i])
                    i += 1
                }
                guard i < scalars.count else { throw fail("unterminated quoted string for \(key)") }
                i += 1  // closing quote
                skipBlanks()
                guard i >= scalars.count || scalars[i] == "," else {
                    throw fail("unexpected text after the quoted value of \(key)")
                }
            } else {
                while i < scalars.count, scalars[i] != "," {
                    value.append(scalars[i])
                    i += 1
                }
            }
            var valueText = String(value)
            if !quoted {
                valueText = String(PlaylistLines.trim(Substring(valueText)))
                if valueText.contains("\"") { throw fail("stray quote in the value of \(key)") }
            }
            if quoted || valueText.hasPrefix("0x") || valueText.hasPrefix("0X") {
                valueText = try substitute(valueText)
            }
            if values[key] == nil { names.append(key) }
            values[key] = Value(text: valueText, quoted: quoted)
            if i < scalars.count { i += 1 }  // the comma
        }
    }

    subscript(name: String) -> Value? { values[name] }

    func has(_ name: String) -> Bool { values[name] != nil }

    /// Raw attribute texts (quotes removed), for callers that want attributes Marquee does not model.
    var rawValues: [String: String] { values.mapValues(\.text) }

    // MARK: - Typed accessors

    private func invalid(_ name: String, _ text: String) -> PlaylistError {
        PlaylistError(line: line, reason: .invalidAttributeValue(tag: tag, attribute: name, value: text))
    }

    func require<T>(_ name: String, _ read: (String) throws -> T?) throws -> T {
        guard let value = try read(name) else {
            throw PlaylistError(line: line, reason: .missingAttribute(tag: tag, attribute: name))
        }
        return value
    }

    /// quoted-string. An unquoted value is tolerated (some packagers omit the quotes).
    func quotedString(_ name: String) -> String? { values[name]?.text }

    /// enumerated-string: an unquoted token. A quoted one is tolerated.
    func enumerated(_ name: String) throws -> String? {
        guard let v = values[name] else { return nil }
        if v.text.isEmpty { throw invalid(name, v.text) }
        return v.text
    }

    /// YES / NO enumerated-string.
    func bool(_ name: String) throws -> Bool? {
        guard let v = values[name] else { return nil }
        switch v.text {
        case "YES": return true
        case "NO": return false
        default: throw invalid(name, v.text)
        }
    }

    /// decimal-integer (0 ... Int.max here; 2^63 and above is reported as overflow).
    func decimalInteger(_ name: String) throws -> Int? {
        guard let v = values[name] else { return nil }
        guard let n = try NumberParsing.decimalInteger(v.text, line: line) else { throw invalid(name, v.text) }
        return n
    }

    /// decimal-float (non-negative).
    func decimalFloat(_ name: String) throws -> Double? {
        guard let v = values[name] else { return nil }
        guard let d = NumberParsing.decimalFloat(v.text) else { throw invalid(name, v.text) }
        return d
    }

    /// signed-decimal-float.
    func signedFloat(_ name: String) throws -> Double? {
        guard let v = values[name] else { return nil }
        guard let d = NumberParsing.signedFloat(v.text) else { throw invalid(name, v.text) }
        return d
    }

    /// A bit rate: a decimal-integer, or (leniently, as players do) a decimal-float truncated.
    func bitRate(_ name: String) throws -> Int? {
        guard let v = values[name] else { return nil }
        if let n = try NumberParsing.decimalInteger(v.text, line: line) { return n }
        guard let d = NumberParsing.decimalFloat(v.text) else { throw invalid(name, v.text) }
        guard let n = Int(exactly: d.rounded(.towardZero)) else {
            throw PlaylistError(line: line, reason: .overflow(v.text))
        }
        return n
    }

    /// hexadecimal-sequence: `0x` or `0X` and hex digits, returned as bytes (big-endian,
    /// an odd digit count is read as if a `0` led it).
    func hexadecimal(_ name: String) throws -> [UInt8]? {
        guard let v = values[name] else { return nil }
        guard let bytes = NumberParsing.hexSequence(v.text) else { throw invalid(name, v.text) }
        return bytes
    }

    /// decimal-resolution: `<width>x<height>`.
    func resolution(_ name: String) throws -> Resolution? {
        guard let v = values[name] else { return nil }
        let parts = v.text.split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
        let alt = v.text.split(separator: "X", maxSplits: 1, omittingEmptySubsequences: false)
        let pair = parts.count == 2 ? parts : alt
        guard pair.count == 2,
              let w = try NumberParsing.decimalInteger(String(pair[0]), line: line),
              let h = try NumberParsing.decimalInteger(String(pair[1]), line: line)
        else { throw invalid(name, v.text) }
        return Resolution(width: w, height: h)
    }
}

/// The numeric grammar of RFC 8216 s4.2, parsed without traps.
enum NumberParsing {
    static func isDigit(_ c: Unicode.Scalar) -> Bool { ("0"..."9").contains(c) }

    /// Digits only. Returns nil for anything else; throws `overflow` past `Int.max`.
    static func decimalInteger(_ text: String, line: Int) throws -> Int? {
        guard !text.isEmpty, text.unicodeScalars.allSatisfy(isDigit) else { return nil }
        var result = 0
        for c in text.unicodeScalars {
            let (m, o1) = result.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int(c.value) - 48)
            if o1 || o2 { throw PlaylistError(line: line, reason: .overflow(text)) }
            result = a
        }
        return result
    }

    /// `[0-9]+(.[0-9]*)?` or `.[0-9]+`: no sign, no exponent, no inf/nan.
    static func decimalFloat(_ text: String) -> Double? {
        var digits = 0
        var dots = 0
        for c in text.unicodeScalars {
            if isDigit(c) { digits += 1 } else if c == "." { dots += 1 } else { return nil }
        }
        guard digits > 0, dots <= 1, let d = Double(text), d.isFinite else { return nil }
        return d
    }

    static func signedFloat(_ text: String) -> Double? {
        if text.hasPrefix("-") { return decimalFloat(String(text.dropFirst())).map { -$0 } }
        if text.hasPrefix("+") { return decimalFloat(String(text.dropFirst())) }
        return decimalFloat(text)
    }

    static func hexSequence(_ text: String) -> [UInt8]? {
        guard text.hasPrefix("0x") || text.hasPrefix("0X") else { return nil }
        var nibbles: [UInt8] = []
        for c in text.unicodeScalars.dropFirst(2) {
            switch c {
            case "0"..."9": nibbles.append(UInt8(c.value - 48))
            case "a"..."f": nibbles.append(UInt8(c.value - 87))
            case "A"..."F": nibbles.append(UInt8(c.value - 55))
            default: return nil
            }
        }
        guard !nibbles.isEmpty else { return nil }
        if nibbles.count % 2 == 1 { nibbles.insert(0, at: 0) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(nibbles.count / 2)
        var i = 0
        while i + 1 < nibbles.count {
            bytes.append(nibbles[i] << 4 | nibbles[i + 1])
            i += 2
        }
        return bytes
    }
}
