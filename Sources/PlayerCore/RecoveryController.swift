import ControlAPI
import GLibRuntime
import HTTPFetch
import Logging
import TextSupport

/// Riding out network faults of an http(s) source (HLS, or a progressive file) once it has
/// played, and of a live network source (udp, rtsp): an origin answering 5xx or 404 or
/// timing out for a while must not end playback.
///
/// A fault is noticed two ways: a network error from the pipeline, or playback that wants
/// to play and has not moved for `StallWatch.stallSeconds` while a probe of the origin fails
/// (hlsdemux2 1.22 retries a failing segment in a tight loop and never reports it). Then the
/// pipeline is released (which also stops that loop), `reconnecting` is published, and the
/// origin is probed with backoff (1, 2, 4 … 30 s) with Marquee's own small requests
/// (`OriginProbe`); once a probe succeeds the pipeline is started again at the position it
/// had (a live source at its edge) and `recovered` is published when it prerolls. After
/// `reconnectTimeout` seconds of failure the player gives up with the last `network_error`.
/// The session itself (tracks, variant pin, subtitles, the content session and its
/// analytics) is kept throughout.
///
/// The decisions are `RecoveryMachine`'s; this owns the stall watch's timer, the attempt's
/// timer and the probe, all stopped by `close()` (the session's), so nothing of a closed
/// session fires. GLib thread.
@GLibActor
final class RecoveryController {
    /// The session that owns this controller (it outlives it: a closed controller does nothing).
    private unowned let session: PlaybackSession
    private weak var host: (any SessionHost)?
    private var machine: RecoveryMachine
    private let probe: OriginProbe
    private var stallTimer: LoopTimer?
    private var attemptTimer: OneShotTimer?
    private var closed = false
    private let log = Logger(category: "player")

    /// nil for a source the player does not reconnect: reconnecting is off
    /// (`reconnectTimeout` 0), a source recorded by timeshift (its recorder reconnects on its
    /// own), or one that is neither http(s) nor a live network source (udp, rtsp).
    init?(session: PlaybackSession, host: any SessionHost, reconnectTimeout: Double, recorded: Bool, probeFetcher: HTTPFetcher) {
        guard reconnectTimeout > 0, !recorded else { return nil }
        let uri = session.source.sourceURI.lowercased()
        let isHTTP = uri.hasPrefix("http://") || uri.hasPrefix("https://")
        guard isHTTP || session.source.info.kind == .live && !session.source.isDemo else { return nil }
        self.session = session
        self.host = host
        machine = RecoveryMachine(giveUpAfter: reconnectTimeout, canProbe: isHTTP)
        probe = OriginProbe(fetcher: probeFetcher)
    }

    /// Starts the stall watch: once a second while the session is loaded.
    func start() {
        stallTimer = LoopTimer(milliseconds: 1000) { [weak self] in self?.tick() }
    }

    func close() {
        closed = true
        stallTimer?.cancel()
        stallTimer = nil
        attemptTimer?.cancel()
        attemptTimer = nil
        probe.cancel()
    }

    /// A pipeline error: true when it is a fault to ride out (the controller took it), false
    /// when it must be reported as it is. (A URL that never worked fails at once.)
    func pipelineError(_ error: APIError) -> Bool {
        guard !closed, let host else { return false }
        let played = session.everPrerolled || session.hls?.playlistLoaded == true
        guard RecoveryMachine.ridesOut(error, playedBefore: played, reconnecting: host.machine.reconnecting) else { return false }
        run(machine.handle(.lost(reason: error.message, playback: .init(host.machine), now: .now)))
        return true
    }

    /// After the playback machine ran: a fault is over once the pipeline prerolled again (a
    /// live source: once data flows, seen by the stall watch).
    func machineRan() {
        guard !closed, let host, machine.fault != nil else { return }
        run(machine.handle(.machineRan(playback: .init(host.machine), now: .now)))
    }

    private func tick() {
        guard !closed, let host else { return }
        // A key the key service could not deliver while hlsdemux2 buffered: it reports nothing
        // then (measured: GStreamer 1.22, a key service answering 503 for 6 s while playback
        // had run dry), and the stall probe finds the origin healthy, so this is how it is seen.
        if host.handleKeyServiceOutage(in: session) { return }
        let playback = RecoveryMachine.Playback(host.machine)
        let progress = playback.prerolled && !playback.reconnecting ? progressMeasure(isLive: playback.isLive) : nil
        run(machine.handle(.tick(progress: progress, playback: playback, now: .now)))
    }

    private func attemptDue() {
        guard !closed, let host else { return }
        attemptTimer = nil
        run(machine.handle(.attemptDue(playback: .init(host.machine), now: .now)))
    }

    private func probeAnswered(_ outcome: RecoveryMachine.ProbeOutcome) {
        guard !closed, let host else { return }
        run(machine.handle(.probeAnswered(outcome, playback: .init(host.machine), now: .now)))
    }

    /// What moves while media arrives: the position, or for a live source (whose position
    /// runs on with the clock) the timestamp of the last buffer a sink got.
    private func progressMeasure(isLive: Bool) -> Double? {
        guard isLive else { return session.position }
        // -1 before any data (also after a restart, which clears the sinks): no data is a
        // stall for a live source, not an unknown.
        return session.videoSink.lastSample?.presentationTime ?? session.audioSink.lastSample?.presentationTime ?? -1
    }

    private func run(_ actions: [RecoveryMachine.Action]) {
        // Read before any action: giving up closes the session (and this controller).
        let uri = session.source.info.uri
        for action in actions {
            guard !closed, let host else { return }
            switch action {
            case .probeOrigin:
                probe.start(probeTarget(host.machine), headers: session.requestHeaders) { [weak self] outcome in
                    self?.probeAnswered(outcome)
                }
            case .cancelProbe:
                probe.cancel()
            case .faultBegan(let reason):
                log.warning("source lost", ["uri": uri, "reason": reason])
            case .release(let again):
                // A source from the URL resolver asks it again before the origin is tried.
                session.reauthorizer?.expire()
                let playback = host.machine
                if again {
                    // A restarted pipeline failed again: down again, same place to resume.
                    host.feed(.lostSource(resumeAt: playback.pendingSeekTarget))
                } else {
                    let resumeAt = playback.isLive ? nil : (playback.pendingSeekTarget ?? session.position)
                    // decodebin3 picks its defaults again in the new pipeline: ask for what played.
                    if !session.selectedStreamIDs.isEmpty { session.pendingSelection = session.selectedStreamIDs }
                    host.feed(.lostSource(resumeAt: resumeAt))
                }
            case .scheduleAttempt(let attempt, let delay, let reason):
                log.info("reconnecting", ["attempt": "\(attempt)", "delay": "\(delay)", "reason": reason])
                host.publish(.reconnecting(ReconnectingUpdate(attempt: attempt, delay: delay, reason: reason)))
                attemptTimer?.cancel()
                attemptTimer = OneShotTimer(milliseconds: UInt32(delay * 1000)) { [weak self] in self?.attemptDue() }
            case .restart:
                log.info("origin answers again; restarting", ["uri": uri])
                host.feed(.retry)
            case .giveUp(let error):
                host.feed(.failed(error))
            case .recovered(let attempts, let downtime):
                log.info("recovered", ["attempts": "\(attempts)", "downtime": String(printf: "%.1f", downtime)])
                host.publish(.recovered(RecoveredUpdate(attempts: attempts, downtime: downtime)))
            }
        }
    }

    /// What to ask: the variant playing (or the source's playlist) for HLS, else the file.
    private func probeTarget(_ playback: PlaybackMachine) -> OriginProbe.Target {
        let hls = session.hls
        guard hls?.ladder != nil || session.source.info.kind == .hls else { return .file(url: session.source.sourceURI) }
        let playlistURL = hls?.variantState.current.flatMap { hls?.ladder?.entry(id: $0)?.url } ?? session.source.sourceURI
        return .hls(playlistURL: playlistURL, position: session.position ?? playback.pendingSeekTarget ?? 0)
    }
}
