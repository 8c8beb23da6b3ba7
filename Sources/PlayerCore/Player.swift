import ControlAPI
import FoundationEssentials
import GLibRuntime
import GStreamerKit
import HTTPFetch
import Logging
import Timeshift

/// The player: takes `Command`s from any client, drives one playbin3 session through the
/// `PlaybackMachine`, and publishes `PlayerEvent`s. GLib thread only; only Sendable values
/// (snapshots, events, errors) leave it.
@GLibActor
public final class Player {
    public struct Configuration: Sendable {
        public var sinks: SinkSelection
        public var resolver: SourceResolver
        /// Where timeshift rings are recorded (`<data-dir>/timeshift`); nil: no timeshift.
        public var timeshiftFolder: URL?
        /// The window for live sources opened without `timeshift` (`--timeshift-window`);
        /// nil plays them straight, without recording.
        public var defaultTimeshiftWindow: Double?
        /// Seconds an http(s) source that played may fail before the player gives up
        /// (`--reconnect-timeout`); 0: no reconnecting, a network error ends playback.
        public var reconnectTimeout: Double
        /// `--url-resolver`: asked for the URL of `open {"contentId", "resolve": true}`; nil:
        /// such opens are `resolver_error`.
        public var urlResolver: String?
        /// The key service of http(s) opens without `keyService` (`--key-service`); nil: none.
        public var defaultKeyService: KeyServiceRequest?
        public init(sinks: SinkSelection, resolver: SourceResolver = SourceResolver(),
                    timeshiftFolder: URL? = nil, defaultTimeshiftWindow: Double? = nil, reconnectTimeout: Double = 120,
                    urlResolver: String? = nil, defaultKeyService: KeyServiceRequest? = nil) {
            self.sinks = sinks
            self.resolver = resolver
            self.timeshiftFolder = timeshiftFolder
            self.defaultTimeshiftWindow = defaultTimeshiftWindow
            self.reconnectTimeout = reconnectTimeout
            self.urlResolver = urlResolver
            self.defaultKeyService = defaultKeyService
        }
        public static let reconnectTimeoutRange: ClosedRange<Double> = 0...86_400
    }

    public typealias Subscriber = @GLibActor (PlayerEvent) -> Void

    // Fixed at start.
    let configuration: Configuration
    let log = Logger(category: "player")

    // What the user asked for; what is running (nil when idle); counters.
    private(set) var settings = PlayerSettings()
    private(set) var session: PlaybackSession?
    /// Numbers sessions (their timeshift folders are named after them).
    private var sessionCount = 0
    /// The source of a session an error released, kept so the snapshot says what failed;
    /// nil while a session is loaded (its `source.info` is the one truth) and after a stop.
    private var releasedSource: SourceInfo?
    /// What is loaded, or what failed last: the session's source, else the released one.
    var currentSource: SourceInfo? { session?.source.info ?? releasedSource }
    public private(set) var stats = PlayerStats()

    private(set) var machine = PlaybackMachine()
    private var subscribers: [Int: Subscriber] = [:]
    private var nextSubscriberID = 0
    private var positionTimer: LoopTimer?
    private var lastPublishedPosition: Double?

    /// Position events go out at most this often while playing ("a few per second").
    static let positionIntervalMilliseconds: UInt32 = 250

    /// Fetches HLS master playlists (and later keys) on the GLib loop.
    let fetcher = HTTPFetcher(userAgent: "marquee/\(MarqueeVersion.current)")
    /// Probes origins while a source is stalled or reconnecting (`RecoveryController`): a
    /// short timeout, as a probe only asks whether the origin answers at all.
    let probeFetcher = HTTPFetcher(userAgent: "marquee/\(MarqueeVersion.current)", timeoutSeconds: 5)
    /// Makes the calls into pipelines that can block, so this thread never waits on them.
    let worker = PipelineWorker(name: "marquee-pipeline") { seconds in
        Logger(category: "player").error("pipeline stuck on its way to NULL (a GStreamer deadlock); left behind",
                                         ["waited": "\(seconds) s"])
    }
    /// Carries per-session request headers to hlsdemux2's requests; started on first use,
    /// on a thread of its own.
    let proxy = LoopbackProxy(userAgent: "marquee/\(MarqueeVersion.current)")
    /// Serves timeshift rings to playbin3; see `ringServer()`.
    var ringServerInstance: RingServer?
    /// Publishes `live` events about once a second while a live source is loaded.
    var liveTimer: LoopTimer?

    // The output stage and what it draws besides the main video.
    lazy var output = OutputStage(videoSink: configuration.sinks.video)
    var pip: PictureInPicture?
    var watermarkRequest: WatermarkRequest?
    /// The watermark on the output now: the loaded item's own or `watermarkRequest`.
    var drawnWatermark: WatermarkRequest?
    /// Moves a `random` watermark every `interval` seconds.
    var watermarkTimer: LoopTimer?
    /// The external subtitle cue on screen, and the wake-up at the next cue boundary.
    var shownCue: SubtitleSchedule.Shown?
    var cueTimer: OneShotTimer?
    /// Time spent playing the loaded content, on top of what the open said was watched.
    var watchClock = WatchClock()
    /// Added once at start (Player+Features.swift); told what happens, in order.
    var features: [any PlayerFeature] = []
    /// The playlist being played, if any (Player+Queue.swift).
    var queue: PlayQueue?
    /// Asks `--url-resolver` (Player+Resolve.swift); nil without one.
    lazy var urlResolver: URLResolver? = configuration.urlResolver.map { URLResolver(endpoint: $0) }
    /// Numbers commands that replace what plays: a resolution answered after a later one is dropped.
    var openGeneration = 0

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    // MARK: Subscribers

    /// Events are delivered synchronously on the GLib thread, in order. Keep handlers cheap.
    public func subscribe(_ subscriber: @escaping Subscriber) -> Int {
        nextSubscriberID += 1
        subscribers[nextSubscriberID] = subscriber
        return nextSubscriberID
    }

    public func unsubscribe(_ id: Int) {
        subscribers[id] = nil
    }

    func publish(_ event: PlayerEvent) {
        for subscriber in subscribers.values { subscriber(event) }
    }

    public var state: PlaybackState { machine.state }

    // MARK: Commands

    /// Carries out one command and returns the snapshot as of acceptance.
    @discardableResult
    public func send(_ command: Command) throws(APIError) -> PlayerSnapshot {
        switch command {
        case .open(let request): try open(request)
        case .play: try requireSource(); run(machine.handle(.play))
        case .pause: try requireSource(); run(machine.handle(.pause))
        case .stop: stop()
        case .seek(let request): try seek(request)
        case .live: try goLive()
        case .set(let patch): try apply(patch)
        case .variant(let request): try selectVariant(request)
        case .audio(let request): try selectAudio(request.id)
        case .subtitle(let request):
            if let uri = request.uri { try addSubtitle(uri: uri) } else { try selectSubtitle(request.id) }
        case .pipStart(let request): try startPip(request)
        case .pipUpdate(let request): try updatePip(request)
        case .pipStop: try stopPip()
        case .pipSwap: try swapPip()
        case .watermark(let request): try setWatermark(request)
        case .watermarkRemove: removeWatermark()
        case .queueSet(let request): try setQueue(request)
        case .queueUpdate(let request): try updateQueue(request)
        case .queueNext: try nextInQueue()
        case .queuePrevious: try previousInQueue()
        }
        return snapshot()
    }

    /// The loaded session, or `409 no_source`.
    @discardableResult
    func requireSource() throws(APIError) -> PlaybackSession {
        guard let session else { throw APIError(.noSource, "nothing is loaded: open a source first") }
        return session
    }

    /// `retrying`: the same request again after a stalled open (`OpenWatchdogs`), the
    /// `stallRetries`-th: what was loaded never played, so features are not told it is being
    /// replaced (its position 0 would overwrite the viewer's resume point, and the retry
    /// would start at 0).
    /// `resolved`: what the URL resolver answered for `original` (`resolve: true`), which
    /// is otherwise asked first (Player+Resolve.swift).
    /// `fetchedSubtitle`: the http(s) `subtitle`, fetched and parsed; otherwise fetched first
    /// (Player+RemoteSubtitles.swift).
    func open(_ original: OpenRequest, fromQueue: Bool = false, retrying: Bool = false, stallRetries: Int = 0,
              resolved: ResolvedURL? = nil, fetchedSubtitle: LoadedSubtitle? = nil) throws(APIError) {
        if original.resolve == true, resolved == nil {
            try openResolving(original, fromQueue: fromQueue, retrying: retrying, stallRetries: stallRetries)
            return
        }
        if fetchedSubtitle == nil, let uri = original.subtitle, SourceResolver.isRemoteSubtitle(uri) {
            openFetchingSubtitle(original, fromQueue: fromQueue, retrying: retrying, stallRetries: stallRetries, resolved: resolved)
            return
        }
        openGeneration += 1
        var resolvedRequest = original
        if let resolved { resolvedRequest.uri = resolved.uri }
        // Features adjust the request first (a resume point's start and watched time); they
        // are told what plays now, which this open replaces if it goes ahead.
        let request = try prepareOpen(resolvedRequest, replacing: retrying ? nil : progress)
        // Everything that can refuse the open, before anything changes: the plan (pure), the
        // subtitle file (a bad one refuses the whole open and the current playback goes on
        // untouched), and the header proxy's session.
        let plan = try OpenPlan(request, resolver: configuration.resolver, timeshiftFolder: configuration.timeshiftFolder,
                                defaultTimeshiftWindow: configuration.defaultTimeshiftWindow,
                                defaultKeyService: configuration.defaultKeyService)
        var subtitle = fetchedSubtitle
        if subtitle == nil, let uri = plan.subtitleURI { subtitle = try loadSubtitleFile(uri, language: request.subtitleLanguage) }
        let itemWatermark = try plan.request.watermark.map { (given) throws(APIError) in
            let watermark = Self.itemWatermark(given, contentId: request.contentId, userId: request.userId)
            _ = try watermarkOverlay(for: watermark)
            return watermark
        }
        var source = plan.source
        let reauthorizer = plan.request.localCopy == nil ? resolved.flatMap { makeReauthorizer(for: request, $0) } : nil
        if let resolved, reauthorizer != nil { source.info.uri = resolved.displayURI }  // never the token
        let proxyToken = try registerHeaders(of: plan, source: &source, reauthorizer: reauthorizer)
        // From here on the plan is applied.
        let replacedLadder = session?.hls?.ladder.map { !$0.variants.isEmpty } ?? false
        closeSession()
        let newSession: PlaybackSession
        let timeshift: TimeshiftController?
        do throws(APIError) {
            try output.start()
            sessionCount += 1
            timeshift = try plan.timeshiftWindow.map { (window) throws(APIError) in
                try startTimeshift(window: window, source: &source, sessionID: sessionCount)
            }
            do throws(APIError) {
                newSession = try PlaybackSession(id: sessionCount, source: source, videoSink: output.makeSourceSink(channel: output.mainChannel),
                                                 audioSink: configuration.sinks.audio, settings: settings, worker: worker,
                                                 onBusEvent: { [weak self] event in self?.handle(event) },
                                                 onSubtitleText: { [weak self] text in self?.showEmbeddedCue(text) })
            } catch {
                timeshift?.closeRing()
                throw error
            }
        } catch {
            if let proxyToken { proxy.unregister(proxyToken) }
            throw error
        }
        watchClock = WatchClock(alreadyWatched: plan.watched)
        newSession.proxyToken = proxyToken
        newSession.reauthorizer = reauthorizer
        newSession.requestHeaders = request.requestHeaders
        newSession.itemWatermark = itemWatermark
        newSession.timeshift = timeshift
        newSession.watchdogs = OpenWatchdogs(session: newSession, host: self, request: original, stallRetries: stallRetries)
        if plan.mayUseHLSDemuxer { newSession.hls = HLSController(session: newSession, host: self, fetcher: fetcher) }
        newSession.recovery = RecoveryController(session: newSession, host: self, reconnectTimeout: configuration.reconnectTimeout,
                                                 recorded: timeshift != nil, probeFetcher: probeFetcher)
        session = newSession
        releasedSource = nil
        stats.opens += 1
        log.info("open", ["uri": source.info.uri, "kind": source.info.kind.rawValue])
        publish(.source(source.info))
        if replacedLadder {
            // The old source's ladder is gone: said, so that a client following events does
            // not keep offering it (the dashboard did) until the new source has one.
            publish(.variants([]))
            publish(.variant(VariantState()))
        }
        if !fromQueue, queue != nil {
            queue = nil
            updateRepeat()
            publish(.queue(nil))
        }
        updateLiveTimer()
        updateOutput()
        showWatermark()
        if let subtitle {
            newSession.subtitles.selectedExternal = attach(subtitle, to: newSession, language: request.subtitleLanguage)
        } else {
            newSession.wantedSubtitleLanguage = request.subtitleLanguage
        }
        if plan.fetchesMaster { newSession.hls?.fetchMaster() }
        run(machine.handle(.open(autoplay: plan.autoplay, start: plan.start, mayBeLive: plan.mayBeLive)))
        notifyFeatures(progress.map { .loaded($0) })
        newSession.watchdogs?.start()
        newSession.recovery?.start()
    }

    /// Registers the open's request headers (and key service) with the header proxy and
    /// points `source` at it; nil when the open has neither.
    /// A source from the URL resolver always plays through the proxy, which asks the
    /// resolver again when the origin refuses; Marquee's own requests (the master, probes)
    /// go through it too (no `originURI`), as a single-use URL serves one request only.
    private func registerHeaders(of plan: OpenPlan, source: inout ResolvedSource,
                                 reauthorizer: ProxyReauthorizer?) throws(APIError) -> String? {
        guard let headers = plan.proxiedHeaders ?? (reauthorizer != nil ? ([:], [:]) : nil) else { return nil }
        do {
            var session = LoopbackProxy.Session(headers: headers.headers, keyHeaders: headers.keyHeaders,
                                                keyService: plan.keyService, onKeyRefused: keyRefusedReporter())
            session.reauthorizer = reauthorizer
            let token = try proxy.register(session)
            if reauthorizer == nil { source.originURI = source.playbackURI }
            source.playbackURI = proxy.url(for: source.playbackURI, token: token)
            return token
        } catch {
            throw APIError(.pipelineError, "cannot start the header proxy: \(error)")
        }
    }

    private func stop() {
        openGeneration += 1  // a resolution still under way is dropped
        guard currentSource != nil else { return }
        closeSession()
        updateOutput()
        releasedSource = nil
        run(machine.handle(.stop))
        publish(.source(nil))
    }

    private func seek(_ request: SeekRequest) throws(APIError) {
        let session = try requireSource()
        // Known once the pipeline answered its queries after preroll; until then the seek is
        // queued by the machine like any seek before preroll.
        if machine.prerolled, machine.isLive || (session.answeredQueries && session.seekable == nil) {
            throw APIError(.notSeekable, "this source cannot seek")
        }
        // Positions the API speaks of are in the timeline the snapshot shows; for timeshift
        // that is the recording's, `timelineOffset` ahead of the pipeline's.
        let offset = timelineOffset
        var target = request.position ?? 0
        if let relative = request.offset {
            let base = (machine.pendingSeekTarget ?? session.position ?? 0) + offset
            target = base + relative
        }
        target = max(0, target)
        if let duration = session.duration { target = min(target, duration) }
        let exact = request.exact ?? false
        if let range = timeshiftSeekable(session) {
            // A key-unit seek lands on the keyframe before its target: aimed at the very
            // start it would land in the oldest segment, which may be deleted any moment.
            target = min(max(target, range.start + (exact ? 0 : 0.5)), range.end)
        }
        stats.seeks += 1
        publish(.seek(SeekUpdate(position: target, exact: exact)))
        run(machine.handle(.seek(.init(position: target - offset, exact: exact))))
    }

    func setRepeatOne(_ on: Bool) { machine.repeatOne = on }

    /// A seek the player makes itself (no `seek` event), in the pipeline's timeline.
    func seekPipeline(to position: Double, exact: Bool = false) {
        run(machine.handle(.seek(.init(position: position, exact: exact))))
    }

    /// A flushing accurate seek to where playback is: drops what is buffered downstream.
    func flushAtCurrentPosition() {
        guard machine.prerolled, let position = machine.pendingSeekTarget ?? session?.position else { return }
        run(machine.handle(.seek(.init(position: position, exact: true))))
    }

    private func goLive() throws(APIError) {
        let session = try requireSource()
        guard machine.isLive || session.source.info.live else {
            throw APIError(.notLive, "the source is not live")
        }
        // Without timeshift a live source always plays at its edge: nothing to jump over.
        guard let range = timeshiftSeekable(session) else { return }
        stats.seeks += 1
        publish(.seek(SeekUpdate(position: range.end, exact: false)))
        run(machine.handle(.seek(.init(position: range.end - timelineOffset, exact: false))))
    }

    private func apply(_ patch: SettingsPatch) throws(APIError) {
        if patch.abLoop != nil || patch.clearsABLoop {
            if patch.clearsABLoop { try requireSource() }
            try validateABLoop(patch.abLoop)
        }
        let oldRate = settings.rate
        settings.merge(patch)
        updateRepeat()
        session?.apply(settings)
        output.subtitles.style = settings.subtitleStyle
        if settings.rate != oldRate {
            run(machine.handle(.rateChanged(rate: settings.rate, position: machine.pendingSeekTarget ?? session?.position)))
        }
        refreshCue()  // the rate or a subtitle setting may move the cue
        if patch.abLoop != nil || patch.clearsABLoop { setABLoop(patch.abLoop) }
        publish(.settings(settings.update(abLoop: session?.abLoop)))
    }

    // MARK: Tracks

    private func selectAudio(_ id: String) throws(APIError) {
        try select(id, kind: .audio)
    }

    private func selectSubtitle(_ id: String?) throws(APIError) {
        let session = try requireSource()
        session.wantedSubtitleLanguage = nil  // the viewer's choice wins over the open's
        session.awaitedSubtitleStream = nil
        guard let id else {
            try selectExternalSubtitle(nil)
            sendSelection(currentSelection().filter { streamKind($0) != .text })
            showCue(nil)
            return
        }
        if session.subtitles.external.contains(where: { $0.id == id }) {
            try selectExternalSubtitle(id)
            return
        }
        try select(id, kind: .text)
        try selectExternalSubtitle(nil)
    }

    /// The open's `subtitleLanguage` for embedded tracks (Matroska/MP4 text tracks, HLS
    /// subtitle renditions): the first subtitle stream in that language is selected, once.
    /// Kept until a collection lists one, as an HLS rendition's stream may come later.
    private func selectWantedSubtitleLanguage(in session: PlaybackSession) {
        guard let language = session.wantedSubtitleLanguage,
              let stream = TrackList.subtitleStream(language: language, in: session.streams) else { return }
        session.wantedSubtitleLanguage = nil
        log.info("subtitle language", ["language": language, "stream": stream.id])
        if !currentSelection().contains(stream.id) { session.awaitedSubtitleStream = stream.id }
        sendSelection(currentSelection().filter { streamKind($0) != .text } + [stream.id])
    }

    private func select(_ id: String, kind: MediaStream.Kind) throws(APIError) {
        let session = try requireSource()
        guard let stream = TrackList.stream(for: id, kind: kind, in: session.streams) else {
            throw APIError(.unknownTrack, "no \(kind == .text ? "subtitle" : kind.rawValue) track '\(id)'")
        }
        sendSelection(currentSelection().filter { streamKind($0) != kind } + [stream.id])
    }

    /// What is selected now; before playbin3 reported a selection, its default (the first
    /// stream of each kind).
    func currentSelection() -> [String] {
        guard let session else { return [] }
        if let requested = session.requestedSelection ?? session.pendingSelection { return requested }
        if !session.selectedStreamIDs.isEmpty { return session.selectedStreamIDs }
        var firsts: [MediaStream.Kind: String] = [:]
        for s in session.streams where firsts[s.kind] == nil { firsts[s.kind] = s.id }
        return Array(firsts.values)
    }

    private func streamKind(_ id: String) -> MediaStream.Kind? {
        session?.streams.first { $0.id == id }?.kind
    }

    func sendSelection(_ ids: [String]) {
        guard let session else { return }
        // GStreamer 1.22's playbin3 deadlocked (4 of 6 runs) when select-streams arrived
        // before preroll: hold it until ASYNC_DONE.
        guard machine.prerolled else {
            session.pendingSelection = ids
            return
        }
        log.debug("select-streams", ["ids": ids.joined(separator: ",")])
        session.requestedSelection = ids
        session.control.selectStreams(ids)
    }

    // MARK: Pipeline events

    /// A bus event of the loaded session's pipeline. Only the loaded session's reach here:
    /// its bus watch is removed when it closes (on this thread, so nothing is dispatched
    /// after), and the worker's answers come over that same bus.
    private func handle(_ event: BusEvent) {
        guard let session else { return }
        log.debug("bus", ["event": "\(event)"])
        switch event {
        case .stateChanged:
            feedMachine(event)
        case .asyncDone:
            session.refreshQueries()
            let wasSeeking = machine.seekInFlight != nil
            feedMachine(event)
            applyDefaultRendition(in: session)
            if let pending = session.pendingSelection {
                session.pendingSelection = nil
                sendSelection(pending)
            }
            if wasSeeking { publishPosition(force: true) }
            updateOutput()
            if session.frameSettlesAt == nil {
                let fps = session.videoSize?.frameRate.map { Double($0.numerator) / Double($0.denominator) } ?? 30
                session.frameSettlesAt = .now + .milliseconds(max(150, Int(3000 / max(fps, 1))))
            }
            refreshCue()
        case .buffering(let percent):
            if percent != machine.bufferingPercent { publish(.buffering(BufferingUpdate(percent: percent))) }
            feedMachine(event)
        case .durationChanged:
            session.refreshQueries()
        case .workDone(let work):
            handle(work, in: session)
        case .endOfStream:
            publishPosition(force: true)
            if !machine.repeatOne, advanceQueueAtEnd() { return }
            if !machine.repeatOne { publish(.eos) }
            feedMachine(event)
        case .error(let error):
            if let refusal = session.proxyToken.flatMap(proxy.keyRefusal(for:)) {
                // hlsdemux2's error about the key the key service refused: that refusal is why.
                failKeyRefused(refusal, token: session.proxyToken)
                return
            }
            if handleKeyServiceOutage(in: session) { return }
            var apiError = APIError(pipelineError: error, remote: !session.source.isLocalFile && !session.source.isDemo,
                                    missingPlugins: session.missingPlugins.names)
            if session.source.isLocalFile, !machine.prerolled { apiError = apiError.explained(by: session.foundType) }
            log.error("pipeline error", ["code": apiError.code.rawValue, "message": error.message, "debug": error.debug ?? ""])
            if session.recovery?.pipelineError(apiError) == true { return }
            feed(.failed(apiError))
        case .warning(let warning):
            log.warning("pipeline warning", ["message": warning.message])
        case .streamCollection(let streams):
            session.streams = streams.map { session.hls?.ladder?.describe($0) ?? $0 }
            selectWantedSubtitleLanguage(in: session)
            publish(.tracks(tracks()))
            // A local file's collection without audio or video (typefind found application/pdf,
            // application/zip...; parsebin posts missing-plugin and exposes an unknown stream)
            // often never gets an error from GStreamer 1.22: fail it now, as not media.
            if session.source.isLocalFile, !machine.prerolled,
               let error = APIError.unsupportedFormat(streams: session.streams, found: session.foundType) {
                log.warning("unsupported format", ["uri": session.source.info.uri, "message": error.message])
                feed(.failed(error))
            }
        case .streamsSelected(let ids):
            session.selectedStreamIDs = ids
            session.requestedSelection = nil
            if let awaited = session.awaitedSubtitleStream, ids.contains(awaited), session.hls == nil, session.duration != nil {
                // The demuxer read ahead (a small file: all of it) while the first track was
                // selected, and the new track's text up to there was dropped: without a flush
                // its cues came late or never (3 of 14 runs in SubtitleSourcesTests with the
                // 6 s clip). HLS renditions are downloaded from the position on their own.
                flushAtCurrentPosition()
            }
            publish(.tracks(tracks()))
        case .clockLost, .latency:
            _ = PipelineBusRules.keepUp(after: event, control: session.control, playing: machine.target == .playing)
        case .element(let name, _, let fields):
            if let found = TypeFound(event) {
                if session.foundType == nil { session.foundType = found }
                log.debug("type found", ["type": found.mediaType, "probability": "\(found.probability)"])
                return
            }
            if name == "adaptive-streaming-statistics" { noteDownload(fields, in: session) }
            if session.missingPlugins.note(event) {
                log.warning("missing plugin", ["name": fields["name"] ?? "", "type": fields["type"] ?? ""])
            }
        case .segmentDone:
            loopSegmentDone()
        case .streamStart:
            finishGaplessSwitch()
        case .spliced:
            break  // the output stage's, never a playbin3's
        }
    }

    /// What the worker's call into the pipeline returned (see `PipelineWorker`).
    private func handle(_ work: PipelineWork, in session: PlaybackSession) {
        switch work {
        case .stateChange(let state, let result):
            if let input = PipelineBusRules.machineInput(for: .workDone(work)) { feed(input) }
            if result == .failure && state > .null { session.watchdogs?.stateChangeRefused(to: PlaybackMachine.PipelineState(state)) }
        case .seek(let accepted):
            guard !accepted else { return }
            log.warning("seek refused")
            if machine.seekInFlight != nil { run(machine.handle(.asyncDone)) }  // nothing in flight after all
        case .queried(let duration, let seekable):
            session.duration = duration
            session.seekable = seekable
            let wasAnswered = session.answeredQueries
            session.answeredQueries = true
            // `?wait=` replies hold until the queries are answered (`isSettled`): a position
            // event wakes them, and carries the duration the answer brought.
            if !wasAnswered {
                publishPosition(force: true)
                notifyFeatures(progress.map { .queriesAnswered($0) })
            }
        }
    }

    /// The machine's input for `event` (`PipelineBusRules`, shared with the PiP inset).
    private func feedMachine(_ event: BusEvent) {
        if let input = PipelineBusRules.machineInput(for: event) { run(machine.handle(input)) }
    }

    /// Carries out the machine's actions. Calls into the pipeline go to the worker; what
    /// they return comes back as bus events, after this batch's own events.
    func run(_ actions: [PlaybackMachine.Action]) {
        defer { machineRan() }
        for action in actions {
            switch action {
            case .setPipelineState(let state):
                session?.requestState(state)
            case .seek(let position, let exact, let rate):
                session?.seek(to: position, exact: exact, rate: rate)
            case .releasePipeline:
                closeSession()
                updateOutput()
            case .emitState(let state, let previous):
                log.info("state", ["state": state.rawValue, "previous": previous.rawValue])
                watchClock.playing(state == .playing)
                notifyFeatures(.stateChanged(StateChange(state: state, previous: previous), progress))
                publish(.state(StateChange(state: state, previous: previous)))
                updatePositionTimer()
                refreshCue()
            }
        }
    }

    /// After the machine ran: what the session's controllers follow.
    private func machineRan() {
        guard let session else { return }
        if machine.prerolled { session.everPrerolled = true }
        session.recovery?.machineRan()
    }

    /// One input to the machine and its actions; a failure is also published, and counted
    /// as a pipeline error unless it came from outside the pipeline (`fromPipeline: false`:
    /// a session server's block, which `marquee_pipeline_errors_total` must not count).
    func feed(_ input: PlaybackMachine.Input) { feed(input, fromPipeline: true) }

    func feed(_ input: PlaybackMachine.Input, fromPipeline: Bool) {
        if case .failed(let error) = input {
            guard machine.error == nil else { return }  // the first failure is the one reported
            if fromPipeline {
                // With GST_DEBUG_DUMP_DOT_DIR set, the failing pipeline as it is now (GstPlay
                // and Clapper do the same), before the machine releases it: the worker writes
                // it (file I/O) ahead of the release queued after it (Element.writeDotGraph).
                session?.control.writeDotGraph(name: "marquee-error-\(error.code.rawValue)")
                stats.pipelineErrors += 1
            }
            publish(.error(error))
        }
        run(machine.handle(input))
    }

    private func closeSession() {
        guard session != nil else { return }
        watchClock.playing(false)
        notifyFeatures(progress.map { .closing($0, atEnd: machine.state == .ended) })
        if let token = session?.proxyToken { proxy.unregister(token) }
        releasedSource = session?.source.info
        // The session closes its timeshift ring once the worker has the pipeline in NULL.
        session?.close {
            // A pipeline's decoders free tens of MB that glibc keeps in per-thread arenas;
            // give them back so an idle or stopped daemon stays small.
            Heap.trim()
        }
        session = nil  // the worker holds the pipeline until it is in NULL, then frees it
        positionTimer?.cancel()
        positionTimer = nil
        liveTimer?.cancel()
        liveTimer = nil
        lastPublishedPosition = nil
        refreshCue()  // clears the cue: no session
        showWatermark()  // the player's own again, if any
    }

    // MARK: Position

    private func updatePositionTimer() {
        if machine.state == .playing {
            guard positionTimer == nil else { return }
            positionTimer = LoopTimer(milliseconds: Self.positionIntervalMilliseconds) { [weak self] in
                self?.publishPosition(force: false)
            }
        } else {
            positionTimer?.cancel()
            positionTimer = nil
            publishPosition(force: true)
        }
    }

    /// The position the API shows, in the pipeline's timeline: a seek's target while it
    /// lands (a reply to a seek shows where it goes), else what the sinks answer, else the
    /// last answer (they answer nothing for a moment after each flush); before the first
    /// preroll, the start position the open asked for.
    func shownPosition(_ session: PlaybackSession) -> Double? {
        if let target = machine.pendingSeekTarget { return target }
        if let position = session.position {
            session.lastPosition = position
            return position
        }
        return session.lastPosition
    }

    private func publishPosition(force: Bool) {
        guard let session, let pipelinePosition = shownPosition(session) else { return }
        let position = pipelinePosition + timelineOffset
        if !force, let last = lastPublishedPosition, abs(last - position) < 0.01 { return }
        lastPublishedPosition = position
        publish(.position(PositionUpdate(position: position, duration: session.duration)))
    }

    // MARK: Snapshot

    public func snapshot() -> PlayerSnapshot {
        var s = PlayerSnapshot()
        s.state = machine.state
        s.source = currentSource
        if session != nil { s.source?.watched = watchClock.total() }
        s.settings = settings
        s.abLoop = session?.abLoop
        s.queue = queue?.info
        s.buffering = machine.bufferingPercent
        s.error = machine.error
        s.pip = pip?.info
        s.watermark = drawnWatermark
        s.cue = currentCue
        if let session {
            let offset = timelineOffset
            s.position = shownPosition(session).map { $0 + offset }
            s.duration = session.duration
            (s.seekable, s.live) = liveWindow(session, position: s.position)
            s.tracks = tracks()
            s.variants = session.hls?.ladder?.variants ?? []
            s.variant = session.hls?.variantState ?? VariantState()
        }
        return s
    }

    func tracks() -> Tracks {
        guard let session else { return Tracks() }
        var tracks = TrackList.tracks(streams: session.streams, selected: Set(currentSelection()))
        // External files come after the embedded tracks; one of them drawn means no embedded one is.
        let external = session.subtitles.selectedExternal
        if external != nil { tracks.subtitle = tracks.subtitle.map { var t = $0; t.selected = false; return t } }
        tracks.subtitle += session.subtitles.external.map { var t = $0.track; t.selected = $0.id == external; return t }
        return tracks
    }

    /// Pipelines to NULL. Called once at exit: here, and only here, the GLib thread waits
    /// for the worker (the daemon's exit guard ends the process if it takes over 5 s), and
    /// what would follow a release on the loop (closing the timeshift ring) is done in line.
    public func shutdown() {
        let timeshift = session?.timeshift
        closeSession()
        closePip(publishing: false)
        removeWatermark()
        output.stop()
        worker.drain()
        timeshift?.closeRing(waiting: true)
        subscribers.removeAll()
        features.removeAll()
    }
}

/// What the session's controllers may ask (`SessionHost`).
extension Player: SessionHost {
    func sourceInfoChanged(in session: PlaybackSession) {
        publish(.source(session.source.info))
        updateLiveTimer()
    }

    func reopen(_ request: OpenRequest, afterStall retries: Int) {
        do throws(APIError) {
            // As from the queue: a queue the first open kept (or cleared) stays as it is.
            try open(request, fromQueue: true, retrying: true, stallRetries: retries)
        } catch {
            feed(.failed(error))
        }
    }
}

extension Player {
    /// True when no seek is queued or in flight: a `?wait=` reply waits for this too, so
    /// `seek?wait=playing` returns after the seek landed, not at once.
    public var isSettled: Bool {
        machine.seekInFlight == nil && machine.queuedSeek == nil && (session?.answeredQueries ?? true)
    }
}

extension Player {
    /// The GStreamer runtime version, for /healthz.
    public nonisolated var gstreamerVersion: String { GStreamer.version }
}
