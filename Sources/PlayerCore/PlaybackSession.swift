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
    /// The pipeline prerolled at least once: later network errors are recovered from.
    var everPrerolled = false
    /// The first type a typefind element reported for a local file (`TypeFound`).
    var foundType: TypeFound?

    /// Plugins GStreamer said it lacks for this source (see `MissingPluginNotes`).
    var missingPlugins = MissingPluginNotes()
    var selectedStreamIDs: [String] = []
    /// A track selection asked for before preroll, sent at ASYNC_DONE.
    var pendingSelection: [String]?
    /// The selection last sent, until playbin3 confirms it with STREAMS_SELECTED: replies
    /// show the tracks the command selected, not the ones it replaced.
    var requestedSelection: [String]?
    /// The open's `subtitleLanguage` when no external file took it: the first embedded
    /// subtitle stream in that language is selected once a collection lists one.
    var wantedSubtitleLanguage: String?
    /// The stream that language chose, until its first text arrives: the text of the
    /// default track (the first) meanwhile is not shown. The selection waits for preroll, and
    /// the first track's first cue arrived before it (seen: "English 1" before "한국어 2" with
    /// the fixture of SubtitleSourcesTests), and 1 run in 5 one more after STREAMS_SELECTED.
    var awaitedSubtitleStream: String?
    /// What the pipeline answered the worker's queries, asked at each ASYNC_DONE and while a
    /// live window moves. `answeredQueries` is false between asking and the answer.
    var duration: Double?
    var seekable: SeekableRange?
    var answeredQueries = false

    /// The header proxy's session, when the open asked for request headers.
    var proxyToken: String?
    /// A source from the URL resolver: its proxy session's refresher (a reconnect expires it).
    var reauthorizer: ProxyReauthorizer?
    var requestHeaders: [String: String] = [:]
    /// The item's own watermark (`open {"watermark"}`), its ids filled in; drawn instead of
    /// the player's while this session is loaded.
    var itemWatermark: WatermarkRequest?

    // The session's concerns, each a controller with its own state, timers and fetches,
    // closed by `close()`: nothing of a closed session fires afterwards. Set by the open
    // that made the session (`Player.open`), except the two the pipeline is built with.
    /// The open's watchdogs (open timeout, format watch, preroll-stall retry).
    var watchdogs: OpenWatchdogs?
    /// Network fault recovery; nil for a source the player does not reconnect.
    var recovery: RecoveryController?
    /// HLS ladder, variant pin and renditions; nil for local files and the demo.
    var hls: HLSController?
    /// Timeshift: the recorder and ring this session plays from.
    var timeshift: TimeshiftController?
    /// External subtitles and the embedded text tap.
    let subtitles: SessionSubtitles
    /// Gapless continuation to the next queue item.
    let gapless: GaplessController
    /// Sees typefind as playbin3 creates it (local files), for `foundType`.
    private var typefindHook: ElementSetupHook?

    init(id: Int, source: ResolvedSource, videoSink: Element, audioSink: String, settings: PlayerSettings,
         worker: PipelineWorker, onBusEvent: @escaping @GLibActor (BusEvent) -> Void,
         onSubtitleText: @escaping @GLibActor (TextSinkTap.TextBuffer) -> Void) throws(APIError) {
        (playbin, self.audioSink) = try SinkSelection.makePlaybin(name: "player", videoSink: videoSink, audioSink: audioSink)
        self.id = id
        self.source = source
        self.videoSink = videoSink
        control = worker.control(playbin)
        subtitles = SessionSubtitles(onText: onSubtitleText)
        gapless = GaplessController(playbin: playbin)
        playbin.set("uri", source.playbackURI)
        // Subtitle text goes to a tap, never to playbin3's own overlay (`SessionSubtitles`).
        playbin.set("flags", nick: SinkSelection.playbinFlags(text: subtitles.textSink != nil))
        if let tap = subtitles.textSink { playbin.set("text-sink", tap) }
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
        if source.isLocalFile {
            // What typefind makes of a local file, for a clear `unsupported_format` when it is
            // not media (Player.handle, OpenWatchdogs' format watch). element-setup fires for
            // the typefinds inside urisourcebin and parsebin alike; each reports the same type.
            typefindHook = ElementSetupHook(playbin: playbin, factories: [Self.typefind]) { _, typefind in typefind.reportTypeFound() }
        }
        watch = BusWatch(pipeline: playbin, handler: onBusEvent)
    }

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

    func apply(_ settings: PlayerSettings) {
        playbin.set("volume", settings.volume)
        playbin.set("mute", settings.muted)
        // av-offset > 0 delays video; an audio delay of X s is an av-offset of -X s.
        playbin.set("av-offset", int64: -ClockTime.nanoseconds(settings.audioDelay))
    }

    /// Asks the worker for a state change; the result comes back as `.workDone(.stateChange)`.
    func requestState(_ state: PlaybackMachine.PipelineState) {
        control.setState(ElementState(state))
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

    /// Stops everything the session runs: its controllers first (their timers and fetches
    /// never fire again), then the bus watch and the pipeline; `then` runs once the pipeline
    /// is in NULL, after the timeshift ring (if any) was closed.
    func close(then: (@GLibActor @Sendable () -> Void)? = nil) {
        let textSink = subtitles.textSink  // flushed with the other sinks, below
        watchdogs?.close()
        recovery?.close()
        hls?.close()
        timeshift?.close()
        subtitles.close()
        gapless.close()
        watch?.stop()
        watch = nil
        typefindHook?.disconnect()
        typefindHook = nil
        // To NULL on the worker: a network pipeline can take seconds to stop. The worker
        // holds its own reference until then, and flushes the sinks first (a prerolling
        // sink deadlocked playbin3 1.22 on its way down: see `PipelineControl.release`).
        // The pipeline first, while the ring server still holds its playlist request:
        // closing the ring first answers that request on the server's thread while
        // souphttpsrc is being stopped, a race that crashed GStreamer 1.22.0's souphttpsrc.
        // So the ring closes once the pipeline is in NULL.
        let timeshift = self.timeshift
        control.release(flushing: [videoSink, audioSink] + [textSink].compactMap { $0 }) {
            timeshift?.closeRing()
            then?()
        }
    }
}
