/// SubRip (.srt) parser.
///
/// Blocks are an optional index line, a timing line `HH:MM:SS,mmm --> HH:MM:SS,mmm` and text
/// lines up to a blank line. Lenient where real files are sloppy:
/// - `.` is accepted as the millisecond separator, the fraction may have 1–3 digits or be
///   missing (`00:00:13 --> 00:00:16`), the hours may be missing (`MM:SS,mmm`);
/// - anything after the end timestamp (e.g. `X1:... Y1:...` coordinates) is ignored;
/// - the index may be missing or be any text; a missing blank line before the next block is
///   tolerated when the next block starts with a timing line (or an index then a timing line);
/// - a block without a timing line is skipped.
/// Text with no timing line at all throws `SubtitleError.noCues`; whitespace-only input gives
/// no cues.
enum SRTParser {
    static func parse(_ input: String) throws -> [Cue] {
        var text = input
        if text.unicodeScalars.first == "\u{FEFF}" { text = String(text.unicodeScalars.dropFirst()) }
        let lines = TextDecoding.lines(text).map(trimTrailing)
        var cues: [Cue] = []
        var i = 0
        var sawContent = false
        while i < lines.count {
            let line = trim(lines[i])
            if line.isEmpty { i += 1; continue }
            sawContent = true
            var id: String?
            var timing = parseTiming(line)
            if timing == nil {
                if i + 1 < lines.count, let next = parseTiming(trim(lines[i + 1])) {
                    id = line
                    timing = next
                    i += 1
                } else {
                    i += 1  // stray line outside a block
                    continue
                }
            }
            guard let (start, end) = timing else { i += 1; continue }
            i += 1
            var textLines: [String] = []
            while i < lines.count {
                let candidate = trim(lines[i])
                if candidate.isEmpty { break }
                if parseTiming(candidate) != nil { break }
                if i + 1 < lines.count, isIndex(candidate), parseTiming(trim(lines[i + 1])) != nil { break }
                textLines.append(lines[i])
                i += 1
            }
            cues.append(Cue(start: start, end: end, text: textLines.joined(separator: "\n"), id: id))
        }
        if cues.isEmpty && sawContent {
            throw SubtitleError.noCues(.srt, "no timing line of the form \"00:00:01,000 --> 00:00:02,000\" found")
        }
        return cues
    }

    private static func isIndex(_ line: String) -> Bool {
        !line.isEmpty && line.unicodeScalars.allSatisfy(\.isASCIIDigit)
    }

    private static func trim(_ line: String) -> String {
        let scalars = line.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.isASCIIWhitespace }),
              let last = scalars.lastIndex(where: { !$0.isASCIIWhitespace }) else { return "" }
        return String(scalars[first...last])
    }

    private static func trimTrailing(_ line: String) -> String {
        let scalars = line.unicodeScalars
        guard let last = scalars.lastIndex(where: { !$0.isASCIIWhitespace }) else { return "" }
        return String(scalars[...last])
    }

    /// Parses `start --> end` (anything after `end` is ignored).
    static func parseTiming(_ line: String) -> (Double, Double)? {
        let s = Array(line.unicodeScalars)
        var p = 0
        while p < s.count, s[p].isASCIIWhitespace { p += 1 }
        guard let start = timestamp(s, &p) else { return nil }
        while p < s.count, s[p].isASCIIWhitespace { p += 1 }
        guard p + 3 <= s.count, s[p] == "-", s[p + 1] == "-", s[p + 2] == ">" else { return nil }
        p += 3
        while p < s.count, s[p].isASCIIWhitespace { p += 1 }
        guard let end = timestamp(s, &p) else { return nil }
        guard p == s.count || s[p].isASCIIWhitespace else { return nil }
        return (start, end)
    }

    /// `[H+:]MM:SS[(,|.)f{1,3}]`
    private static func timestamp(_ s: [Unicode.Scalar], _ p: inout Int) -> Double? {
        var fields: [Double] = []
        while true {
            var count = 0
            var value = 0.0
            while p < s.count, s[p].isASCIIDigit, count < 12 {
                value = value * 10 + Double(s[p].value - 48)
                count += 1
                p += 1
            }
            guard count > 0 else { return nil }
            fields.append(value)
            if fields.count < 3, p < s.count, s[p] == ":" { p += 1; continue }
            break
        }
        guard fields.count >= 2 else { return nil }
        let seconds = fields[fields.count - 1], minutes = fields[fields.count - 2]
        let hours = fields.count == 3 ? fields[0] : 0
        guard minutes <= 59, seconds <= 59 else { return nil }
        var fraction = 0.0
        if p < s.count, s[p] == "," || s[p] == "." {
            p += 1
            var count = 0
            var value = 0.0
            while p < s.count, s[p].isASCIIDigit {
                if count < 3 { value = value * 10 + Double(s[p].value - 48) }
                count += 1
                p += 1
            }
            guard count > 0 else { return nil }
            fraction = value / [1.0, 10, 100, 1000][min(count, 3)]
        }
        return hours * 3600 + minutes * 60 + seconds + fraction
    }
}
