/// Tag stripping and character-reference decoding shared by the parsers.
enum Markup {
    static let namedEntities: [String: Unicode.Scalar] = [
        "amp": "&", "lt": "<", "gt": ">", "nbsp": "\u{00A0}", "quot": "\"", "apos": "'",
        "lrm": "\u{200E}", "rlm": "\u{200F}",
    ]

    /// Removes `<...>` tags and decodes character references.
    static func plainText(_ text: String) -> String {
        decodeEntities(stripTags(text))
    }

    /// Removes everything from `<` to the next `>` (an unclosed `<` removes the rest).
    static func stripTags(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var inTag = false
        for scalar in text.unicodeScalars {
            if inTag {
                if scalar == ">" { inTag = false }
            } else if scalar == "<" {
                inTag = true
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Decodes `&name;`, `&#NN;` and `&#xHH;`. References not in `namedEntities` (or named in
    /// `keep`), and malformed ones, are left as written.
    static func decodeEntities(_ text: String, keep: Set<String> = []) -> String {
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < scalars.count {
            let scalar = scalars[i]
            guard scalar == "&" else {
                out.append(scalar)
                i += 1
                continue
            }
            // Find the terminating ';' within a short distance.
            var j = i + 1
            while j < scalars.count, j - i <= 32, scalars[j] != ";", scalars[j] != "&", scalars[j] != "<",
                  !scalars[j].properties.isWhitespace {
                j += 1
            }
            if j < scalars.count, scalars[j] == ";", j > i + 1 {
                let name = String(String.UnicodeScalarView(scalars[(i + 1)..<j]))
                if let decoded = decodeReference(name), !keep.contains(name) {
                    out.append(decoded)
                    i = j + 1
                    continue
                }
            }
            out.append(scalar)
            i += 1
        }
        return String(out)
    }

    private static func decodeReference(_ name: String) -> Unicode.Scalar? {
        if name.hasPrefix("#") {
            let body = name.dropFirst()
            let value: UInt32?
            if body.hasPrefix("x") || body.hasPrefix("X") {
                let hex = body.dropFirst()
                value = hex.isEmpty || hex.count > 8 ? nil : UInt32(hex, radix: 16)
            } else {
                value = body.isEmpty || body.count > 10 ? nil : UInt32(body, radix: 10)
            }
            guard let value, value != 0 else { return nil }
            return Unicode.Scalar(value) ?? "\u{FFFD}"
        }
        return namedEntities[name]
    }
}

extension Unicode.Scalar {
    /// Space, tab, LF, FF or CR (the WebVTT/HTML notion of ASCII whitespace).
    var isASCIIWhitespace: Bool {
        self == " " || self == "\t" || self == "\n" || self == "\u{0C}" || self == "\r"
    }

    var isASCIIDigit: Bool { self >= "0" && self <= "9" }
}
