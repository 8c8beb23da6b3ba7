import ControlAPI
import FoundationEssentials
import TextSupport
import GLibRuntime
import HLS
import HTTPFetch

/// Riding out network faults of an http(s) source (HLS, or a progressive file) once it has
/// played: an origin answering 5xx or 404 or timing out for a while must not end playback.
///
/// A fault is noticed two ways: a network error from the pipeline, or playback that wants
/// to play and has not moved for `StallWatch.stallSeconds` while a probe of the origin fails
/// (hlsdemux2 1.22 retries a failing segment in a tight loop and never reports it). Then the
/// pipeline is released (which also stops that loop), `reconnecting` is published, and the
/// origin is probed with backoff (1, 2, 4 … 30 s) with Marquee's own small requests; once a
/// probe succeeds the pipeline is started again at the position it had (a live source at its
/// edge) and `recovered` is published when it prerolls. After `reconnectTimeout` seconds of
/// failure the player gives up with the last `network_error`. The session itself (tracks,
/// variant pin, subtitles, the content session and its analytics) is kept throughout.
extension Player {
    /// Whether this session's source is one the player reconnects: http(s), or a live
    /// network source (udp, rtsp); not one recorded by timeshift (its recorder reconnects on
    /// its own).
    func recoversFaults(of session: PlaybackSession) -> Bool {
        guard configuration.reconnectTimeout > 0, session.timeshift == nil else { return false }
        return isHTTP(session) || session.source.info.kind == .live && !session.source.isDemo
    }

    private func isHTTP(_ session: PlaybackSession) -> Bool {
        let uri = session.source.sourceURI.lowercased()
        return uri.hasPrefix("http://") || uri.hasPrefix("https://")
    }

    /// What moves while media arrives: the position, or for a live source (whose position
    /// runs on with the clock) the timestamp of the last buffer a sink got.
    private func progressMeasure(_ session: PlaybackSession) -> Double? {
        guard machine.isLive else { return session.position }
        // -1 before any data (also after a restart, which clears the sinks): no data is a
        // stall for a live source, not an unknown.
        return session.videoSink.lastSample?.presentationTime ?? session.audioSink.lastSample?.presentationTime ?? -1
    }

    /// Runs once a second while a recoverable source is loaded.
    func startStallWatch(for session: PlaybackSession) {
        guard recoversFaults(of: session) else { return }
        session.stallTimer = LoopTimer(milliseconds: 1000) { [weak self, weak session] in
            guard let self, let session, self.session === session else { return }
            self.checkForStall(session)
        }
    }

    private func checkForStall(_ session: PlaybackSession) {
        let now = ContinuousClock.now
        if machine.reconnecting {
            // A pipeline started again that does not preroll is another failed attempt.
            if session.recovery?.restartOverdue(now: now) == true {
                sourceLost(session, reason: "the source did not deliver again within \(SourceRecovery.restartLimit)")
            }
            return
        }
        guard machine.prerolled, machine.error == nil, machine.target == .playing, !session.isProbing else {
            session.stallWatch.reset()
            return
        }
        let (still, moved) = session.stallWatch.note(position: progressMeasure(session), now: now)
        if moved, machine.isLive, let recovery = session.recovery {
            // A live source is back when data flows again, not when its pipeline restarts
            // (that answers NO_PREROLL at once, with or without a sender).
            announceRecovery(recovery, in: session)
            return
        }
        guard still >= StallWatch.stallSeconds else { return }
        guard isHTTP(session) else {
            sourceLost(session, reason: "no data for \(Int(StallWatch.stallSeconds)) s")
            return
        }
        // Not moving: a slow origin (wait on) or a failing one (reconnect)? Ask it.
        probeOrigin(session) { [weak self, weak session] outcome in
            guard let self, let session, self.session === session, !self.machine.reconnecting else { return }
            switch outcome {
            case .healthy:
                session.stallWatch.reset()
            case .failed(let reason):
                self.sourceLost(session, reason: reason)
            }
        }
    }

    /// A network error from the pipeline of a source that played, or whose HLS playlist was
    /// read: reconnect instead of failing. (A URL that never worked fails at once.) Returns
    /// false when the error must be reported as it is.
    func recoverFromPipelineError(_ error: APIError, in session: PlaybackSession) -> Bool {
        guard error.code == .networkError, recoversFaults(of: session),
              session.everPrerolled || session.playlistLoaded || machine.reconnecting else { return false }
        sourceLost(session, reason: error.message)
        return true
    }

    /// Releases the pipeline and schedules the next attempt (or gives up).
    func sourceLost(_ session: PlaybackSession, reason: String) {
        let now = ContinuousClock.now
        if session.recovery == nil {
            log.warning("source lost", ["uri": session.source.info.uri, "reason": reason])
            session.recovery = SourceRecovery(since: now, reason: reason)
        }
        session.cancelProbe()
        if machine.reconnecting {
            // A restarted pipeline failed again: down again, same place to resume.
            feed(.lostSource(resumeAt: machine.pendingSeekTarget))
        } else {
            let resumeAt = machine.isLive ? nil : (machine.pendingSeekTarget ?? session.position)
            // decodebin3 picks its defaults again in the new pipeline: ask for what played.
            if !session.selectedStreamIDs.isEmpty { session.pendingSelection = session.selectedStreamIDs }
            feed(.lostSource(resumeAt: resumeAt))
        }
        guard let next = session.recovery?.nextAttempt(reason: reason, now: now, giveUpAfter: configuration.reconnectTimeout) else {
            let attempts = session.recovery.map { "\($0.attempts)" } ?? "0"
            session.recovery = nil
            feed(.failed(APIError(.networkError, "gave up after \(attempts) attempts in \(Int(configuration.reconnectTimeout)) s: \(reason)")))
            return
        }
        log.info("reconnecting", ["attempt": "\(next.attempt)", "delay": "\(next.delay)", "reason": reason])
        publish(.reconnecting(ReconnectingUpdate(attempt: next.attempt, delay: next.delay, reason: reason)))
        runAfter(milliseconds: UInt32(next.delay * 1000)) { [weak self, weak session] in
            guard let self, let session, self.session === session, self.machine.reconnecting else { return }
            self.retry(session)
        }
    }

    /// Probes the origin; starts the pipeline again when it answers.
    private func retry(_ session: PlaybackSession) {
        probeOrigin(session) { [weak self, weak session] outcome in
            guard let self, let session, self.session === session, self.machine.reconnecting else { return }
            switch outcome {
            case .healthy:
                self.log.info("origin answers again; restarting", ["uri": session.source.info.uri])
                session.recovery?.restartedAt = .now
                self.feed(.retry)
            case .failed(let reason):
                self.sourceLost(session, reason: reason)
            }
        }
    }

    /// After the machine ran: a recovery is over once the pipeline prerolled again (a live
    /// source: once data flows, seen by the stall watch).
    func finishRecoveryIfDone() {
        guard let session else { return }
        if machine.prerolled { session.everPrerolled = true }
        guard let recovery = session.recovery, !machine.reconnecting, machine.error == nil, machine.prerolled, !machine.isLive else { return }
        announceRecovery(recovery, in: session)
    }

    private func announceRecovery(_ recovery: SourceRecovery, in session: PlaybackSession) {
        session.recovery = nil
        session.stallWatch.reset()
        let downtime = recovery.downtime(now: .now)
        log.info("recovered", ["attempts": "\(recovery.attempts)", "downtime": String(printf: "%.1f", downtime)])
        publish(.recovered(RecoveredUpdate(attempts: max(1, recovery.attempts), downtime: downtime)))
    }

    // MARK: Probing the origin

    enum ProbeOutcome: Sendable {
        case healthy
        case failed(String)
    }

    /// Asks the origin for what playback needs next, with the session's headers: for HLS the
    /// current variant's media playlist and then (HEAD) the segment at the position; for a
    /// progressive file a HEAD of the file. Small requests, one at a time.
    func probeOrigin(_ session: PlaybackSession, completion: @escaping @GLibActor (ProbeOutcome) -> Void) {
        let headers = session.requestHeaders
        let probeID = session.startProbe()
        // A probe that was cancelled or superseded says nothing.
        let finish: @GLibActor (ProbeOutcome) -> Void = { [weak session] outcome in
            guard let session, session.finishProbe(probeID) else { return }
            completion(outcome)
        }
        // udp and rtsp cannot be asked: starting the pipeline again is the probe.
        guard isHTTP(session) else { return finish(.healthy) }
        let isHLS = session.ladder != nil || lastSource?.kind == .hls
        guard isHLS else {
            let url = session.source.sourceURI
            session.probe = probeFetcher.head(url, headers: headers) { result in finish(Self.outcome(result, url: url)) }
            return
        }
        let playlistURL = session.variantState.current.flatMap { session.ladder?.entry(id: $0)?.url } ?? session.source.sourceURI
        let position = session.position ?? machine.pendingSeekTarget ?? 0
        session.probe = probeFetcher.get(playlistURL, headers: headers) { [weak self, weak session] result in
            guard let self, let session else { return }
            guard case .success(let resource) = result else { return finish(Self.outcome(result, url: playlistURL)) }
            guard case .media(let media)? = try? Playlist.parse(data: resource.body, url: URL(string: resource.finalURL)) else {
                return finish(.healthy)
            }
            self.probeSegments(Self.segmentsAhead(of: position, in: media), session: session, headers: headers, finish: finish)
        }
    }

    /// HEADs each URL in turn; the first failure is the outcome.
    private func probeSegments(_ urls: ArraySlice<String>, session: PlaybackSession, headers: [String: String],
                               finish: @escaping @GLibActor (ProbeOutcome) -> Void) {
        guard let url = urls.first else { return finish(.healthy) }
        session.probe = probeFetcher.head(url, headers: headers) { [weak self, weak session] result in
            guard let self, let session else { return }
            if case .failed = Self.outcome(result, url: url) { return finish(Self.outcome(result, url: url)) }
            self.probeSegments(urls.dropFirst(), session: session, headers: headers, finish: finish)
        }
    }

    /// The segments playback needs next: for VOD those from `position` on, as far as the
    /// demuxer buffers ahead (about 10 s; the failing one is past what is buffered); for a
    /// live playlist, whose times are not the pipeline's, the newest two.
    nonisolated static func segmentsAhead(of position: Double, in media: MediaPlaylist) -> ArraySlice<String> {
        let urls = media.segments.map { $0.resolvedURL?.absoluteString ?? $0.uri }
        guard !media.isLive else { return urls.suffix(2) }
        var start = 0.0
        var ahead: [String] = []
        for (segment, url) in zip(media.segments, urls) {
            if start + segment.duration > position && start < position + 10 { ahead.append(url) }
            start += segment.duration
        }
        return ahead.prefix(6)
    }

    private static func outcome(_ result: Result<FetchedResource, FetchError>, url: String) -> ProbeOutcome {
        switch result {
        case .success: return .healthy
        case .failure(let failure):
            if let status = failure.status { return .failed("HTTP \(status) for \(url)") }
            return .failed("\(failure.message) (\(url))")
        }
    }
}
