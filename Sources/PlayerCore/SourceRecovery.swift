import FoundationEssentials
import Glibc

/// The book-keeping of one network fault of an http(s) source, from the moment it stopped
/// delivering until it delivers again or the player gives up. Pure values, held by the
/// `RecoveryMachine`; `RecoveryController` does the waiting and the probing.
struct SourceRecovery: Sendable {
    /// When the source stopped delivering.
    let since: ContinuousClock.Instant
    /// Retries announced so far (`reconnecting` events).
    private(set) var attempts = 0
    /// Why the last attempt failed, for the events and the final error.
    private(set) var reason: String
    /// When the pipeline was last started again: it must preroll within `restartLimit`.
    var restartedAt: ContinuousClock.Instant?

    /// Backoff between retries: 1, 2, 4, 8, 16, then every 30 s.
    static let maximumDelay = 30.0
    /// A pipeline started again that has not prerolled by then counts as a failed attempt.
    static let restartLimit: Duration = .seconds(10)

    init(since: ContinuousClock.Instant, reason: String) {
        self.since = since
        self.reason = reason
    }

    /// The next attempt and its delay, or nil when `giveUpAfter` seconds have passed since
    /// the fault (then the player reports the error).
    mutating func nextAttempt(reason: String, now: ContinuousClock.Instant, giveUpAfter: Double) -> (attempt: Int, delay: Double)? {
        self.reason = reason
        restartedAt = nil
        guard seconds(since, now) < giveUpAfter else { return nil }
        attempts += 1
        return (attempts, min(Self.maximumDelay, pow(2, Double(attempts - 1))))
    }

    func downtime(now: ContinuousClock.Instant) -> Double { seconds(since, now) }

    func restartOverdue(now: ContinuousClock.Instant) -> Bool {
        guard let restartedAt else { return false }
        return now - restartedAt > Self.restartLimit
    }

    private func seconds(_ from: ContinuousClock.Instant, _ to: ContinuousClock.Instant) -> Double {
        let d = (to - from).components
        return Double(d.seconds) + Double(d.attoseconds) / 1e18
    }
}

/// Notices playback that wants to play but does not move: hlsdemux2 (GStreamer 1.22) answers
/// a segment that fails with 5xx by asking again at once, about a hundred times a second,
/// for ever, and reports nothing; the player only sees buffering at 0%.
struct StallWatch: Sendable {
    private var lastPosition: Double?
    private var since: ContinuousClock.Instant?

    /// Seconds without progress after which the origin is probed.
    static let stallSeconds = 4.0

    /// Notes the progress measure now (the position; for a live source the timestamp of the
    /// last frame or audio buffer that reached a sink, as a live position runs on with the
    /// clock whether data comes or not). Returns how long it has not moved, and whether it
    /// moved since the last note.
    @discardableResult
    mutating func note(position: Double?, now: ContinuousClock.Instant) -> (still: Double, moved: Bool) {
        if position == nil || position != lastPosition || since == nil {
            let moved = position != nil && lastPosition != nil
            lastPosition = position
            since = now
            return (0, moved)
        }
        let d = (now - since!).components
        return (Double(d.seconds) + Double(d.attoseconds) / 1e18, false)
    }

    mutating func reset() {
        lastPosition = nil
        since = nil
    }
}
