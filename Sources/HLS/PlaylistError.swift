/// The one error the HLS parser throws. Every malformed input ends up here, never in a trap.
///
/// `line` is 1-based; 0 means the input as a whole (for example bytes that are not UTF-8).
public struct PlaylistError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// The input is not UTF-8 text.
        case invalidEncoding
        /// The first line is not `#EXTM3U` (RFC 8216 s4.3.1.1).
        case missingHeader
        /// A tag's value does not have the form the RFC gives it.
        case malformedTag(tag: String, detail: String)
        /// An attribute-list could not be tokenized (RFC 8216 s4.2).
        case malformedAttributeList(tag: String, detail: String)
        /// A REQUIRED attribute is absent.
        case missingAttribute(tag: String, attribute: String)
        /// An attribute is present but its value is not of the attribute's type.
        case invalidAttributeValue(tag: String, attribute: String, value: String)
        /// `EXTINF` or `EXT-X-STREAM-INF` is not followed by a URI line.
        case missingURI(tag: String)
        /// A URI line with no `EXTINF` (media) or `EXT-X-STREAM-INF` (master) before it.
        case unexpectedURI(String)
        /// Master-only and media-only tags in the same playlist (RFC 8216 s4.1).
        case mixedPlaylist(tag: String)
        /// A `{$name}` reference with no EXT-X-DEFINE for `name`.
        case undefinedVariable(String)
        /// EXT-X-DEFINE for a name that is already defined.
        case duplicateVariable(String)
        /// A number too large for this platform's integers.
        case overflow(String)
    }

    public let line: Int
    public let reason: Reason

    public init(line: Int, reason: Reason) {
        self.line = line
        self.reason = reason
    }

    public var description: String { "line \(line): \(reasonText)" }

    public var reasonText: String {
        switch reason {
        case .invalidEncoding: return "input is not UTF-8 text"
        case .missingHeader: return "first line must be #EXTM3U"
        case let .malformedTag(tag, detail): return "\(tag): \(detail)"
        case let .malformedAttributeList(tag, detail): return "\(tag): malformed attribute list: \(detail)"
        case let .missingAttribute(tag, attribute): return "\(tag): missing required attribute \(attribute)"
        case let .invalidAttributeValue(tag, attribute, value): return "\(tag): invalid value for \(attribute): \(value)"
        case let .missingURI(tag): return "\(tag) must be followed by a URI line"
        case let .unexpectedURI(uri): return "URI line without a preceding tag that takes it: \(uri)"
        case let .mixedPlaylist(tag): return "\(tag) mixes master and media playlist tags"
        case let .undefinedVariable(name): return "undefined variable {$\(name)}"
        case let .duplicateVariable(name): return "variable \(name) defined twice"
        case let .overflow(text): return "number out of range: \(text)"
        }
    }
}
