import FoundationEssentials

/// EXT-X-KEY / EXT-X-SESSION-KEY (RFC 8216 s4.3.2.4, s4.3.4.5).
public struct Key: Sendable, Equatable {
    public enum Method: Sendable, Equatable, Hashable, CustomStringConvertible {
        case none
        case aes128
        case sampleAES
        /// A method RFC 8216 does not define (for example SAMPLE-AES-CTR), kept by name.
        case other(String)

        public init(_ text: String) {
            switch text {
            case "NONE": self = .none
            case "AES-128": self = .aes128
            case "SAMPLE-AES": self = .sampleAES
            default: self = .other(text)
            }
        }

        public var description: String {
            switch self {
            case .none: return "NONE"
            case .aes128: return "AES-128"
            case .sampleAES: return "SAMPLE-AES"
            case let .other(name): return name
            }
        }
    }

    public var method: Method
    /// The URI attribute as written (after variable substitution); nil when absent.
    public var uri: String?
    public var resolvedURL: URL?
    /// The IV attribute as 16 bytes (a shorter hexadecimal value is left-padded with zeros);
    /// nil when absent, in which case the segment's media sequence number is the IV.
    public var iv: [UInt8]?
    /// KEYFORMAT; "identity" when absent.
    public var keyFormat: String
    /// KEYFORMATVERSIONS; [1] when absent.
    public var keyFormatVersions: [Int]

    public init(method: Method, uri: String? = nil, resolvedURL: URL? = nil, iv: [UInt8]? = nil,
                keyFormat: String = "identity", keyFormatVersions: [Int] = [1]) {
        self.method = method
        self.uri = uri
        self.resolvedURL = resolvedURL
        self.iv = iv
        self.keyFormat = keyFormat
        self.keyFormatVersions = keyFormatVersions
    }

    /// Reads a key tag's attribute list.
    init(_ attrs: AttributeList, base: URL?) throws {
        let methodText = try attrs.require("METHOD") { try attrs.enumerated($0) }
        method = Method(methodText)
        uri = attrs.quotedString("URI")
        if method != .none, uri == nil {
            throw PlaylistError(line: attrs.line, reason: .missingAttribute(tag: attrs.tag, attribute: "URI"))
        }
        resolvedURL = uri.flatMap { URLResolution.resolve($0, against: base) }
        if let bytes = try attrs.hexadecimal("IV") {
            let significant = bytes.drop(while: { $0 == 0 })
            guard significant.count <= 16 else {
                throw PlaylistError(line: attrs.line, reason: .invalidAttributeValue(
                    tag: attrs.tag, attribute: "IV", value: attrs["IV"]?.text ?? ""))
            }
            iv = Array(repeating: 0, count: 16 - significant.count) + significant
        } else {
            iv = nil
        }
        keyFormat = attrs.quotedString("KEYFORMAT") ?? "identity"
        if let versions = attrs.quotedString("KEYFORMATVERSIONS") {
            var list: [Int] = []
            for part in versions.split(separator: "/", omittingEmptySubsequences: false) {
                guard let n = try NumberParsing.decimalInteger(String(PlaylistLines.trim(part)), line: attrs.line) else {
                    throw PlaylistError(line: attrs.line, reason: .invalidAttributeValue(
                        tag: attrs.tag, attribute: "KEYFORMATVERSIONS", value: versions))
                }
                list.append(n)
            }
            keyFormatVersions = list
        } else {
            keyFormatVersions = [1]
        }
    }

    /// The 16-byte big-endian form of a media sequence number: the IV of a segment whose key
    /// has no IV attribute (RFC 8216 s5.2).
    public static func implicitIV(sequence: Int) -> [UInt8] {
        let value = UInt64(clamping: sequence)
        return Array(repeating: 0, count: 8) + (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }
}
