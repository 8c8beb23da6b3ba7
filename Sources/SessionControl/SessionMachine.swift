/// The decisions of concurrent-session control (API-2 §2), with no clock, timer or network
/// of its own: the feature feeds it what the player did, the session server's verdicts and
/// the time, and carries out the actions it returns. Times are seconds on one monotonic clock.
///
/// A viewing starts at the first `playing` after content loads (`start`), is kept alive every
/// `interval` while that content stays loaded, playing or not (`alive`), and ends when it
/// closes (`stop`, best effort: its answer is never awaited). One heartbeat is in flight at a
/// time: a slow server delays the next `alive`, never playback. A refusal blocks at once; a
/// server that does not answer (no connection, a non-2xx status, no reply yet) blocks once it
/// has not answered for longer than `grace`.
public struct SessionMachine: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Seconds between `alive` heartbeats.
        public var interval: Double
        /// Seconds an unreachable server is tolerated before the viewing is blocked.
        public var grace: Double
        public init(interval: Double = 30, grace: Double = 120) {
            self.interval = interval
            self.grace = grace
        }
    }

    /// One viewing: a fresh id per loaded content, and who watches what.
    public struct Viewing: Sendable, Equatable {
        public var sessionId: String
        public var contentId: String?
        public var userId: String?
        public init(sessionId: String, contentId: String?, userId: String?) {
            self.sessionId = sessionId
            self.contentId = contentId
            self.userId = userId
        }
    }

    public enum Event: String, Sendable, Equatable { case start, alive, stop }

    public enum Input: Sendable, Equatable {
        /// Content was loaded (an open, a gapless queue item): a new viewing, not started yet.
        case loaded(Viewing)
        /// The player reached `playing`.
        case playing
        /// The loaded content goes away.
        case closing
        /// The server's answer to the heartbeat of `sessionId` (a `start` or an `alive`).
        case verdict(SessionVerdict, sessionId: String)
        /// The time came that `wakeAt` asked for (or any other time: ticks are idempotent).
        case tick
    }

    public enum Action: Sendable, Equatable {
        /// POST this event for this viewing. A `start` or `alive` is answered with `.verdict`.
        case post(Event, Viewing)
        /// Stop playback: state `error` with `session_blocked` and this `blocked` event.
        case block(code: String?, message: String?)
    }

    private enum Phase: Sendable, Equatable {
        case idle
        /// Loaded; `start` not sent yet (it goes at the first `playing`).
        case loaded(Viewing)
        case started(Viewing)
        /// Blocked: nothing more until the content closes (then `stop`) and another loads.
        case blocked(Viewing)
    }

    public let configuration: Configuration
    private var phase = Phase.idle
    /// When the heartbeat in flight was sent; nil when none is.
    private var inFlightSince: Double?
    /// When the last heartbeat was sent: the next `alive` is due an interval later.
    private var lastSentAt: Double?
    /// When the server stopped answering: the sending time of the first heartbeat that went
    /// unanswered since its last good answer; nil while it answers.
    private var unreachableSince: Double?
    private var lastError: String?

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// The viewing whose heartbeats run (started), if any.
    public var activeViewing: Viewing? {
        if case .started(let viewing) = phase { return viewing }
        return nil
    }

    /// When the machine wants a `.tick`: the next `alive`, or the end of the grace (also for
    /// a heartbeat that is still unanswered). Nil when nothing is due.
    public var wakeAt: Double? {
        guard case .started = phase else { return nil }
        var times: [Double] = []
        if inFlightSince == nil, let lastSentAt { times.append(lastSentAt + configuration.interval) }
        if let since = unreachableSince ?? inFlightSince { times.append(since + configuration.grace) }
        return times.min()
    }

    public mutating func handle(_ input: Input, now: Double) -> [Action] {
        switch (input, phase) {
        case (.loaded(let viewing), _):
            // A gapless switch closes the previous item first; here only bookkeeping restarts.
            reset()
            phase = .loaded(viewing)
            return []
        case (.playing, .loaded(let viewing)):
            phase = .started(viewing)
            return [send(.start, viewing, now: now)]
        case (.closing, .started(let viewing)), (.closing, .blocked(let viewing)):
            reset()
            phase = .idle
            return [.post(.stop, viewing)]
        case (.closing, _):
            reset()
            phase = .idle
            return []
        case (.verdict(let verdict, let sessionId), .started(let viewing)) where sessionId == viewing.sessionId:
            return answered(verdict, viewing, now: now)
        case (.tick, .started(let viewing)):
            return due(viewing, now: now)
        default:
            // `playing` again after the start, a verdict for a viewing that is over, a tick
            // with nothing started: nothing to do.
            return []
        }
    }

    private mutating func answered(_ verdict: SessionVerdict, _ viewing: Viewing, now: Double) -> [Action] {
        let sentAt = inFlightSince ?? now
        inFlightSince = nil
        switch verdict {
        case .allow:
            unreachableSince = nil
            lastError = nil
        case .deny(let code, let message):
            phase = .blocked(viewing)
            return [.block(code: code, message: message)]
        case .unreachable(let error):
            if unreachableSince == nil { unreachableSince = sentAt }
            lastError = error
        }
        return due(viewing, now: now)
    }

    /// What is due at `now`: the block when the grace ran out, else the next `alive`.
    private mutating func due(_ viewing: Viewing, now: Double) -> [Action] {
        if let since = unreachableSince ?? inFlightSince, now - since >= configuration.grace {
            phase = .blocked(viewing)
            inFlightSince = nil
            let waited = Int((now - since).rounded())
            let reason = lastError ?? "no answer"
            return [.block(code: "unreachable", message: "the session server has not answered for \(waited) s: \(reason)")]
        }
        guard inFlightSince == nil, let lastSentAt, now >= lastSentAt + configuration.interval else { return [] }
        return [send(.alive, viewing, now: now)]
    }

    private mutating func send(_ event: Event, _ viewing: Viewing, now: Double) -> Action {
        inFlightSince = now
        lastSentAt = now
        return .post(event, viewing)
    }

    private mutating func reset() {
        inFlightSince = nil
        lastSentAt = nil
        unreachableSince = nil
        lastError = nil
    }
}

/// What the session server said to a heartbeat.
public enum SessionVerdict: Sendable, Equatable {
    /// 2xx without `"allow": false`.
    case allow
    /// 2xx with `"allow": false`: its `code` and `message`, either may be missing.
    case deny(code: String?, message: String?)
    /// No answer, or a status other than 2xx: what went wrong.
    case unreachable(String)
}
