import FoundationEssentials
import TextSupport

/// Every command a client can send. HTTP routes, WebSocket messages and the CLI all decode
/// into this one type and go through `Player.send(_:)`.
public enum Command: Sendable, Equatable {
    case open(OpenRequest)
    case play
    case pause
    case stop
    case seek(SeekRequest)
    case live
    case set(SettingsPatch)
    case variant(VariantRequest)
    case audio(TrackRequest)
    case subtitle(SubtitleRequest)
    case pipStart(PipStartRequest)
    case pipUpdate(PipUpdateRequest)
    case pipStop
    case pipSwap
    case watermark(WatermarkRequest)
    case watermarkRemove
    case queueSet(QueueRequest)
    case queueUpdate(QueueUpdateRequest)
    case queueNext
    case queuePrevious
}

public struct TimeshiftRequest: Codable, Sendable, Equatable {
    /// Seconds of the live stream kept for going back, 1 to 86400.
    public var window: Double
    public static let windowRange: ClosedRange<Double> = 1...86_400
    public init(window: Double) { self.window = window }
}

/// POST /v1/player/open
public struct OpenRequest: Codable, Sendable, Equatable {
    public var uri: String
    public var start: Double?
    public var autoplay: Bool?
    public var headers: [String: String]?
    public var timeshift: TimeshiftRequest?
    /// A subtitle file: a local path or file:// URI (media roots), or an http(s) URL fetched
    /// with this open's request headers (`--allow-scheme`).
    public var subtitle: String?
    /// The subtitle language to show ("ko" matches "ko-KR"): the track of `subtitle` in that
    /// language (a multi-language SAMI file is one track per class language).
    public var subtitleLanguage: String?
    public var contentId: String?
    public var userId: String?
    /// Where the viewer found the content (a page URL), reported in analytics.
    public var originalUrl: String?
    /// Seconds of this content already watched in earlier sessions; carried on.
    public var watched: Double?
    /// A hint for URIs whose kind cannot be told from their text.
    public var kind: SourceKind?
    /// Sent on every request of an http(s) session (master, playlists, segments, keys).
    public var referer: String?
    public var userAgent: String?
    /// Sent on key requests only (EXT-X-KEY URIs), on top of `headers`.
    public var keyHeaders: [String: String]?
    /// API-2 §2: each EXT-X-KEY key comes from this key service (a POST), never from the key
    /// URI itself; nil: `--key-service` when the daemon has one.
    public var keyService: KeyServiceRequest?
    /// Ask `--url-resolver` for the URI (and headers) to play, again on 401/403 and reconnects.
    public var resolve: Bool?
    /// Protected content: `GET /v1/snapshot.jpg` is `403 protected_content` while it plays.
    public var protected: Bool?
    /// A watermark that applies while this item plays (`{userId}` and `{contentId}` in its
    /// text are replaced); the one set by `PUT /v1/overlays/watermark` comes back after.
    public var watermark: WatermarkRequest?

    /// `headers` with `referer` and `userAgent` folded in.
    public var requestHeaders: [String: String] {
        var all = headers ?? [:]
        if let referer { all["Referer"] = referer }
        if let userAgent { all["User-Agent"] = userAgent }
        return all
    }

    public var needsRequestHeaders: Bool { !requestHeaders.isEmpty || !(keyHeaders ?? [:]).isEmpty }

    /// True when the open names only a `contentId` and no feature has found its copy yet.
    public var namesOnlyContent: Bool { uri.isEmpty && contentId != nil && localCopy == nil }

    /// Set by the offline library's feature, never sent by clients: the local copy plays
    /// instead of `uri` (which stays what the snapshot shows).
    public var localCopy: LocalCopy?

    /// The wire fields (`localCopy` is not one).
    private enum CodingKeys: String, CodingKey {
        case uri, start, autoplay, headers, timeshift, subtitle, contentId, userId, originalUrl, watched, kind, referer, userAgent, keyHeaders
        case keyService, resolve, protected, watermark, subtitleLanguage
    }

    /// The fields of the body.
    public static let fields = ["uri", "start", "autoplay", "headers", "timeshift", "subtitle", "contentId", "userId", "originalUrl",
                                "watched", "kind", "referer", "userAgent", "keyHeaders", "keyService", "resolve", "protected", "watermark",
                                "subtitleLanguage"]

    public init(uri: String, start: Double? = nil, autoplay: Bool? = nil) {
        self.uri = uri
        self.start = start
        self.autoplay = autoplay
    }

    public init(from decoder: any Decoder) throws {
        try UnknownKeys.reject(in: decoder, allowed: Set(Self.fields))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // A content id alone names a copy in the offline library, or content the URL resolver
        // names (`uri` is then empty until the library or the resolver fills it in).
        contentId = try c.decodeIfPresent(String.self, forKey: .contentId)
        resolve = try c.decodeIfPresent(Bool.self, forKey: .resolve)
        if resolve == true, contentId == nil { throw APIError(.invalidArgument, "'resolve' needs a 'contentId' to resolve") }
        if let given = try c.decodeIfPresent(String.self, forKey: .uri) {
            uri = given
        } else if contentId != nil {
            uri = ""
        } else {
            uri = try c.decode(String.self, forKey: .uri)  // throws: 'uri' is missing
        }
        start = try c.decodeIfPresent(Double.self, forKey: .start)
        autoplay = try c.decodeIfPresent(Bool.self, forKey: .autoplay)
        headers = try c.decodeIfPresent([String: String].self, forKey: .headers)
        timeshift = try c.decodeIfPresent(TimeshiftRequest.self, forKey: .timeshift)
        subtitle = try c.decodeIfPresent(String.self, forKey: .subtitle)
        subtitleLanguage = try c.decodeIfPresent(String.self, forKey: .subtitleLanguage)
        userId = try c.decodeIfPresent(String.self, forKey: .userId)
        originalUrl = try c.decodeIfPresent(String.self, forKey: .originalUrl)
        watched = try c.decodeIfPresent(Double.self, forKey: .watched)
        kind = try c.decodeIfPresent(SourceKind.self, forKey: .kind)
        referer = try c.decodeIfPresent(String.self, forKey: .referer)
        userAgent = try c.decodeIfPresent(String.self, forKey: .userAgent)
        keyHeaders = try c.decodeIfPresent([String: String].self, forKey: .keyHeaders)
        keyService = try c.decodeIfPresent(KeyServiceRequest.self, forKey: .keyService)
        protected = try c.decodeIfPresent(Bool.self, forKey: .protected)
        watermark = try c.decodeIfPresent(WatermarkRequest.self, forKey: .watermark)
        guard !uri.trimmingWhitespace().isEmpty || (c.contains(.contentId) && !c.contains(.uri)) else {
            throw APIError(.invalidArgument, "'uri' must not be empty")
        }
        try checkURILength(uri, field: "uri")
        try checkURILength(subtitle, field: "subtitle")
        for (key, value) in [("contentId", contentId), ("userId", userId), ("originalUrl", originalUrl)] {
            // Counted in Unicode scalars, as JSON Schema's maxLength counts (openapi.json).
            if let value, value.unicodeScalars.count > 2048 { throw APIError(.invalidArgument, "'\(key)' is limited to 2048 characters") }
        }
        if let watched, !(watched.isFinite && watched >= 0) {
            throw APIError(.invalidArgument, "'watched' must be a number of seconds >= 0")
        }
        try RequestHeaders.validate(requestHeaders, field: "headers")
        try RequestHeaders.validate(keyHeaders ?? [:], field: "keyHeaders")
        if let window = timeshift?.window, !TimeshiftRequest.windowRange.contains(window) {
            throw APIError(.invalidArgument, "'timeshift.window' must be 1 to 86400 seconds")
        }
        if let start, !(start.isFinite && start >= 0) {
            throw APIError(.invalidArgument, "'start' must be a number of seconds >= 0")
        }
        if let subtitle, subtitle.trimmingWhitespace().isEmpty {
            throw APIError(.invalidArgument, "'subtitle' must be a subtitle file's URI or path")
        }
        if let subtitleLanguage, !LanguageCode.isValid(subtitleLanguage) {
            throw APIError(.invalidArgument, "'subtitleLanguage' must be a language tag such as \"ko\" or \"en-US\"")
        }
    }
}

/// A copy of the content on this machine that plays instead of the network source: the
/// loopback URL the library serves it at (decrypted on the fly) and what kind it is.
public struct LocalCopy: Sendable, Equatable {
    public var playbackURI: String
    public var kind: SourceKind
    public init(playbackURI: String, kind: SourceKind) {
        self.playbackURI = playbackURI
        self.kind = kind
    }
}

/// POST /v1/player/seek: exactly one of `position` (absolute) or `offset` (relative).
/// Seeks snap to a keyframe unless `exact` is true.
public struct SeekRequest: Codable, Sendable, Equatable {
    public var position: Double?
    public var offset: Double?
    public var exact: Bool?
    public static let fields = ["position", "offset", "exact"]

    public init(position: Double? = nil, offset: Double? = nil, exact: Bool? = nil) {
        self.position = position
        self.offset = offset
        self.exact = exact
    }

    public init(from decoder: any Decoder) throws {
        try UnknownKeys.reject(in: decoder, allowed: Set(Self.fields))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        position = try c.decodeIfPresent(Double.self, forKey: .position)
        offset = try c.decodeIfPresent(Double.self, forKey: .offset)
        exact = try c.decodeIfPresent(Bool.self, forKey: .exact)
        guard (position == nil) != (offset == nil) else {
            throw APIError(.invalidArgument, "give exactly one of 'position' or 'offset'")
        }
        if let position, !(position.isFinite && position >= 0) {
            throw APIError(.invalidArgument, "'position' must be a number of seconds >= 0")
        }
        if let offset, !offset.isFinite {
            throw APIError(.invalidArgument, "'offset' must be a finite number of seconds")
        }
    }
}

/// POST /v1/player/variant: a variant id, or "auto".
public struct VariantRequest: Codable, Sendable, Equatable {
    public var id: String
    public static let fields = ["id"]
}

/// POST /v1/player/tracks/audio
public struct TrackRequest: Codable, Sendable, Equatable {
    public var id: String
    public static let fields = ["id"]
    public init(id: String) { self.id = id }
}

/// POST /v1/player/tracks/subtitle: `{"id": "..."}` selects a track, `{"id": null}` turns
/// subtitles off, `{"uri": "..."}` adds an external SRT, SAMI or WebVTT file and selects it.
/// One of the keys is required so that an empty body is an error rather than a silent "off".
public struct SubtitleRequest: Codable, Sendable, Equatable {
    public var id: String?
    public var uri: String?
    public static let fields = ["id", "uri"]
    public init(id: String?) { self.id = id }
    public init(uri: String) { self.uri = uri }
    private enum CodingKeys: String, CodingKey { case id, uri }

    public init(from decoder: any Decoder) throws {
        try UnknownKeys.reject(in: decoder, allowed: Set(Self.fields))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard c.contains(.id) != c.contains(.uri) else {
            throw APIError(.invalidArgument, "give 'id' (null turns subtitles off) or 'uri' (an external subtitle file)")
        }
        id = try c.decodeIfPresent(String.self, forKey: .id)
        uri = try c.decodeIfPresent(String.self, forKey: .uri)
        if c.contains(.uri), uri?.trimmingWhitespace().isEmpty ?? true {
            throw APIError(.invalidArgument, "'uri' must be a subtitle file's URI or path")
        }
        try checkURILength(uri, field: "uri")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if let uri { try c.encode(uri, forKey: .uri) } else { try c.encode(id, forKey: .id) }
    }
}

/// Language tags as requests carry them (BCP 47 shape: letters, digits and "-"/"_", 1 to
/// 35 characters, starting with a letter).
public enum LanguageCode {
    public static let pattern = "^[A-Za-z][A-Za-z0-9_-]{0,34}$"
    public static func isValid(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, text.unicodeScalars.count <= 35,
              first.isASCII, first.properties.isAlphabetic else { return false }
        return text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }
    }
}

/// Rules for headers a client asks Marquee to send upstream.
public enum RequestHeaders {
    /// Hop-by-hop and framing headers belong to each connection, not to the session.
    static let forbidden: Set<String> = ["connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te",
                                         "trailer", "transfer-encoding", "upgrade", "host", "content-length"]

    public static func validate(_ headers: [String: String], field: String) throws(APIError) {
        let token = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        for (name, value) in headers {
            guard !name.isEmpty, name.allSatisfy({ token.contains($0) }) else {
                throw APIError(.invalidArgument, "'\(field)': '\(name)' is not a valid header name")
            }
            guard !forbidden.contains(name.lowercased()) else {
                throw APIError(.invalidArgument, "'\(field)': '\(name)' is a hop-by-hop header and cannot be set")
            }
            guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                throw APIError(.invalidArgument, "'\(field)': the value of '\(name)' contains a line break")
            }
        }
    }
}

/// The longest URI or path a request may carry. Signed CDN URLs run to a few KiB; nothing
/// real is longer, and error messages echo the URI.
public let maxURILength = 8192

func checkURILength(_ value: String?, field: String) throws(APIError) {
    if let value, value.utf8.count > maxURILength {
        throw APIError(.invalidArgument, "'\(field)' is limited to \(maxURILength) bytes")
    }
}

/// `open`'s `keyService` (API-2 §2): where EXT-X-KEY keys are POSTed for.
public struct KeyServiceRequest: Codable, Sendable, Equatable {
    /// The fields of the body.
    public static let fields = ["uri", "headers"]
    /// An http(s) URL.
    public var uri: String
    /// Sent with every key request (a bearer token, for example); never logged.
    public var headers: [String: String]?

    public init(uri: String, headers: [String: String]? = nil) {
        self.uri = uri
        self.headers = headers
    }

    public init(from decoder: any Decoder) throws {
        try UnknownKeys.reject(in: decoder, allowed: Set(Self.fields))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        uri = try c.decode(String.self, forKey: .uri)
        headers = try c.decodeIfPresent([String: String].self, forKey: .headers)
        try checkURILength(uri, field: "keyService.uri")
        // As the OpenAPI document's pattern says: the scheme, then something that is not a space.
        let lower = uri.lowercased()
        let rest = lower.hasPrefix("http://") ? lower.dropFirst(7) : lower.hasPrefix("https://") ? lower.dropFirst(8) : nil
        guard let first = rest?.first, !first.isWhitespace else {
            throw APIError(.invalidArgument, "'keyService.uri' must be an http(s) URL")
        }
        try RequestHeaders.validate(headers ?? [:], field: "keyService.headers")
    }
}
