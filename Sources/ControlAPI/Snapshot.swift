/// The public player state. Derived by the player in one place; never set by a client.
public enum PlaybackState: String, Codable, Sendable, CaseIterable {
    case idle, opening, buffering, paused, playing, ended, error
}

public enum RepeatMode: String, Codable, Sendable {
    case none, one, all
}

public enum SourceKind: String, Codable, Sendable {
    case file, hls, live
}

public struct SourceInfo: Codable, Sendable, Equatable {
    public var uri: String
    public var kind: SourceKind
    /// True for sources with no end: `kind` "live", and HLS whose media playlists have no
    /// EXT-X-ENDLIST (sliding-window or event playlists).
    public var live: Bool
    /// The content model of a content service: what is played, for whom, and where the
    /// viewer found it. Reported in analytics events.
    public var contentId: String?
    public var userId: String?
    public var originalUrl: String?
    /// Seconds of this content the user has watched, across sessions (the open's `watched`
    /// plus the time spent playing since).
    public var watched: Double?
    /// True when the offline library's local copy plays (`uri` is still the origin's).
    public var offline: Bool?
    /// True while protected content plays (`open {"protected": true}`): no snapshots.
    public var protected: Bool?
    public init(uri: String, kind: SourceKind, live: Bool? = nil, contentId: String? = nil) {
        self.uri = uri
        self.kind = kind
        self.live = live ?? (kind == .live)
        self.contentId = contentId
    }

    private enum CodingKeys: String, CodingKey { case uri, kind, live, contentId, userId, originalUrl, watched, offline, protected }

    /// `live` may be missing (daemons before it existed): then it follows `kind`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(uri: try c.decode(String.self, forKey: .uri), kind: try c.decode(SourceKind.self, forKey: .kind),
                  live: try c.decodeIfPresent(Bool.self, forKey: .live),
                  contentId: try c.decodeIfPresent(String.self, forKey: .contentId))
        userId = try c.decodeIfPresent(String.self, forKey: .userId)
        originalUrl = try c.decodeIfPresent(String.self, forKey: .originalUrl)
        watched = try c.decodeIfPresent(Double.self, forKey: .watched)
        offline = try c.decodeIfPresent(Bool.self, forKey: .offline)
        protected = try c.decodeIfPresent(Bool.self, forKey: .protected)
    }
}

public struct Track: Codable, Sendable, Equatable {
    public var id: String
    public var language: String?
    public var title: String?
    public var codec: String?
    public var selected: Bool
    public init(id: String, language: String? = nil, title: String? = nil, codec: String? = nil, selected: Bool) {
        self.id = id
        self.language = language
        self.title = title
        self.codec = codec
        self.selected = selected
    }
}

public struct Tracks: Codable, Sendable, Equatable {
    public var audio: [Track] = []
    public var video: [Track] = []
    public var subtitle: [Track] = []
    public init(audio: [Track] = [], video: [Track] = [], subtitle: [Track] = []) {
        self.audio = audio
        self.video = video
        self.subtitle = subtitle
    }
}

/// One entry of an HLS quality ladder, from Marquee's own parse of the master playlist.
public struct Variant: Codable, Sendable, Equatable {
    public var id: String
    public var bandwidth: Int
    public var averageBandwidth: Int?
    public var width: Int?
    public var height: Int?
    public var frameRate: Double?
    public var codecs: String?
    /// The EXT-X-MEDIA audio group the variant plays with.
    public var audio: String?

    public init(id: String, bandwidth: Int, averageBandwidth: Int? = nil, width: Int? = nil, height: Int? = nil,
                frameRate: Double? = nil, codecs: String? = nil, audio: String? = nil) {
        self.id = id
        self.bandwidth = bandwidth
        self.averageBandwidth = averageBandwidth
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.codecs = codecs
        self.audio = audio
    }
}

/// The HLS quality in force: `selected` is what was asked (manual mode), `current` what the
/// player is downloading now.
public struct VariantState: Codable, Sendable, Equatable {
    public enum Mode: String, Codable, Sendable { case auto, manual }
    public var mode: Mode = .auto
    public var selected: String?
    public var current: String?
    public init() {}

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(mode, forKey: .mode)
        try c.encode(selected, forKey: .selected)
        try c.encode(current, forKey: .current)
    }
}

public struct TimeRange: Codable, Sendable, Equatable {
    public var start: Double
    public var end: Double
    public init(start: Double, end: Double) {
        self.start = start
        self.end = end
    }
}

public struct LiveInfo: Codable, Sendable, Equatable {
    /// The live edge, in the same timeline as `position`.
    public var edge: Double
    /// Seconds the output is behind the edge.
    public var behind: Double
    /// Seconds that can be played back from (the edge minus the oldest seekable point).
    public var window: Double
    /// In `live` events only (the snapshot has its own `seekable`): the range a seek may go
    /// to now, so a client can draw its timeline from events alone. Left out when nil.
    public var seekable: TimeRange?
    public init(edge: Double, behind: Double, window: Double, seekable: TimeRange? = nil) {
        self.edge = edge
        self.behind = behind
        self.window = window
        self.seekable = seekable
    }
}

/// An A-B repeat section, seconds in the player's timeline: playback loops from `b` to `a`.
public struct ABLoop: Codable, Sendable, Equatable {
    public var a: Double
    public var b: Double
    public init(a: Double, b: Double) {
        self.a = a
        self.b = b
    }

    public init(from decoder: any Decoder) throws {
        try UnknownKeys.reject(in: decoder, allowed: ["a", "b"])
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(a: try c.decode(Double.self, forKey: .a), b: try c.decode(Double.self, forKey: .b))
        // Compared as written in the message (a + 0.1 <= b), with a hair for rounding:
        // 10.1 - 10 is 0.0999… in binary.
        guard a.isFinite, b.isFinite, a >= 0, a + 0.1 <= b + 1e-9 else {
            throw APIError(.invalidArgument, "'abLoop' needs 0 <= a and a + 0.1 <= b (seconds)")
        }
    }
}

/// GET /v1/player. Optional fields encode as `null` (not omitted): the contract lists
/// every key, and scripts test `.source == null`.
@dynamicMemberLookup
public struct PlayerSnapshot: Codable, Sendable, Equatable {
    public var state: PlaybackState = .idle
    public var source: SourceInfo?
    public var position: Double?
    public var duration: Double?
    /// The settings, written as members of the snapshot (`rate`, `volume`, …; see
    /// `PlayerSettings.descriptors`); `snapshot.rate` reads one.
    public var settings = PlayerSettings()
    public var buffering = 100
    public var seekable: TimeRange?
    public var live: LiveInfo?
    public var tracks = Tracks()
    public var variants: [Variant] = []
    public var variant = VariantState()
    public var abLoop: ABLoop?
    public var pip: PipInfo?
    public var watermark: WatermarkRequest?
    /// The subtitle cue on screen now.
    public var cue: Cue?
    public var queue: QueueInfo?
    public var error: APIError?

    public init() {}

    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<PlayerSettings, Value>) -> Value {
        get { settings[keyPath: keyPath] }
        set { settings[keyPath: keyPath] = newValue }
    }

    private enum CodingKeys: String, CodingKey {
        case state, source, position, duration, buffering, seekable, live, tracks, variants, variant, abLoop, pip, watermark, cue, queue, error
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(state, forKey: .state)
        try c.encode(source, forKey: .source)
        try c.encode(position, forKey: .position)
        try c.encode(duration, forKey: .duration)
        try c.encode(buffering, forKey: .buffering)
        try c.encode(seekable, forKey: .seekable)
        try c.encode(live, forKey: .live)
        try c.encode(tracks, forKey: .tracks)
        try c.encode(variants, forKey: .variants)
        try c.encode(variant, forKey: .variant)
        try c.encode(abLoop, forKey: .abLoop)
        try c.encode(pip, forKey: .pip)
        try c.encode(watermark, forKey: .watermark)
        try c.encode(cue, forKey: .cue)
        try c.encode(queue, forKey: .queue)
        try c.encode(error, forKey: .error)
        try settings.encodeMembers(to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        state = try c.decode(PlaybackState.self, forKey: .state)
        source = try c.decodeIfPresent(SourceInfo.self, forKey: .source)
        position = try c.decodeIfPresent(Double.self, forKey: .position)
        duration = try c.decodeIfPresent(Double.self, forKey: .duration)
        buffering = try c.decodeIfPresent(Int.self, forKey: .buffering) ?? 100
        seekable = try c.decodeIfPresent(TimeRange.self, forKey: .seekable)
        live = try c.decodeIfPresent(LiveInfo.self, forKey: .live)
        tracks = try c.decodeIfPresent(Tracks.self, forKey: .tracks) ?? Tracks()
        variants = try c.decodeIfPresent([Variant].self, forKey: .variants) ?? []
        variant = try c.decodeIfPresent(VariantState.self, forKey: .variant) ?? VariantState()
        abLoop = try c.decodeIfPresent(ABLoop.self, forKey: .abLoop)
        pip = try c.decodeIfPresent(PipInfo.self, forKey: .pip)
        watermark = try c.decodeIfPresent(WatermarkRequest.self, forKey: .watermark)
        cue = try c.decodeIfPresent(Cue.self, forKey: .cue)
        queue = try c.decodeIfPresent(QueueInfo.self, forKey: .queue)
        error = try c.decodeIfPresent(APIError.self, forKey: .error)
        settings = try PlayerSettings(members: decoder)
    }
}
