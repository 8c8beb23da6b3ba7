import FoundationEssentials

/// The subtitle formats this module reads.
public enum SubtitleFormat: String, Sendable, Equatable, CaseIterable {
    case srt
    case sami
    case webvtt
}

/// One timed piece of subtitle text.
///
/// `text` keeps the format's inline markup as written (`<i>`, `<b>`, WebVTT `<c.class>` and
/// `<v Voice>` tags, SAMI `<B>`/`<SPAN ...>`); use `plainText` for the text without markup.
public struct Cue: Sendable, Equatable {
    /// Start time in seconds.
    public var start: Double
    /// End time in seconds.
    public var end: Double
    /// Cue text with inline markup kept; lines are separated by "\n".
    public var text: String
    /// WebVTT cue identifier or SRT index; `nil` when the cue has none.
    public var id: String?
    /// WebVTT cue settings as written after the end timestamp (e.g. `"align:start line:0"`).
    public var settings: String?
    /// SAMI language (from the `<STYLE>` class rule's `lang:` or the `<P lang=...>` attribute).
    public var language: String?
    /// SAMI class of the `<P>` element (e.g. `"ENUSCC"`).
    public var className: String?

    public init(start: Double, end: Double, text: String, id: String? = nil, settings: String? = nil,
                language: String? = nil, className: String? = nil) {
        self.start = start
        self.end = end
        self.text = text
        self.id = id
        self.settings = settings
        self.language = language
        self.className = className
    }

    /// `text` without tags, with character references (`&amp;` `&lt;` `&gt;` `&nbsp;` `&quot;`
    /// `&apos;` `&lrm;` `&rlm;`, `&#NN;`, `&#xHH;`) decoded. Unknown references stay as written.
    public var plainText: String { Markup.plainText(text) }
}

/// A parsed subtitle file.
public struct SubtitleDocument: Sendable, Equatable {
    public var format: SubtitleFormat
    public var cues: [Cue]
    /// What a SAMI file's classes call their languages ("ko-kr" → "Korean"; keys
    /// lowercased), for the tracks' titles.
    public var languageNames: [String: String]

    public init(format: SubtitleFormat, cues: [Cue], languageNames: [String: String] = [:]) {
        self.format = format
        self.cues = cues
        self.languageNames = languageNames
    }

    /// Parses subtitle bytes.
    ///
    /// The text encoding comes from the byte order mark: UTF-8, UTF-16 LE/BE or UTF-32 LE/BE.
    /// Without a BOM the bytes are read as UTF-8, and if they are not valid UTF-8, as CP949
    /// when they are Korean (see `TextDecoding`), else as Windows-1252 (Latin-1 with the
    /// 0x80–0x9F printable extensions). CRLF, CR and LF line
    /// endings are all accepted.
    ///
    /// With `format == nil` the format is sniffed: a `WEBVTT` signature means WebVTT, a `<SAMI`
    /// tag means SAMI, anything else is read as SRT (which needs at least one timing line).
    ///
    /// - Throws: `SubtitleError` when the input cannot be read as the format at all (no WebVTT
    ///   signature, SRT text without any timing line, SAMI without any `<SYNC>`, a `<SYNC>`
    ///   without a start time). Single bad cues are skipped rather than thrown.
    /// `charset` (an HTTP Content-Type's) and `language` (the viewer's `subtitleLanguage`)
    /// help tell legacy encodings apart (see `TextDecoding`).
    public static func parse(_ data: Data, format: SubtitleFormat? = nil, charset: String? = nil,
                             language: String? = nil) throws -> SubtitleDocument {
        let text = TextDecoding.decode(data, charset: charset, language: language).text
        return try parse(text: text, format: format)
    }

    /// Parses already decoded text; see `parse(_:format:)`.
    public static func parse(text: String, format: SubtitleFormat? = nil) throws -> SubtitleDocument {
        let resolved = format ?? sniff(text: text)
        switch resolved {
        case .webvtt: return SubtitleDocument(format: .webvtt, cues: try WebVTTParser.parse(text))
        case .srt: return SubtitleDocument(format: .srt, cues: try SRTParser.parse(text))
        case .sami:
            let parsed = try SAMIParser.parseDocument(text)
            return SubtitleDocument(format: .sami, cues: parsed.cues, languageNames: parsed.languageNames)
        }
    }

    /// Guesses the format of decoded text: `WEBVTT` at the start → WebVTT, a `<SAMI` tag → SAMI,
    /// otherwise SRT.
    public static func sniff(text: String) -> SubtitleFormat {
        var scalars = Substring(text).unicodeScalars
        if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }
        let trimmed = scalars.drop(while: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
        if trimmed.starts(with: "WEBVTT".unicodeScalars) { return .webvtt }
        if containsSAMITag(text) { return .sami }
        return .srt
    }

    /// Whether "<SAMI" occurs in any ASCII case. (Foundation's case-insensitive `range(of:)`
    /// is not in FoundationEssentials; the tag is ASCII, so comparing UTF-8 bytes suffices.)
    private static func containsSAMITag(_ text: String) -> Bool {
        let tag = Array("<sami".utf8)
        let bytes = Array(text.utf8)
        guard bytes.count >= tag.count else { return false }
        return (0...(bytes.count - tag.count)).contains { start in
            tag.indices.allSatisfy { i in
                let byte = bytes[start + i]
                // ORing 0x20 lowercases ASCII letters; "<" already equals itself.
                return (i == 0 ? byte : byte | 0x20) == tag[i]
            }
        }
    }
}

/// Why a subtitle file could not be parsed.
public enum SubtitleError: Error, Equatable, CustomStringConvertible, Sendable {
    /// A WebVTT file must start with `WEBVTT` followed by nothing, a space, a tab or a newline.
    case missingWebVTTSignature
    /// The file has content but no cue could be found in it (no SRT timing line, no SAMI SYNC).
    case noCues(SubtitleFormat, String)
    /// A SAMI `<SYNC>` element without a usable `Start` attribute.
    case missingSyncStart(String)

    public var description: String {
        switch self {
        case .missingWebVTTSignature:
            return "not a WebVTT file: the first line must be \"WEBVTT\", optionally followed by a space or tab and text"
        case let .noCues(format, why):
            return "no \(format.rawValue) cues: \(why)"
        case let .missingSyncStart(context):
            return "SAMI <SYNC> without a valid Start time: \(context)"
        }
    }
}
