/// WebVTT parser following the W3C WebVTT parser algorithm as Chromium implements it.
///
/// - The file must start with `WEBVTT` followed by end of input, a space, a tab or a line
///   break; otherwise `SubtitleError.missingWebVTTSignature` is thrown.
/// - Header text, `NOTE`, `STYLE` and `REGION` blocks produce no cues.
/// - A block is a cue when its first or second line contains `-->` and parses as timings.
///   A cue whose timings do not parse is dropped; the rest of the file still parses.
/// - Timestamps are `[hh:]mm:ss.ttt`; hours may have any number of digits, minutes and
///   seconds exactly two (at most 59), fractions exactly three.
/// - Cue text is kept as written (tags and character references included); U+0000 becomes
///   U+FFFD.
enum WebVTTParser {
    static func parse(_ input: String) throws -> [Cue] {
        var text = input
        if text.unicodeScalars.first == "\u{FEFF}" { text = String(text.unicodeScalars.dropFirst()) }
        if text.unicodeScalars.contains("\u{0000}") {
            text = String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == "\u{0000}" ? "\u{FFFD}" : $0 }))
        }
        let lines = TextDecoding.lines(text)
        guard let first = lines.first, isSignature(first) else { throw SubtitleError.missingWebVTTSignature }

        var parser = BlockParser(lines: lines, index: 1)
        if parser.index < lines.count {
            if lines[parser.index].isEmpty {
                parser.index += 1
            } else {
                _ = parser.collectBlock(inHeader: true)
            }
        }
        parser.skipEmptyLines()
        var cues: [Cue] = []
        while parser.index < lines.count {
            let before = parser.index
            if let cue = parser.collectBlock(inHeader: false) { cues.append(cue) }
            parser.skipEmptyLines()
            if parser.index == before { parser.index += 1 }  // defensive: always make progress
        }
        return cues
    }

    static func isSignature(_ line: String) -> Bool {
        let scalars = Array(line.unicodeScalars)
        guard scalars.count >= 6, String(String.UnicodeScalarView(scalars[0..<6])) == "WEBVTT" else { return false }
        return scalars.count == 6 || scalars[6] == " " || scalars[6] == "\t"
    }

    struct BlockParser {
        let lines: [String]
        var index: Int

        mutating func skipEmptyLines() {
            while index < lines.count, lines[index].isEmpty { index += 1 }
        }

        /// "Collect a WebVTT block": returns the cue when the block is a valid cue.
        mutating func collectBlock(inHeader: Bool) -> Cue? {
            var lineCount = 0
            var previousIndex = index
            var buffer = ""
            var seenArrow = false
            var cue: Cue?
            while index < lines.count {
                let line = lines[index]
                index += 1
                lineCount += 1
                if line.contains("-->") {
                    if !inHeader && (lineCount == 1 || (lineCount == 2 && !seenArrow)) {
                        seenArrow = true
                        previousIndex = index
                        if let timing = WebVTTParser.parseTimingLine(line) {
                            cue = Cue(start: timing.start, end: timing.end, text: "",
                                      id: buffer.isEmpty ? nil : buffer, settings: timing.settings)
                            buffer = ""
                        } else {
                            cue = nil
                        }
                    } else {
                        index = previousIndex
                        break
                    }
                } else if line.isEmpty {
                    break
                } else {
                    if !buffer.isEmpty { buffer += "\n" }
                    buffer += line
                    previousIndex = index
                }
            }
            guard var result = cue else { return nil }
            result.text = buffer
            return result
        }
    }

    /// Parses `start --> end [settings]`.
    static func parseTimingLine(_ line: String) -> (start: Double, end: Double, settings: String?)? {
        let scalars = Array(line.unicodeScalars)
        var position = 0
        skipWhitespace(scalars, &position)
        guard let start = parseTimestamp(scalars, &position) else { return nil }
        skipWhitespace(scalars, &position)
        guard position + 3 <= scalars.count, scalars[position] == "-", scalars[position + 1] == "-",
              scalars[position + 2] == ">" else { return nil }
        position += 3
        skipWhitespace(scalars, &position)
        guard let end = parseTimestamp(scalars, &position) else { return nil }
        skipWhitespace(scalars, &position)
        var rest = scalars[position...]
        while let last = rest.last, last.isASCIIWhitespace { rest = rest.dropLast() }
        let settings = rest.isEmpty ? nil : String(String.UnicodeScalarView(rest))
        return (start, end, settings)
    }

    private static func skipWhitespace(_ s: [Unicode.Scalar], _ position: inout Int) {
        while position < s.count, s[position].isASCIIWhitespace { position += 1 }
    }

    /// Collects ASCII digits; returns their count and value (the value saturates).
    private static func digits(_ s: [Unicode.Scalar], _ position: inout Int) -> (count: Int, value: Double) {
        var count = 0
        var value = 0.0
        while position < s.count, s[position].isASCIIDigit {
            value = value * 10 + Double(s[position].value - 48)
            count += 1
            position += 1
        }
        return (count, value)
    }

    /// "Collect a WebVTT timestamp".
    static func parseTimestamp(_ s: [Unicode.Scalar], _ position: inout Int) -> Double? {
        guard position < s.count, s[position].isASCIIDigit else { return nil }
        let first = digits(s, &position)
        let hoursMode = first.count != 2 || first.value > 59
        guard position < s.count, s[position] == ":" else { return nil }
        position += 1
        let second = digits(s, &position)
        guard second.count == 2 else { return nil }
        var hours = first.value, minutes = second.value, seconds = 0.0
        if hoursMode || (position < s.count && s[position] == ":") {
            guard position < s.count, s[position] == ":" else { return nil }
            position += 1
            let third = digits(s, &position)
            guard third.count == 2 else { return nil }
            seconds = third.value
        } else {
            seconds = minutes
            minutes = hours
            hours = 0
        }
        guard position < s.count, s[position] == "." else { return nil }
        position += 1
        let fraction = digits(s, &position)
        guard fraction.count == 3 else { return nil }
        guard minutes <= 59, seconds <= 59 else { return nil }
        return hours * 3600 + minutes * 60 + seconds + fraction.value / 1000
    }
}
