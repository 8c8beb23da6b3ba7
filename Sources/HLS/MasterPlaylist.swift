import FoundationEssentials

/// A master (multivariant) playlist: RFC 8216 s4.3.4.
public struct MasterPlaylist: Sendable, Equatable {
    public var version: Int?
    /// EXT-X-STREAM-INF entries, in playlist order.
    public var variants: [VariantStream] = []
    /// EXT-X-I-FRAME-STREAM-INF entries, in playlist order.
    public var iFrameVariants: [VariantStream] = []
    /// EXT-X-MEDIA entries, in playlist order.
    public var renditions: [Rendition] = []
    public var sessionKeys: [Key] = []
    public var sessionData: [SessionData] = []
    public var independentSegments = false
    public var start: StartOffset?
    /// EXT-X-DEFINE variables, for `Playlist.parse(_:url:importing:)` of the media playlists.
    public var definitions: [String: String] = [:]

    public init() {}

    /// The renditions of one group (an AUDIO, VIDEO, SUBTITLES or CLOSED-CAPTIONS group id).
    public func renditions(inGroup groupID: String, type: Rendition.MediaType) -> [Rendition] {
        renditions.filter { $0.groupID == groupID && $0.type == type }
    }
}

public struct Resolution: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)x\(height)" }
}

/// EXT-X-STREAM-INF (with its URI line) or EXT-X-I-FRAME-STREAM-INF (with its URI attribute).
public struct VariantStream: Sendable, Equatable {
    public enum ClosedCaptions: Sendable, Equatable {
        /// CLOSED-CAPTIONS=NONE: the variant has no closed captions.
        case none
        /// CLOSED-CAPTIONS="group": the GROUP-ID of CLOSED-CAPTIONS renditions.
        case group(String)
    }

    public var uri: String
    public var resolvedURL: URL?
    /// BANDWIDTH in bits per second. REQUIRED by the RFC, but some real playlists omit it:
    /// then 0 (and `attributes["BANDWIDTH"]` is nil). A decimal-float value is truncated, as
    /// players do.
    public var bandwidth: Int
    public var averageBandwidth: Int?
    public var codecs: String?
    public var supplementalCodecs: String?
    public var resolution: Resolution?
    public var frameRate: Double?
    /// HDCP-LEVEL: NONE, TYPE-0, TYPE-1.
    public var hdcpLevel: String?
    /// VIDEO-RANGE: SDR, HLG, PQ.
    public var videoRange: String?
    public var audio: String?
    public var video: String?
    public var subtitles: String?
    public var closedCaptions: ClosedCaptions?
    /// PROGRAM-ID (removed in protocol version 6, still common).
    public var programID: Int?
    public var pathwayID: String?
    public var stableVariantID: String?
    /// Every attribute as written (quotes removed, variables substituted), for attributes not
    /// modeled above, such as the NAME some servers add.
    public var attributes: [String: String] = [:]

    public init(uri: String, resolvedURL: URL? = nil, bandwidth: Int) {
        self.uri = uri
        self.resolvedURL = resolvedURL
        self.bandwidth = bandwidth
    }

    /// The CODECS entries, trimmed.
    public var codecList: [String] { codecs.map(Codecs.split) ?? [] }
    /// The first audio codec in CODECS.
    public var audioCodec: String? { codecList.first(where: Codecs.isAudio) }
    /// The first video codec in CODECS.
    public var videoCodec: String? { codecList.first(where: Codecs.isVideo) }

    init(_ a: AttributeList, uri: String, base: URL?) throws {
        self.init(uri: uri, resolvedURL: URLResolution.resolve(uri, against: base), bandwidth: try a.bitRate("BANDWIDTH") ?? 0)
        averageBandwidth = try a.bitRate("AVERAGE-BANDWIDTH")
        codecs = a.quotedString("CODECS")
        supplementalCodecs = a.quotedString("SUPPLEMENTAL-CODECS")
        resolution = try a.resolution("RESOLUTION")
        frameRate = try a.decimalFloat("FRAME-RATE")
        hdcpLevel = try a.enumerated("HDCP-LEVEL")
        videoRange = try a.enumerated("VIDEO-RANGE")
        audio = a.quotedString("AUDIO")
        video = a.quotedString("VIDEO")
        subtitles = a.quotedString("SUBTITLES")
        if let cc = a["CLOSED-CAPTIONS"] {
            closedCaptions = (!cc.quoted && cc.text == "NONE") ? ClosedCaptions.none : .group(cc.text)
        }
        programID = try a.decimalInteger("PROGRAM-ID")
        pathwayID = a.quotedString("PATHWAY-ID")
        stableVariantID = a.quotedString("STABLE-VARIANT-ID")
        attributes = a.rawValues
    }
}

/// EXT-X-MEDIA: an alternative rendition (RFC 8216 s4.3.4.1).
public struct Rendition: Sendable, Equatable {
    public enum MediaType: String, Sendable, Equatable, Hashable {
        case audio = "AUDIO"
        case video = "VIDEO"
        case subtitles = "SUBTITLES"
        case closedCaptions = "CLOSED-CAPTIONS"
    }

    public var type: MediaType
    public var groupID: String
    public var name: String
    public var language: String?
    public var assocLanguage: String?
    public var isDefault = false
    public var autoselect = false
    public var forced = false
    /// INSTREAM-ID (CLOSED-CAPTIONS only): CC1...CC4 or SERVICE1...SERVICE63.
    public var instreamID: String?
    public var characteristics: String?
    public var channels: String?
    /// nil when the rendition is carried in the variant's own stream.
    public var uri: String?
    public var resolvedURL: URL?
    public var stableRenditionID: String?
    /// Every attribute as written (quotes removed, variables substituted).
    public var attributes: [String: String] = [:]

    public init(type: MediaType, groupID: String, name: String) {
        self.type = type
        self.groupID = groupID
        self.name = name
    }

    init(_ a: AttributeList, base: URL?) throws {
        let typeText = try a.require("TYPE") { try a.enumerated($0) }
        guard let type = MediaType(rawValue: typeText) else {
            throw PlaylistError(line: a.line, reason: .invalidAttributeValue(tag: a.tag, attribute: "TYPE", value: typeText))
        }
        self.init(type: type,
                  groupID: try a.require("GROUP-ID") { a.quotedString($0) },
                  name: try a.require("NAME") { a.quotedString($0) })
        language = a.quotedString("LANGUAGE")
        assocLanguage = a.quotedString("ASSOC-LANGUAGE")
        isDefault = try a.bool("DEFAULT") ?? false
        autoselect = try a.bool("AUTOSELECT") ?? false
        forced = try a.bool("FORCED") ?? false
        instreamID = a.quotedString("INSTREAM-ID")
        characteristics = a.quotedString("CHARACTERISTICS")
        channels = a.quotedString("CHANNELS")
        uri = a.quotedString("URI")
        resolvedURL = uri.flatMap { URLResolution.resolve($0, against: base) }
        stableRenditionID = a.quotedString("STABLE-RENDITION-ID")
        attributes = a.rawValues
    }
}

/// EXT-X-SESSION-DATA (RFC 8216 s4.3.4.4).
public struct SessionData: Sendable, Equatable {
    public var dataID: String
    public var value: String?
    public var uri: String?
    public var resolvedURL: URL?
    public var language: String?

    public init(dataID: String, value: String? = nil, uri: String? = nil, resolvedURL: URL? = nil, language: String? = nil) {
        self.dataID = dataID
        self.value = value
        self.uri = uri
        self.resolvedURL = resolvedURL
        self.language = language
    }

    init(_ a: AttributeList, base: URL?) throws {
        let uri = a.quotedString("URI")
        self.init(dataID: try a.require("DATA-ID") { a.quotedString($0) },
                  value: a.quotedString("VALUE"),
                  uri: uri,
                  resolvedURL: uri.flatMap { URLResolution.resolve($0, against: base) },
                  language: a.quotedString("LANGUAGE"))
    }
}
