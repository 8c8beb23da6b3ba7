import ControlAPI
import GLibRuntime
import GStreamerKit
import Logging

/// The picture-in-picture source: its own playbin3, drawn by the output stage through the
/// stage's PiP channel. Independent of the main session: it starts playing at once, loops
/// nothing, and when it fails or ends only its own state says so. GLib thread only;
/// `close()` before dropping.
@GLibActor
final class PictureInPicture {
    let uri: String
    let playbin: Element
    /// The calls into `playbin` that can block go through the player's worker.
    private let control: PipelineControl
    private let videoSink: Element
    private var watch: BusWatch?
    private let log = Logger(category: "pip")

    private(set) var state: PipInfo.State = .opening
    private(set) var error: APIError?
    private var missingPlugins = MissingPluginNotes()
    var rect: Rect
    var swapped = false
    var muted: Bool { didSet { playbin.set("mute", muted) } }

    /// Called after the state changed (or an error), with the inset as it is now.
    var onChange: (@GLibActor () -> Void)?

    init(source: ResolvedSource, displayURI: String, rect: Rect, muted: Bool, videoSink: Element, audioSink: String,
         worker: PipelineWorker) throws(APIError) {
        let playbin = try SinkSelection.makePlaybin(name: "pip", videoSink: videoSink, audioSink: audioSink).playbin
        self.uri = displayURI
        self.playbin = playbin
        control = worker.control(playbin)
        self.videoSink = videoSink
        self.rect = rect
        self.muted = muted
        playbin.set("uri", source.playbackURI)
        // No subtitles, no visualisation: the inset is a picture (and muted audio).
        playbin.set("flags", nick: SinkSelection.playbinFlags(text: false))
        playbin.set("mute", muted)
        if source.isDemo, let clock = Element(factory: "clockoverlay") {
            clock.set("text", "Marquee PiP")
            clock.set("font-desc", "Sans 36")
            playbin.set("video-filter", clock)
        }
        watch = BusWatch(pipeline: playbin) { [weak self] event in self?.handle(event) }
    }

    /// Starts playing; a refusal comes back on the bus and fails the inset.
    func start() {
        control.setState(.playing)
    }

    /// The PiP video's size once it negotiated.
    var videoSize: VideoSize? { videoSink.staticPad("sink")?.videoSize }

    /// Frames are shown only while the source runs; an ended or failed one is hidden.
    var showsFrames: Bool { state == .playing || state == .paused || state == .buffering }

    var info: PipInfo {
        PipInfo(uri: uri, state: state, rect: rect, muted: muted, swapped: swapped, error: error)
    }

    private func handle(_ event: BusEvent) {
        let before = (state, error)
        switch event {
        case .stateChanged(_, let new, _):
            if state == .ended || state == .error { break }
            if new == .playing { state = .playing } else if new == .paused, state != .opening, state != .buffering { state = .paused }
        case .buffering(let percent):
            if state == .ended || state == .error { break }
            if percent < 100 {
                state = .buffering
                // Network sources pause while they refill, as the main player does.
                control.setState(.paused)
            } else if state == .buffering {
                control.setState(.playing)
            }
        case .endOfStream:
            state = .ended
            release()
        case .error(let gstError):
            guard state != .error else { break }
            let apiError = APIError(pipelineError: gstError, remote: !uri.hasPrefix("file:") && !uri.hasPrefix("/"),
                                    missingPlugins: missingPlugins.names)
            log.warning("pip error", ["code": apiError.code.rawValue, "message": gstError.message])
            error = apiError
            state = .error
            release()
        case .element:
            _ = missingPlugins.note(event)
        case .clockLost:
            control.setState(.paused)
            control.setState(.playing)
        case .latency:
            control.recalculateLatency()
        case .workDone(.stateChange(let target, .failure)) where target > .null && state == .opening:
            error = APIError(pipelineError: GStreamerError(domain: .core, code: 0, message: "the pipeline could not change to \(target)"),
                             remote: false, missingPlugins: missingPlugins.names)
            state = .error
            release()
        default:
            break
        }
        if before.0 != state || before.1 != error { onChange?() }
    }

    /// Fails the inset from outside (a source that never started).
    func fail(_ failure: APIError) {
        guard state == .opening else { return }
        error = failure
        state = .error
        release()
        onChange?()
    }

    /// An ended or failed inset gives its pipeline back at once, as the main player does:
    /// left in PLAYING after a typefind error, playbin3 1.22 hung when set to NULL later
    /// (seen with a text file as the PiP source).
    private func release() {
        control.release()
    }

    func close() {
        watch?.stop()
        watch = nil
        control.release {
            // As the player does after a teardown: the inset's decoders free their buffers in
            // glibc's per-thread arenas, which keep them (30 PiP on/off cycles grew RSS by 10-14
            // MiB without this, 2-3 MiB with it; see LongLifeTests).
            Heap.trim()
        }
    }
}
