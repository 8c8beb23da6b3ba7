import FoundationEssentials
import TextSupport

/// SAMI (.smi) parser.
///
/// - Each `<SYNC Start=ms>` starts a group; each `<P Class=...>` inside it is one cue (text
///   directly inside a SYNC without a `<P>` is a cue with no class). Tag and attribute names
///   are case-insensitive; missing `</P>`/`</SYNC>` are tolerated.
/// - Classes map to languages through the `<STYLE>` block's `.CLASS { lang: xx-XX; }` rules;
///   a `lang` attribute on the `<P>` wins.
/// - Text: HTML whitespace is collapsed, `<br>` becomes "\n", character references are decoded
///   except `&lt;` `&gt;` `&amp;` (kept so that `text` stays markup; `plainText` decodes them);
///   inline tags (`<B>`, `<I>`, `<SPAN ...>`, `<FONT ...>`) are kept as written.
/// - A cue ends at the next SYNC that has a `<P>` of the same class; a `<P>` holding only
///   whitespace/`&nbsp;` ends the previous cue and produces none. SAMI has no end time for the
///   last cue of a class: it lasts `lastCueDuration` (4 s, as pycaption does).
/// - A `<SYNC>` without a numeric `Start` throws `SubtitleError.missingSyncStart`; a file
///   without any `<SYNC>` throws `SubtitleError.noCues`.
enum SAMIParser {
    static let lastCueDuration = 4.0

    struct Tag {
        var name: String  // lowercased, without "/"
        var closing: Bool
        var attributes: [String: String]  // lowercased names
        var raw: String
    }

    enum Token {
        case tag(Tag)
        case text(String)
    }

    private struct Paragraph {
        var start: Double
        var syncIndex: Int
        var className: String?
        var language: String?
        var text = ""
    }

    static func parse(_ input: String) throws -> [Cue] {
        try parseDocument(input).cues
    }

    /// The cues, and the names classes give their languages (`.KRCC { Name: Korean;
    /// lang: ko-KR; }`: "ko-kr" → "Korean"; keys lowercased) for the tracks' titles.
    static func parseDocument(_ input: String) throws -> (cues: [Cue], languageNames: [String: String]) {
        let scalars = Array(input.unicodeScalars)
        let tokens = tokenize(scalars)
        let rules = classRules(tokens)
        let languages = rules.compactMapValues(\.language)
        var languageNames: [String: String] = [:]
        for rule in rules.values {
            if let language = rule.language, let name = rule.name { languageNames[language.lowercased()] = name }
        }

        var paragraphs: [Paragraph] = []
        var current: Paragraph?
        var syncStart: Double?
        var syncIndex = -1
        var inBody = true
        var sawSync = false

        func finish() {
            if let p = current { paragraphs.append(p) }
            current = nil
        }

        for token in tokens {
            switch token {
            case let .tag(tag):
                switch (tag.name, tag.closing) {
                case ("sync", false):
                    finish()
                    sawSync = true
                    inBody = true
                    guard let value = tag.attributes["start"].flatMap(parseMilliseconds) else {
                        throw SubtitleError.missingSyncStart(String(tag.raw.prefix(80)))
                    }
                    syncStart = value
                    syncIndex += 1
                case ("sync", true), ("p", true):
                    finish()
                case ("p", false):
                    finish()
                    guard let start = syncStart else { continue }
                    let className = tag.attributes["class"]
                    let language = tag.attributes["lang"]
                        ?? className.flatMap { languages[$0.lowercased()] }
                    current = Paragraph(start: start, syncIndex: syncIndex, className: className, language: language)
                case ("br", _):
                    if !tag.closing || current != nil { current?.text += "\u{2028}" }
                case ("body", true), ("sami", true):
                    finish()
                    syncStart = nil
                    inBody = false
                case ("head", _), ("title", _), ("style", _), ("samiparam", _), ("body", false), ("sami", false),
                     ("html", _), ("!", _), ("table", _), ("tr", _), ("td", _):
                    continue
                default:
                    if current == nil, inBody, let start = syncStart {
                        current = Paragraph(start: start, syncIndex: syncIndex, className: nil, language: nil)
                    }
                    current?.text += tag.raw
                }
            case let .text(text):
                guard inBody else { continue }
                if current == nil {
                    guard let start = syncStart,
                          text.unicodeScalars.contains(where: { !$0.isASCIIWhitespace }) else { continue }
                    current = Paragraph(start: start, syncIndex: syncIndex, className: nil, language: nil)
                }
                current?.text += text
            }
        }
        finish()
        if !sawSync { throw SubtitleError.noCues(.sami, "no <SYNC> element found") }

        // Normalise text, then work out end times per class.
        let normalised = paragraphs.map { p -> Paragraph in
            var p = p
            p.text = normaliseText(p.text)
            return p
        }
        var cues: [Cue] = []
        for (n, p) in normalised.enumerated() {
            if isBlank(p.text) { continue }
            let key = p.className?.lowercased()
            var end = p.start + lastCueDuration
            if let next = normalised[(n + 1)...].first(where: { $0.syncIndex > p.syncIndex && $0.className?.lowercased() == key }) {
                end = next.start
            }
            cues.append(Cue(start: p.start, end: end, text: p.text, language: p.language, className: p.className))
        }
        return (cues, languageNames)
    }

    private static func parseMilliseconds(_ value: String) -> Double? {
        let scalars = value.unicodeScalars.filter { !$0.isASCIIWhitespace }
        guard !scalars.isEmpty, scalars.count <= 15, scalars.allSatisfy(\.isASCIIDigit) else { return nil }
        guard let ms = Int(String(String.UnicodeScalarView(scalars))) else { return nil }
        return Double(ms) / 1000
    }

    private static func isBlank(_ text: String) -> Bool {
        Markup.plainText(text).unicodeScalars.allSatisfy { $0.isASCIIWhitespace || $0 == "\u{00A0}" }
    }

    /// Collapses whitespace runs to one space, trims around line breaks, decodes references
    /// except `&lt;` `&gt;` `&amp;`.
    static func normaliseText(_ text: String) -> String {
        var collapsed = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar.isASCIIWhitespace {
                pendingSpace = true
            } else {
                if pendingSpace, !collapsed.isEmpty { collapsed.append(" ") }
                pendingSpace = false
                collapsed.append(scalar)
            }
        }
        let decoded = Markup.decodeEntities(String(collapsed), keep: ["lt", "gt", "amp"])
            .replacing("\u{2028}", with: "\n")
        let lines = decoded.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.trimmingScalars(where: { $0 == " " })
        }
        var result = lines.joined(separator: "\n")
        while result.hasPrefix("\n") { result.removeFirst() }
        while result.hasSuffix("\n") { result.removeLast() }
        return result
    }

    struct ClassRule {
        var language: String?
        var name: String?
    }

    /// Maps lowercased class names to their languages and names from
    /// `.CLASS { Name: Korean; lang: xx-XX; }` rules.
    static func classRules(_ tokens: [Token]) -> [String: ClassRule] {
        var css = ""
        var inStyle = false
        for token in tokens {
            switch token {
            case let .tag(tag) where tag.name == "style": inStyle = !tag.closing
            case let .text(text) where inStyle: css += text
            default: break
            }
        }
        var result: [String: ClassRule] = [:]
        let s = Array(css.unicodeScalars)
        var i = 0
        while i < s.count {
            guard s[i] == "." else { i += 1; continue }
            i += 1
            var name = String.UnicodeScalarView()
            while i < s.count, s[i].properties.isAlphabetic || s[i].isASCIIDigit || s[i] == "-" || s[i] == "_" {
                name.append(s[i])
                i += 1
            }
            while i < s.count, s[i].isASCIIWhitespace { i += 1 }
            guard !name.isEmpty, i < s.count, s[i] == "{" else { continue }
            i += 1
            var body = String.UnicodeScalarView()
            while i < s.count, s[i] != "}" {
                body.append(s[i])
                i += 1
            }
            for declaration in String(body).split(separator: ";") {
                let parts = declaration.split(separator: ":", maxSplits: 1)
                guard parts.count == 2 else { continue }
                let key = parts[0].trimmingWhitespace().lowercased()
                let value = parts[1].trimmingWhitespace()
                    .trimmingScalars(where: { $0 == "\"" || $0 == "'" })
                guard !value.isEmpty else { continue }
                if key == "lang" { result[String(name).lowercased(), default: ClassRule()].language = value }
                if key == "name" { result[String(name).lowercased(), default: ClassRule()].name = value }
            }
        }
        return result
    }

    /// Splits into tags and text. Comments `<!-- -->` outside `<STYLE>` are dropped; inside
    /// `<STYLE>` their content is kept as text (CSS is usually wrapped in a comment).
    static func tokenize(_ s: [Unicode.Scalar]) -> [Token] {
        var tokens: [Token] = []
        var text = String.UnicodeScalarView()
        var i = 0
        var inStyle = false
        func flush() {
            if !text.isEmpty { tokens.append(.text(String(text))) }
            text = String.UnicodeScalarView()
        }
        while i < s.count {
            let c = s[i]
            if c == "<", i + 3 < s.count, s[i + 1] == "!", s[i + 2] == "-", s[i + 3] == "-" {
                if inStyle { i += 4; continue }
                var j = i + 4
                while j + 2 < s.count, !(s[j] == "-" && s[j + 1] == "-" && s[j + 2] == ">") { j += 1 }
                i = min(j + 3, s.count)
                continue
            }
            if inStyle, c == "-", i + 2 < s.count, s[i + 1] == "-", s[i + 2] == ">" { i += 3; continue }
            let startsTag = c == "<" && i + 1 < s.count
                && (s[i + 1].properties.isAlphabetic || s[i + 1] == "/" || s[i + 1] == "!")
            guard startsTag else {
                text.append(c)
                i += 1
                continue
            }
            var j = i + 1
            var quote: Unicode.Scalar?
            while j < s.count {
                if let q = quote {
                    if s[j] == q { quote = nil }
                } else if s[j] == "\"" || s[j] == "'" {
                    quote = s[j]
                } else if s[j] == ">" || s[j] == "<" {
                    break
                }
                j += 1
            }
            let rawEnd = j < s.count && s[j] == ">" ? j + 1 : j
            let raw = String(String.UnicodeScalarView(s[i..<rawEnd]))
            let tag = parseTag(Array(s[(i + 1)..<j]), raw: raw)
            flush()
            if tag.name == "style" { inStyle = !tag.closing }
            tokens.append(.tag(tag))
            i = rawEnd
        }
        flush()
        return tokens
    }

    private static func parseTag(_ s: [Unicode.Scalar], raw: String) -> Tag {
        var i = 0
        var closing = false
        if i < s.count, s[i] == "/" { closing = true; i += 1 }
        var name = String.UnicodeScalarView()
        while i < s.count, !s[i].isASCIIWhitespace, s[i] != "/", s[i] != ">" {
            name.append(s[i])
            i += 1
        }
        var attributes: [String: String] = [:]
        while i < s.count {
            while i < s.count, s[i].isASCIIWhitespace || s[i] == "/" { i += 1 }
            var key = String.UnicodeScalarView()
            while i < s.count, !s[i].isASCIIWhitespace, s[i] != "=", s[i] != "/" {
                key.append(s[i])
                i += 1
            }
            while i < s.count, s[i].isASCIIWhitespace { i += 1 }
            var value = ""
            if i < s.count, s[i] == "=" {
                i += 1
                while i < s.count, s[i].isASCIIWhitespace { i += 1 }
                var v = String.UnicodeScalarView()
                if i < s.count, s[i] == "\"" || s[i] == "'" {
                    let q = s[i]
                    i += 1
                    while i < s.count, s[i] != q { v.append(s[i]); i += 1 }
                    i += 1
                } else {
                    while i < s.count, !s[i].isASCIIWhitespace { v.append(s[i]); i += 1 }
                }
                value = String(v)
            }
            if !key.isEmpty { attributes[String(key).lowercased()] = value }
        }
        var lowered = String(name).lowercased()
        if lowered.hasPrefix("!") { lowered = "!" }
        return Tag(name: lowered, closing: closing, attributes: attributes, raw: raw)
    }
}
