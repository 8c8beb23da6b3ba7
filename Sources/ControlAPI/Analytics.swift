import FoundationEssentials

/// One playback analytics event as it is posted to the collector (`--analytics-url`).
/// `seq` increases for the daemon's lifetime, across restarts: a collector de-duplicates on
/// it (delivery is at least once: an event whose acknowledgement was lost is sent again).
public struct AnalyticsEvent: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case begin, playing, end }
    public var event: Kind
    public var seq: Int?
    /// When it happened, ISO 8601 UTC with milliseconds.
    public var time: String
    public var contentId: String?
    public var userId: String?
    public var originalUrl: String?
    public var uri: String
    public var position: Double?
    public var duration: Double?
    /// Seconds watched, across sessions.
    public var watched: Double
    public var rate: Double

    public init(event: Kind, time: String, contentId: String?, userId: String?, originalUrl: String?, uri: String,
                position: Double?, duration: Double?, watched: Double, rate: Double) {
        self.event = event
        self.time = time
        self.contentId = contentId
        self.userId = userId
        self.originalUrl = originalUrl
        self.uri = uri
        self.position = position
        self.duration = duration
        self.watched = watched
        self.rate = rate
    }
}

/// `GET /v1/analytics`: the outbox's counters, kept across restarts.
public struct AnalyticsStatus: Codable, Sendable, Equatable {
    /// False without `--analytics-url`: nothing is recorded.
    public var enabled: Bool
    public var url: String?
    public var interval: Double
    public var pending: Int
    public var sent: Int
    /// Refused by the collector (4xx): not retried.
    public var failed: Int
    /// Dropped by `DELETE /v1/analytics` or the outbox's bound.
    public var dropped: Int
    /// Why the last delivery attempt failed, while events wait.
    public var lastError: String?

    public init(enabled: Bool, url: String?, interval: Double, pending: Int, sent: Int, failed: Int, dropped: Int, lastError: String?) {
        self.enabled = enabled
        self.url = url
        self.interval = interval
        self.pending = pending
        self.sent = sent
        self.failed = failed
        self.dropped = dropped
        self.lastError = lastError
    }
}

/// The `analytics` event: one delivery outcome.
public struct AnalyticsUpdate: Codable, Sendable, Equatable {
    public enum Outcome: String, Codable, Sendable { case sent, failed, retrying }
    public var seq: Int
    public var event: AnalyticsEvent.Kind
    public var outcome: Outcome
    public var reason: String?
    public var pending: Int

    public init(seq: Int, event: AnalyticsEvent.Kind, outcome: Outcome, reason: String?, pending: Int) {
        self.seq = seq
        self.event = event
        self.outcome = outcome
        self.reason = reason
        self.pending = pending
    }
}

/// `PATCH /v1/analytics`: turns recording on or off and changes the `playing` interval, at
/// run time (API-2 §2). Until the daemon restarts: the flags give the values it starts with.
public struct AnalyticsPatch: Codable, Sendable, Equatable {
    /// The fields of the body.
    public static let fields = ["enabled", "interval"]
    public static let intervalRange: ClosedRange<Double> = 1...86_400
    /// False: no new events are recorded (what is pending is still delivered).
    public var enabled: Bool?
    /// Seconds between `playing` events while playing.
    public var interval: Double?

    public init(enabled: Bool? = nil, interval: Double? = nil) {
        self.enabled = enabled
        self.interval = interval
    }

    public init(from decoder: any Decoder) throws {
        try UnknownKeys.reject(in: decoder, allowed: Set(Self.fields))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        enabled = try c.decodeIfPresent(Bool.self, forKey: .enabled)
        interval = try c.decodeIfPresent(Double.self, forKey: .interval)
        if let interval, !Self.intervalRange.contains(interval) {
            throw APIError(.invalidArgument, "'interval' must be 1 to 86400 seconds")
        }
    }
}
