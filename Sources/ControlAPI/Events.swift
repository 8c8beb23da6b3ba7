/// One event pushed to WebSocket and SSE clients. Its wire form is
/// `{"seq": n, "type": "<type>", "data": {...}}`; `seq` is assigned per connection.
public enum PlayerEvent: Sendable, Equatable {
    case snapshot(PlayerSnapshot)
    case state(StateChange)
    case position(PositionUpdate)
    case buffering(BufferingUpdate)
    case tracks(Tracks)
    case seek(SeekUpdate)
    case settings(SettingsUpdate)
    case source(SourceInfo?)
    case variants([Variant])
    case variant(VariantState)
    /// About once a second while a live source plays: where the edge is, how far behind.
    case live(LiveInfo)
    /// The timeshift recorder lost its source and tries again.
    case reconnecting(ReconnectingUpdate)
    /// The source delivers again after `reconnecting`.
    case recovered(RecoveredUpdate)
    /// The inset changed (started, moved, swapped, changed state, removed: null).
    case pip(PipInfo?)
    case watermark(WatermarkRequest?)
    /// The subtitle cue on screen changed (null: cleared).
    case cue(Cue?)
    /// An analytics event was delivered, refused, or will be retried.
    case analytics(AnalyticsUpdate)
    /// The queue changed, or another of its items started.
    case queue(QueueInfo?)
    /// A library download moved (at most twice a second per item) or changed state.
    case download(DownloadUpdate)
    /// A library item was added, removed, or its licence changed.
    case library(LibraryChange)
    /// The session server refused this viewing (or stayed unreachable past the grace):
    /// playback stopped with `session_blocked` (API-2 §2).
    case blocked(BlockedUpdate)
    case error(APIError)
    case eos

    public var type: String {
        switch self {
        case .snapshot: return "snapshot"
        case .state: return "state"
        case .position: return "position"
        case .buffering: return "buffering"
        case .tracks: return "tracks"
        case .seek: return "seek"
        case .settings: return "settings"
        case .source: return "source"
        case .variants: return "variants"
        case .variant: return "variant"
        case .live: return "live"
        case .reconnecting: return "reconnecting"
        case .recovered: return "recovered"
        case .pip: return "pip"
        case .watermark: return "watermark"
        case .cue: return "cue"
        case .analytics: return "analytics"
        case .queue: return "queue"
        case .download: return "download"
        case .library: return "library"
        case .blocked: return "blocked"
        case .error: return "error"
        case .eos: return "eos"
        }
    }

    /// Every event type, as `type` names them (a test keeps the two in step).
    public static let types = ["snapshot", "state", "position", "buffering", "tracks", "seek", "settings", "source", "variants",
                               "variant", "live", "reconnecting", "recovered", "pip", "watermark", "cue", "analytics", "queue",
                               "download", "library", "blocked", "error", "eos"]

    /// Latest-value events: when a client's queue must drop events, a newer one of the
    /// same type makes an older one redundant.
    public var isLatestValue: Bool {
        switch self {
        case .position, .buffering, .settings, .tracks, .live, .pip, .watermark, .cue, .queue: return true
        default: return false
        }
    }
}

public struct StateChange: Codable, Sendable, Equatable {
    public var state: PlaybackState
    public var previous: PlaybackState
    public init(state: PlaybackState, previous: PlaybackState) {
        self.state = state
        self.previous = previous
    }
}

public struct PositionUpdate: Codable, Sendable, Equatable {
    public var position: Double
    public var duration: Double?
    public init(position: Double, duration: Double?) {
        self.position = position
        self.duration = duration
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(position, forKey: .position)
        try c.encode(duration, forKey: .duration)
    }
}

public struct BufferingUpdate: Codable, Sendable, Equatable {
    public var percent: Int
    public init(percent: Int) { self.percent = percent }
}

public struct ReconnectingUpdate: Codable, Sendable, Equatable {
    /// 1 for the first retry since the source last delivered.
    public var attempt: Int
    /// Seconds until the attempt.
    public var delay: Double
    public var reason: String
    public init(attempt: Int, delay: Double, reason: String) {
        self.attempt = attempt
        self.delay = delay
        self.reason = reason
    }
}

public struct RecoveredUpdate: Codable, Sendable, Equatable {
    /// How many retries it took.
    public var attempts: Int
    /// Seconds from the fault to the source delivering again.
    public var downtime: Double
    public init(attempts: Int, downtime: Double) {
        self.attempts = attempts
        self.downtime = downtime
    }
}

public struct SeekUpdate: Codable, Sendable, Equatable {
    /// Where the seek was aimed (seconds).
    public var position: Double
    public var exact: Bool
    public init(position: Double, exact: Bool) {
        self.position = position
        self.exact = exact
    }
}

/// The wire form of an event.
public struct EventEnvelope: Encodable, Sendable {
    public var seq: Int
    public var event: PlayerEvent

    public init(seq: Int, event: PlayerEvent) {
        self.seq = seq
        self.event = event
    }

    private enum Keys: String, CodingKey { case seq, type, data }
    private struct Empty: Encodable {}

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(seq, forKey: .seq)
        try c.encode(event.type, forKey: .type)
        switch event {
        case .snapshot(let s): try c.encode(s, forKey: .data)
        case .state(let s): try c.encode(s, forKey: .data)
        case .position(let p): try c.encode(p, forKey: .data)
        case .buffering(let b): try c.encode(b, forKey: .data)
        case .tracks(let t): try c.encode(t, forKey: .data)
        case .seek(let s): try c.encode(s, forKey: .data)
        case .settings(let s): try c.encode(s, forKey: .data)
        case .source(let s): try c.encode(s, forKey: .data)
        case .variants(let v): try c.encode(v, forKey: .data)
        case .variant(let v): try c.encode(v, forKey: .data)
        case .live(let l): try c.encode(l, forKey: .data)
        case .reconnecting(let r): try c.encode(r, forKey: .data)
        case .recovered(let r): try c.encode(r, forKey: .data)
        case .pip(let p): try c.encode(p, forKey: .data)
        case .watermark(let w): try c.encode(w, forKey: .data)
        case .cue(let cue): try c.encode(cue, forKey: .data)
        case .analytics(let a): try c.encode(a, forKey: .data)
        case .queue(let q): try c.encode(q, forKey: .data)
        case .download(let d): try c.encode(d, forKey: .data)
        case .library(let l): try c.encode(l, forKey: .data)
        case .blocked(let b): try c.encode(b, forKey: .data)
        case .error(let e): try c.encode(e, forKey: .data)
        case .eos: try c.encode(Empty(), forKey: .data)
        }
    }
}

/// The `blocked` event: what the session server said when it refused the viewing (its
/// `code` and `message`, either may be missing), or, after `--session-grace` without an
/// answer, code `unreachable` and what went wrong.
public struct BlockedUpdate: Codable, Sendable, Equatable {
    public var code: String?
    public var message: String?
    public init(code: String?, message: String?) {
        self.code = code
        self.message = message
    }
}
