import ControlAPI

/// The decisions of riding out a network fault, without GStreamer, timers or the network:
/// it takes what was seen (a tick of the stall watch, an answer of the origin probe, a lost
/// source, a pipeline that prerolled again) and returns what to do. `RecoveryController`
/// carries the actions out; the waiting, the probing and the pipeline stay there.
///
/// Rules it encodes (see `RecoveryController` for why):
/// - Playback that wants to play and has not moved for `StallWatch.stallSeconds` is a stall:
///   an http(s) origin is probed first (a slow origin is waited for, a failing one is lost);
///   a source that cannot be asked (udp, rtsp) is lost at once.
/// - A lost source releases the pipeline and schedules the next attempt with backoff
///   (`SourceRecovery`), or gives up after `giveUpAfter` seconds of failure.
/// - An attempt probes the origin (when it can) and restarts the pipeline once it answers;
///   a restart that has not prerolled within `SourceRecovery.restartLimit` is lost again, and
///   one that prerolled but delivers nothing for `StallWatch.stallSeconds` too.
/// - The fault is over when the pipeline prerolled again (VOD), or, for a live source whose
///   restart answers NO_PREROLL at once, when data flows again.
struct RecoveryMachine: Sendable {
    /// What the playback machine says now: the recovery's decisions depend on it.
    struct Playback: Sendable, Equatable {
        var reconnecting = false
        var prerolled = false
        var failed = false
        var wantsToPlay = false
        var isLive = false

        init(reconnecting: Bool = false, prerolled: Bool = false, failed: Bool = false, wantsToPlay: Bool = false, isLive: Bool = false) {
            self.reconnecting = reconnecting
            self.prerolled = prerolled
            self.failed = failed
            self.wantsToPlay = wantsToPlay
            self.isLive = isLive
        }

        init(_ machine: PlaybackMachine) {
            self.init(reconnecting: machine.reconnecting, prerolled: machine.prerolled, failed: machine.error != nil,
                      wantsToPlay: machine.target == .playing, isLive: machine.isLive)
        }
    }

    enum ProbeOutcome: Sendable, Equatable {
        case healthy
        case failed(String)
    }

    enum Input: Sendable, Equatable {
        /// The once-a-second look: `progress` is what moves while media arrives (the
        /// position; for a live source the last buffer's timestamp, -1 before any).
        case tick(progress: Double?, playback: Playback, now: ContinuousClock.Instant)
        /// The source stopped delivering (a network error from the pipeline).
        case lost(reason: String, playback: Playback, now: ContinuousClock.Instant)
        /// The origin probe asked for by `.probeOrigin` answered.
        case probeAnswered(ProbeOutcome, playback: Playback, now: ContinuousClock.Instant)
        /// The delay of `.scheduleAttempt` has passed.
        case attemptDue(playback: Playback, now: ContinuousClock.Instant)
        /// The playback machine ran (after each batch of its actions).
        case machineRan(playback: Playback, now: ContinuousClock.Instant)
    }

    enum Action: Sendable, Equatable {
        /// Ask the origin whether it answers; the outcome comes back as `.probeAnswered`.
        case probeOrigin
        /// A probe in flight says nothing any more.
        case cancelProbe
        /// A fault begins (for the log): nothing was lost before.
        case faultBegan(reason: String)
        /// Release the pipeline (the playback machine's `lostSource`). `again`: a restarted
        /// pipeline failed, it resumes where the first loss said; otherwise it resumes where
        /// playback is, with the tracks that played.
        case release(again: Bool)
        /// Publish `reconnecting` and come back with `.attemptDue` after `delay` seconds.
        case scheduleAttempt(attempt: Int, delay: Double, reason: String)
        /// The origin answers: build the pipeline again (the playback machine's `retry`).
        case restart
        /// Report this error: the fault lasted too long.
        case giveUp(APIError)
        /// Publish `recovered`.
        case recovered(attempts: Int, downtime: Double)
    }

    /// Why a probe is in flight.
    enum Probe: Sendable, Equatable {
        /// Playback stopped moving: is the origin slow or failing?
        case stall
        /// An attempt: does the origin answer again?
        case attempt
    }

    /// Seconds of failure before giving up (`--reconnect-timeout`).
    let giveUpAfter: Double
    /// An http(s) origin can be probed; udp and rtsp cannot (restarting is the probe).
    let canProbe: Bool

    /// The fault being ridden out, nil while the source delivers.
    private(set) var fault: SourceRecovery?
    private(set) var probe: Probe?
    private(set) var stallWatch = StallWatch()

    init(giveUpAfter: Double, canProbe: Bool) {
        self.giveUpAfter = giveUpAfter
        self.canProbe = canProbe
    }

    /// Whether a pipeline error is a fault to ride out rather than report: a network error
    /// of a source that played (or whose HLS playlist was read, so the URL works), or of a
    /// pipeline restarted during a reconnect. A URL that never worked fails at once.
    static func ridesOut(_ error: APIError, playedBefore: Bool, reconnecting: Bool) -> Bool {
        error.code == .networkError && (playedBefore || reconnecting)
    }

    mutating func handle(_ input: Input) -> [Action] {
        switch input {
        case .tick(let progress, let playback, let now):
            return tick(progress: progress, playback: playback, now: now)
        case .lost(let reason, let playback, let now):
            return lose(reason: reason, playback: playback, now: now)
        case .probeAnswered(let outcome, let playback, let now):
            guard let asked = probe else { return [] }
            probe = nil
            switch (asked, outcome) {
            case (.stall, _) where playback.reconnecting:
                return []  // a fault began meanwhile; the attempts probe on their own
            case (.stall, .healthy):
                stallWatch.reset()  // slow, not failing: wait on
                return []
            case (.attempt, _) where !playback.reconnecting:
                return []
            case (.attempt, .healthy):
                fault?.restartedAt = now
                return [.restart]
            case (_, .failed(let reason)):
                return lose(reason: reason, playback: playback, now: now)
            }
        case .attemptDue(let playback, let now):
            guard playback.reconnecting else { return [] }
            guard canProbe else {
                // Starting the pipeline again is the only way to ask udp or rtsp.
                fault?.restartedAt = now
                return [.restart]
            }
            probe = .attempt
            return [.probeOrigin]
        case .machineRan(let playback, let now):
            guard let fault, !playback.reconnecting, !playback.failed, playback.prerolled, !playback.isLive else { return [] }
            return recover(fault, now: now)
        }
    }

    private mutating func tick(progress: Double?, playback: Playback, now: ContinuousClock.Instant) -> [Action] {
        if playback.reconnecting {
            // A pipeline started again that does not preroll is another failed attempt.
            guard fault?.restartOverdue(now: now) == true else { return [] }
            return lose(reason: "the source did not deliver again within \(SourceRecovery.restartLimit)", playback: playback, now: now)
        }
        guard playback.prerolled, !playback.failed, playback.wantsToPlay, probe == nil else {
            stallWatch.reset()
            return []
        }
        let (still, moved) = stallWatch.note(position: progress, now: now)
        if moved, playback.isLive, let fault {
            // A live source is back when data flows again, not when its pipeline restarts
            // (that answers NO_PREROLL at once, with or without a sender).
            return recover(fault, now: now)
        }
        guard still >= StallWatch.stallSeconds else { return [] }
        guard canProbe else {
            return lose(reason: "no data for \(Int(StallWatch.stallSeconds)) s", playback: playback, now: now)
        }
        // Not moving: a slow origin (wait on) or a failing one (reconnect)? Ask it.
        probe = .stall
        return [.probeOrigin]
    }

    /// Releases the pipeline and schedules the next attempt (or gives up).
    private mutating func lose(reason: String, playback: Playback, now: ContinuousClock.Instant) -> [Action] {
        var actions: [Action] = []
        if fault == nil {
            fault = SourceRecovery(since: now, reason: reason)
            actions.append(.faultBegan(reason: reason))
        }
        probe = nil
        // The restarted pipeline gets the full `stallSeconds` to deliver. (Before the machine,
        // the watch kept its last note through the reconnect, so a restarted udp or rtsp
        // source was lost again at the first tick after its restart, within a second:
        // found by `RecoveryMachineTests`.)
        stallWatch.reset()
        actions.append(.cancelProbe)
        actions.append(.release(again: playback.reconnecting))
        var current = fault ?? SourceRecovery(since: now, reason: reason)
        let next = current.nextAttempt(reason: reason, now: now, giveUpAfter: giveUpAfter)
        fault = current
        guard let next else {
            let attempts = current.attempts
            fault = nil
            actions.append(.giveUp(APIError(.networkError, "gave up after \(attempts) attempts in \(Int(giveUpAfter)) s: \(reason)")))
            return actions
        }
        actions.append(.scheduleAttempt(attempt: next.attempt, delay: next.delay, reason: reason))
        return actions
    }

    private mutating func recover(_ recovered: SourceRecovery, now: ContinuousClock.Instant) -> [Action] {
        fault = nil
        stallWatch.reset()
        return [.recovered(attempts: max(1, recovered.attempts), downtime: recovered.downtime(now: now))]
    }
}
