extension Cue {
    /// The text as minimal, well-formed XML markup: only `<b>`, `<i>` and `<u>` survive (from
    /// any format's tags, any case), always balanced; character references are decoded and
    /// `&`, `<`, `>` escaped again. Renderers that take Pango or HTML markup can use it as it is.
    public var basicMarkup: String { BasicMarkup.convert(text) }
}

/// Minimal markup for renderers (Pango, HTML).
public enum BasicMarkup {
    static let kept: Set<String> = ["b", "i", "u"]

    static func convert(_ text: String) -> String {
        var out = ""
        var open: [String] = []
        var rest = Substring(text)
        while let lt = rest.firstIndex(of: "<") {
            out += escape(Markup.decodeEntities(String(rest[..<lt])))
            guard let gt = rest[lt...].firstIndex(of: ">") else {
                rest = ""  // an unclosed tag removes the rest, as plainText does
                break
            }
            let tag = rest[rest.index(after: lt)..<gt]
            rest = rest[rest.index(after: gt)...]
            let closing = tag.hasPrefix("/")
            let name = (closing ? tag.dropFirst() : tag).prefix { $0.isLetter }.lowercased()
            guard kept.contains(name) else { continue }
            if closing {
                guard let index = open.lastIndex(of: name) else { continue }
                // Close what was opened inside it, then reopen those: tags stay balanced.
                let inner = open[(index + 1)...]
                out += inner.reversed().map { "</\($0)>" }.joined() + "</\(name)>" + inner.map { "<\($0)>" }.joined()
                open.remove(at: index)
            } else if !open.contains(name) {
                open.append(name)
                out += "<\(name)>"
            }
        }
        out += escape(Markup.decodeEntities(String(rest)))
        out += open.reversed().map { "</\($0)>" }.joined()
        return out
    }

    /// Escapes `&`, `<` and `>` for XML element content (Pango markup, HTML).
    public static func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(c)
            }
        }
        return out
    }
}
