import ControlAPI
import GLibRuntime
import GStreamerKit
import HTTPFetch
import Timeshift

/// One loaded source: the playbin3 pipeline that plays it, its bus watch, and what the
/// pipeline told us about its streams. Created by `open`, closed by `stop`, a new `open`
/// or an error. GLib thread only; `close()` must be called before it is dropped.
@GLibActor
final class PlaybackSession {
    let id: Int
    /// What plays; replaced when a queue goes on gaplessly to its next item.
    var source: ResolvedSource
    let playbin: Element
    /// Makes the calls into `playbin` that can block, off the GLib thread; what they return
    /// comes back as `BusEvent.workDone`.
    let control: PipelineControl
    /// The intervideosink that hands frames to the output stage.
    let videoSink: Element
    let audioSink: Element
    private var watch: BusWatch?

    /// The latest stream collection, and the stream ids playbin3 says are selected.
    var streams: [MediaStream] = []
    // Network fault recovery (Player+Recovery.swift).
    var stallTimer: LoopTimer?
    var stallWatch = StallWatch()
    var recovery: SourceRecovery?
    /// The origin probe in flight, numbered so a cancelled or superseded one is ignored.
    var probe: FetchHandle?
    private var probeID = 0
    private var probeInFlight: Int?
    /// The pipeline prerolled at least once: later network errors are recovered from.
    var everPrerolled = false
    /// The request that opened this session, for another try when playbin3 stalls before
    /// preroll (Player.startPrerollStallWatch), and how many tries came before this one.
    var openRequest: OpenRequest?
    var stallRetries = 0
    /// The first type a typefind element reported for a local file (`TypeFound`).
    var foundType: TypeFound?
    /// Marquee read the source's HLS playlist: the URL the user gave works, so a failing
    /// segment or variant is an origin fault to ride out, even before the first frame.
    var playlistLoaded = false

    var isProbing: Bool { probeInFlight != nil }

    func startProbe() -> Int {
        probeID += 1
        probeInFlight = probeID
        return probeID
    }

    /// True when `id` is the probe in flight (which then ends).
    func finishProbe(_ id: Int) -> Bool {
        guard probeInFlight == id else { return false }
        probeInFlight = nil
        probe = nil
        return true
    }

    func cancelProbe() {
        probeInFlight = nil
        probe?.cancel()
        probe = nil
    }

    /// Plugins GStreamer said it lacks for this source (see `MissingPluginNotes`).
    var missingPlugins = MissingPluginNotes()
    var selectedStreamIDs: [String] = []
    /// A track selection asked for before preroll, sent at ASYNC_DONE.
    var pendingSelection: [String]?
    /// The selection last sent, until playbin3 confirms it with STREAMS_SELECTED: replies
    /// show the tracks the command selected, not the ones it replaced.
    var requestedSelection: [String]?
    /// What the pipeline answered the worker's queries, asked at each ASYNC_DONE and while a
    /// live window moves. `answeredQueries` is false between asking and the answer.
    var duration: Double?
    var seekable: SeekableRange?
    var answeredQueries = false

    // HLS: the ladder from our own parse of the master (nil until fetched, or not HLS), the
    // pin that hlsdemux2 is configured with, and the quality in force.
    var ladder: HLSLadder?
    let variantPin = VariantPin()
    var variantState = VariantState()
    /// Sees hlsdemux2 as playbin3 creates it, to pin a variant before its first segment.
    private var setupHook: ElementSetupHook?
    var masterFetch: FetchHandle?
    /// The first variant's media playlist, read to tell live HLS from VOD.
    var livenessFetch: FetchHandle?
    /// The header proxy's session, when the open asked for request headers.
    var proxyToken: String?
    var requestHeaders: [String: String] = [:]
    var defaultRenditionApplied = false
    /// Timeshift: the recorder and ring this session plays from.
    var timeshift: TimeshiftBuffer?
    /// Since when the timeshift recorder has been reconnecting, and its latest attempt.
    var recorderLost: (since: ContinuousClock.Instant, attempts: Int)?

    /// Receives embedded subtitle text as it is due (playbin3's text sink).
    private var textTap: TextSinkTap?

    init(id: Int, source: ResolvedSource, videoSink: Element, audioSink: String, settings: PlayerSettings,
         worker: PipelineWorker, onBusEvent: @escaping @GLibActor (BusEvent) -> Void,
         onSubtitleText: @escaping @GLibActor (TextSinkTap.TextBuffer) -> Void) throws(APIError) {
        (playbin, self.audioSink) = try SinkSelection.makePlaybin(name: "player", videoSink: videoSink, audioSink: audioSink)
        self.id = id
        self.source = source
        self.videoSink = videoSink
        control = worker.control(playbin)
        playbin.set("uri", source.playbackURI)
        // Subtitle text goes to a tap, never to playbin3's own overlay: that textoverlay inside
        // playsink deadlocked GStreamer 1.22 when the pipeline went to NULL after the subtitle
        // track was deselected while playing (the main thread waited in playsink's
        // change_state for a lock the text streaming thread held while textoverlay waited for
        // a video frame stuck in the prerolling sink). With a text-sink given, playsink links
        // the text stream to it and builds no overlay; Marquee draws the text in its output
        // stage and sends it as `cue` events.
        textTap = TextSinkTap { buffer in Task { @GLibActor in onSubtitleText(buffer) } }
        playbin.set("flags", nick: SinkSelection.playbinFlags(text: textTap?.sink != nil))
        if let tap = textTap?.sink { playbin.set("text-sink", tap) }
        // scaletempo keeps the pitch when the rate changes.
        if let scaletempo = Element(factory: "scaletempo") { playbin.set("audio-filter", scaletempo) }
        if source.isDemo, let clock = Element(factory: "clockoverlay") {
            clock.set("text", "Marquee demo")
            clock.set("halignment", nick: "center")
            clock.set("valignment", nick: "center")
            clock.set("font-desc", "Sans 36")
            playbin.set("video-filter", clock)
        }
        apply(settings)
        if !source.isLocalFile && !source.isDemo {
            let pin = variantPin
            setupHook = ElementSetupHook(playbin: playbin, factories: [Self.hlsDemuxer]) { _, demuxer in pin.configure(demuxer) }
        } else if source.isLocalFile {
            // What typefind makes of a local file, for a clear `unsupported_format` when it is
            // not media (Player.handle, startFormatWatch). element-setup fires for the
            // typefinds inside urisourcebin and parsebin alike; each reports the same type.
            setupHook = ElementSetupHook(playbin: playbin, factories: [Self.typefind]) { _, typefind in typefind.reportTypeFound() }
        }
        watch = BusWatch(pipeline: playbin, handler: onBusEvent)
    }

    static let hlsDemuxer = "hlsdemux2"
    static let typefind = "typefind"

    /// The playback position (stream time, seconds). Asked of the video and audio sinks, not
    /// of playbin3: there the query also reaches the subtitle tap, which right after a flush
    /// passes it upstream, where GStreamer 1.22's subparse answers with a CRITICAL
    /// (gst_segment_to_stream_time on a segment not yet in TIME).
    var position: Double? { videoSink.queryPosition() ?? audioSink.queryPosition() }

    /// The main video's size once it negotiated; nil for audio-only sources.
    var videoSize: VideoSize? { videoSink.staticPad("sink")?.videoSize }
    /// True once a video frame reached the output stage. It stays true: the sink forgets
    /// its last frame at every flush (seeks, rate changes, track and variant switches),
    /// while the stage keeps showing it (about half the snapshots polled during a series of
    /// seeks were `no_video` when this asked the sink each time).
    var hasShownVideo: Bool {
        if !shownVideo { shownVideo = videoSink.lastSample != nil }
        return shownVideo
    }
    private var shownVideo = false
    /// The last position the sinks answered: right after a flush they answer nothing until
    /// the first buffer, and the API never shows a null position while one is known.
    var lastPosition: Double?
    /// When the composed frame shows this source: its first frame takes a few output frames
    /// (and a renegotiation to its size) to get through the stage after preroll.
    var frameSettlesAt: ContinuousClock.Instant?

    /// Gapless queue: the hook on playbin3's about-to-finish, the item it is armed with, and
    /// whether playbin3 took it (the switch completes at the next STREAM_START).
    var gapless: GaplessHook?
    var gaplessNext: (index: Int, request: OpenRequest, source: ResolvedSource)?
    var gaplessTaken = false

    /// External subtitle files added to this session, and the one drawn (by id).
    var externalSubtitles: [ExternalSubtitle] = []
    var selectedExternalSubtitle: String?

    /// The running hlsdemux2, once playbin3 created one.
    var hlsDemuxer: Element? { setupHook?.element(factory: Self.hlsDemuxer) }

    func apply(_ settings: PlayerSettings) {
        playbin.set("volume", settings.volume)
        playbin.set("mute", settings.muted)
        // av-offset > 0 delays video; an audio delay of X s is an av-offset of -X s.
        playbin.set("av-offset", int64: -ClockTime.nanoseconds(settings.audioDelay))
    }

    /// Asks the worker for a state change; the result comes back as `.workDone(.stateChange)`.
    func requestState(_ state: PlaybackMachine.PipelineState) {
        switch state {
        case .null: control.setState(.null)
        case .ready: control.setState(.ready)
        case .paused: control.setState(.paused)
        case .playing: control.setState(.playing)
        }
    }

    /// Asks the duration and the seekable range again (answered as `.workDone(.queried)`).
    func refreshQueries() {
        answeredQueries = false
        control.query()
    }

    /// The A-B section being looped (media seconds), nil when none.
    var abLoop: ABLoop?

    /// Asks the worker for a seek; whether the pipeline took it comes back as `.workDone(.seek)`.
    func seek(to position: Double, exact: Bool, rate: Double) {
        // Key-unit seeks snap to the keyframe before the target, as players do by default:
        // fast, and the picture starts clean. Accurate seeks decode up to the exact frame.
        var flags: Element.SeekFlags = exact ? [.flush, .accurate] : [.flush, .keyUnit, .snapBefore]
        if let loop = abLoop {
            // A segment seek ending at B: the pipeline posts SEGMENT_DONE there instead of
            // EOS, and `loopBack()` starts the section again without a flush.
            flags = [.flush, .accurate, .segment]
            control.seek(to: min(max(position, loop.a), loop.b), rate: rate, flags: flags, stop: loop.b)
            return
        }
        control.seek(to: position, rate: rate, flags: flags)
    }

    /// At SEGMENT_DONE of the A-B section: back to A without flushing, so the last frame
    /// before B is followed by A's at the frame rate (GSTREAMER-NOTES: 33.3 ms at 30 fps).
    @discardableResult
    func loopBack(rate: Double) -> Bool {
        guard let loop = abLoop else { return false }
        control.seek(to: loop.a, rate: rate, flags: [.accurate, .segment], stop: loop.b)
        return true
    }

    /// Stops everything the session runs; `then` runs once its pipeline is in NULL.
    func close(then: (@GLibActor @Sendable () -> Void)? = nil) {
        stallTimer?.cancel()
        stallTimer = nil
        cancelProbe()
        masterFetch?.cancel()
        masterFetch = nil
        livenessFetch?.cancel()
        livenessFetch = nil
        watch?.stop()
        watch = nil
        setupHook?.disconnect()
        setupHook = nil
        // To NULL on the worker: a network pipeline can take seconds to stop. The worker
        // holds its own reference until then, and flushes the sinks first (a prerolling
        // sink deadlocked playbin3 1.22 on its way down: see `PipelineControl.release`).
        control.release(flushing: [videoSink, audioSink] + [textTap?.sink].compactMap { $0 }, then: then)
        gapless?.disconnect()
        gapless = nil
        textTap?.disconnect()
        textTap = nil
    }
}
