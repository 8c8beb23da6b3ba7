/// The little text handling that writing playlists needs. The meaning of a playlist always
/// comes from `Playlist.parse`; this only walks the lines of a text the parser has accepted
/// (split and trimmed as the parser does, so the n-th URI line is the parser's n-th segment)
/// and writes attribute lists back.
enum HLSPlaylistLines {
    enum Kind: Equatable {
        /// `#EXT…`: the tag's name, up to its first `:`.
        case tag(String)
        /// Any other line starting with `#`.
        case comment
        /// Anything else: a URI line.
        case uri
    }

    struct Line {
        var text: String
        var kind: Kind
    }

    /// The lines after the `#EXTM3U` header: LF or CRLF, a leading byte order mark dropped,
    /// blanks around each line trimmed, blank lines skipped (RFC 8216 s4.1).
    static func split(_ text: String) -> [Line] {
        var body = Substring(text)
        if body.first == "\u{FEFF}" { body = body.dropFirst() }
        var lines: [Line] = []
        for (number, raw) in body.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = trim(String(String.UnicodeScalarView(raw)))
            guard number > 0, !line.isEmpty else { continue }  // line 1 is the header
            lines.append(Line(text: line, kind: classify(line)))
        }
        return lines
    }

    static func classify(_ line: String) -> Kind {
        guard line.hasPrefix("#") else { return .uri }
        guard line.hasPrefix("#EXT") else { return .comment }
        return .tag(String(line.prefix { $0 != ":" }))
    }

    private static func trim(_ text: String) -> String {
        let blank: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        var scalars = Substring(text).unicodeScalars[...]
        while let c = scalars.first, blank(c) { scalars = scalars.dropFirst() }
        while let c = scalars.last, blank(c) { scalars = scalars.dropLast() }
        return String(String.UnicodeScalarView(scalars))
    }
}

/// Writes RFC 8216 s4.2 attribute lists.
enum HLSAttributeWriter {
    enum Value: Equatable {
        /// A quoted-string.
        case quoted(String)
        /// A decimal-integer, decimal-float, resolution, enumerated-string or hexadecimal-sequence.
        case plain(String)
    }

    /// `NAME=value,NAME="value",…` in the order given.
    static func write(_ attributes: [(name: String, value: Value)]) -> String {
        attributes.map { name, value in
            switch value {
            case let .quoted(text): return "\(name)=\"\(text.filter { $0 != "\"" && $0 != "\n" && $0 != "\r" })\""
            case let .plain(text): return "\(name)=\(text)"
            }
        }.joined(separator: ",")
    }

    /// Attributes the RFC does not quote (s4.3.4.1, s4.3.4.2, s4.3.2.4, and SCORE of
    /// rfc8216bis). Everything else is written quoted: the parser reads a quoted enumerated
    /// value the same, so an attribute Marquee does not know survives either way.
    static let unquotedNames: Set<String> = [
        "BANDWIDTH", "AVERAGE-BANDWIDTH", "SCORE", "RESOLUTION", "FRAME-RATE", "HDCP-LEVEL", "VIDEO-RANGE",
        "PROGRAM-ID", "TYPE", "DEFAULT", "AUTOSELECT", "FORCED", "BIT-DEPTH", "SAMPLE-RATE", "METHOD", "IV",
    ]

    /// The raw attributes the parser kept (quotes removed, variables substituted) as a list
    /// to write: the names in `order` first, the others after them sorted, each quoted or not
    /// by `unquotedNames`. An unquoted value that could not stand unquoted (empty, or with a
    /// comma, quote or blank) is quoted.
    static func attributes(_ raw: [String: String], order: [String]) -> [(name: String, value: Value)] {
        let known = order.filter { raw[$0] != nil }
        let others = raw.keys.filter { !order.contains($0) }.sorted()
        return (known + others).map { name in
            let text = raw[name] ?? ""
            let plainSafe = !text.isEmpty && !text.contains { $0 == "," || $0 == "\"" || $0 == " " || $0 == "\t" }
            return (name, unquotedNames.contains(name) && plainSafe ? .plain(text) : .quoted(text))
        }
    }

    /// `0x` and two lower-case hex digits a byte.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return "0x" + String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }
}
