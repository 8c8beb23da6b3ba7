import FoundationEssentials

// The offline library's wire shapes (API-2 §1): the request that adds an item, an item, the
// list, licences, and the `download` and `library` events.

/// A licence's limits, all optional: `PUT /v1/library/{id}/license` and `license` of an add.
public struct LicenseTerms: Codable, Sendable, Equatable {
    /// RFC 3339 time after which the copy does not play.
    public var expires: String?
    public var maxPlays: Int?
    /// Seconds of playing, in all.
    public var maxPlayTime: Double?
    public static let fields = ["expires", "maxPlays", "maxPlayTime"]

    public init(expires: String? = nil, maxPlays: Int? = nil, maxPlayTime: Double? = nil) {
        self.expires = expires
        self.maxPlays = maxPlays
        self.maxPlayTime = maxPlayTime
    }

    public init(from decoder: any Decoder) throws {
        try UnknownKeys.reject(in: decoder, allowed: Set(Self.fields))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        expires = try c.decodeIfPresent(String.self, forKey: .expires)
        maxPlays = try c.decodeIfPresent(Int.self, forKey: .maxPlays)
        maxPlayTime = try c.decodeIfPresent(Double.self, forKey: .maxPlayTime)
        if let maxPlays, maxPlays < 0 { throw APIError(.invalidArgument, "'maxPlays' must be 0 or more") }
        if let maxPlayTime, !(maxPlayTime.isFinite && maxPlayTime >= 0) {
            throw APIError(.invalidArgument, "'maxPlayTime' must be a number of seconds >= 0")
        }
    }
}

/// A licence with what was used of it, and whether it still lets the copy play.
public struct LicenseState: Codable, Sendable, Equatable {
    public var expires: String?
    public var maxPlays: Int?
    public var plays: Int
    public var maxPlayTime: Double?
    public var playTime: Double
    public var expired: Bool
    /// Which limit is reached: `date`, `plays` or `playTime`; nil while it plays.
    public var reason: String?

    public init(expires: String?, maxPlays: Int?, plays: Int, maxPlayTime: Double?, playTime: Double, expired: Bool, reason: String?) {
        self.expires = expires
        self.maxPlays = maxPlays
        self.plays = plays
        self.maxPlayTime = maxPlayTime
        self.playTime = playTime
        self.expired = expired
        self.reason = reason
    }

    private enum CodingKeys: String, CodingKey { case expires, maxPlays, plays, maxPlayTime, playTime, expired, reason }

    /// Every key, nulls included: clients read `reason: null` as "plays".
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(expires, forKey: .expires)
        try c.encode(maxPlays, forKey: .maxPlays)
        try c.encode(plays, forKey: .plays)
        try c.encode(maxPlayTime, forKey: .maxPlayTime)
        try c.encode(playTime, forKey: .playTime)
        try c.encode(expired, forKey: .expired)
        try c.encode(reason, forKey: .reason)
    }
}

/// Which variant of an HLS ladder to keep: `highest`, `lowest`, a variant id, or the
/// highest at most `maxHeight` lines tall.
public enum LibraryVariantChoice: Codable, Sendable, Equatable {
    case highest, lowest
    case id(String)
    case maxHeight(Int)

    private enum CodingKeys: String, CodingKey { case maxHeight }

    public init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            switch text {
            case "highest": self = .highest
            case "lowest": self = .lowest
            case "": throw APIError(.invalidArgument, "'variant' must be highest, lowest, a variant id or {\"maxHeight\": N}")
            default: self = .id(text)
            }
            return
        }
        try UnknownKeys.reject(in: decoder, allowed: ["maxHeight"])
        let height = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .maxHeight)
        guard height > 0 else { throw APIError(.invalidArgument, "'variant.maxHeight' must be a number of lines > 0") }
        self = .maxHeight(height)
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .highest: var c = encoder.singleValueContainer(); try c.encode("highest")
        case .lowest: var c = encoder.singleValueContainer(); try c.encode("lowest")
        case .id(let id): var c = encoder.singleValueContainer(); try c.encode(id)
        case .maxHeight(let height): var c = encoder.container(keyedBy: CodingKeys.self); try c.encode(height, forKey: .maxHeight)
        }
    }
}

/// `"all"` or a list of languages (`audio`, `subtitles` of an HLS item).
public enum LibraryRenditionChoice: Codable, Sendable, Equatable {
    case all
    case languages([String])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let text = try? c.decode(String.self) {
            guard text == "all" else { throw APIError(.invalidArgument, "renditions are \"all\" or a list of languages") }
            self = .all
        } else {
            self = .languages(try c.decode([String].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .all: try c.encode("all")
        case .languages(let list): try c.encode(list)
        }
    }
}

/// `POST /v1/library`.
public struct LibraryAddRequest: Codable, Sendable, Equatable {
    public var uri: String
    public var contentId: String
    public var userId: String?
    public var title: String?
    public var headers: [String: String]?
    public var keyHeaders: [String: String]?
    public var variant: LibraryVariantChoice?
    public var audio: LibraryRenditionChoice?
    public var subtitles: LibraryRenditionChoice?
    public var license: LicenseTerms?
    /// HLS: the keys come from this key service (API-2 §2); nil: `--key-service`, if any.
    public var keyService: KeyServiceRequest?
    public static let fields = ["uri", "contentId", "userId", "title", "headers", "keyHeaders", "variant", "audio", "subtitles", "license",
                                "keyService"]

    public init(uri: String, contentId: String) {
        self.uri = uri
        self.contentId = contentId
    }

    public init(from decoder: any Decoder) throws {
        try UnknownKeys.reject(in: decoder, allowed: Set(Self.fields))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        uri = try c.decode(String.self, forKey: .uri)
        contentId = try c.decode(String.self, forKey: .contentId)
        userId = try c.decodeIfPresent(String.self, forKey: .userId)
        title = try c.decodeIfPresent(String.self, forKey: .title)
        headers = try c.decodeIfPresent([String: String].self, forKey: .headers)
        keyHeaders = try c.decodeIfPresent([String: String].self, forKey: .keyHeaders)
        variant = try c.decodeIfPresent(LibraryVariantChoice.self, forKey: .variant)
        audio = try c.decodeIfPresent(LibraryRenditionChoice.self, forKey: .audio)
        subtitles = try c.decodeIfPresent(LibraryRenditionChoice.self, forKey: .subtitles)
        license = try c.decodeIfPresent(LicenseTerms.self, forKey: .license)
        keyService = try c.decodeIfPresent(KeyServiceRequest.self, forKey: .keyService)
        guard !uri.trimmingWhitespace().isEmpty else { throw APIError(.invalidArgument, "'uri' must not be empty") }
        try checkURILength(uri, field: "uri")
        guard !contentId.isEmpty else { throw APIError(.invalidArgument, "'contentId' must not be empty") }
        for (key, value) in [("contentId", contentId), ("userId", userId), ("title", title)] {
            if let value, value.unicodeScalars.count > 2048 { throw APIError(.invalidArgument, "'\(key)' is limited to 2048 characters") }
        }
        try RequestHeaders.validate(headers ?? [:], field: "headers")
        try RequestHeaders.validate(keyHeaders ?? [:], field: "keyHeaders")
    }
}

/// One item of the library.
public struct LibraryItem: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case file, hls }
    public enum State: String, Codable, Sendable, CaseIterable { case queued, downloading, paused, complete, failed }
    public var id: String
    public var contentId: String
    public var userId: String?
    public var title: String?
    public var uri: String
    public var kind: Kind
    public var state: State
    public var bytes: Int64
    public var totalBytes: Int64?
    public var progress: Double?
    public var error: APIErrorBody?
    public var license: LicenseState
    public var createdAt: String
    public var completedAt: String?

    public init(id: String, contentId: String, userId: String?, title: String?, uri: String, kind: Kind, state: State, bytes: Int64,
                totalBytes: Int64?, error: APIErrorBody?, license: LicenseState, createdAt: String, completedAt: String?) {
        self.id = id
        self.contentId = contentId
        self.userId = userId
        self.title = title
        self.uri = uri
        self.kind = kind
        self.state = state
        self.bytes = bytes
        self.totalBytes = totalBytes
        self.progress = totalBytes.map { $0 > 0 ? min(1, Double(bytes) / Double($0)) : 1 }
        self.error = error
        self.license = license
        self.createdAt = createdAt
        self.completedAt = completedAt
    }

    private enum CodingKeys: String, CodingKey {
        case id, contentId, userId, title, uri, kind, state, bytes, totalBytes, progress, error, license, createdAt, completedAt
    }

    /// Every key, nulls included (`totalBytes`, `progress`, `error`, `completedAt` are part
    /// of the shape even when unknown).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(contentId, forKey: .contentId)
        try c.encodeIfPresent(userId, forKey: .userId)
        try c.encodeIfPresent(title, forKey: .title)
        try c.encode(uri, forKey: .uri)
        try c.encode(kind, forKey: .kind)
        try c.encode(state, forKey: .state)
        try c.encode(bytes, forKey: .bytes)
        try c.encode(totalBytes, forKey: .totalBytes)
        try c.encode(progress, forKey: .progress)
        try c.encode(error, forKey: .error)
        try c.encode(license, forKey: .license)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(completedAt, forKey: .completedAt)
    }
}

/// An error as an item carries it: `{code, message}` with a free-form code (download
/// failures have codes of their own: `network`, `origin_error`, `damaged`, …).
public struct APIErrorBody: Codable, Sendable, Equatable {
    public var code: String
    public var message: String
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}

/// `GET /v1/library`.
public struct LibraryList: Codable, Sendable, Equatable {
    public var items: [LibraryItem]
    public var usedBytes: Int64
    public var quotaBytes: Int64?
    public init(items: [LibraryItem], usedBytes: Int64, quotaBytes: Int64?) {
        self.items = items
        self.usedBytes = usedBytes
        self.quotaBytes = quotaBytes
    }
    private enum CodingKeys: String, CodingKey { case items, usedBytes, quotaBytes }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(items, forKey: .items)
        try c.encode(usedBytes, forKey: .usedBytes)
        try c.encode(quotaBytes, forKey: .quotaBytes)
    }
}

/// The `download` event: at most twice a second per item, and at every state change.
/// Carries the item's `error` too (null when none): why it failed, or the fault a download
/// rides out while `downloading`, so a view need not fetch the item to say it.
public struct DownloadUpdate: Codable, Sendable, Equatable {
    public var id: String
    public var state: LibraryItem.State
    public var bytes: Int64
    public var totalBytes: Int64?
    public var progress: Double?
    public var error: APIErrorBody?
    public init(_ item: LibraryItem) {
        id = item.id
        state = item.state
        bytes = item.bytes
        totalBytes = item.totalBytes
        progress = item.progress
        error = item.error
    }
    private enum CodingKeys: String, CodingKey { case id, state, bytes, totalBytes, progress, error }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(state, forKey: .state)
        try c.encode(bytes, forKey: .bytes)
        try c.encode(totalBytes, forKey: .totalBytes)
        try c.encode(progress, forKey: .progress)
        try c.encode(error, forKey: .error)
    }
}

/// The `library` event: an item was added, removed, or its licence changed.
public struct LibraryChange: Codable, Sendable, Equatable {
    public enum Change: String, Codable, Sendable { case added, removed, license }
    public var id: String
    public var change: Change
    public init(id: String, change: Change) {
        self.id = id
        self.change = change
    }
}
