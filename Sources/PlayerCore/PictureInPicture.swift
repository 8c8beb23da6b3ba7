import ControlAPI
import GLibRuntime
import GStreamerKit
import Logging

/// The picture-in-picture source: its own playbin3, drawn by the output stage through the
/// stage's PiP channel. Independent of the main session: it starts playing at once, loops
/// nothing, and when it fails or ends only its own state says so. Its decisions are a
/// `PlaybackMachine` of its own, fed by the same `PipelineBusRules` as the main session's,
/// so the two follow one set of rules (buffering, live sources, failures). GLib thread only;
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
    private let isLocalFile: Bool

    private var machine = PlaybackMachine()
    /// Fails an inset that does not start in time; ends with the inset.
    private var startWatchdog: OneShotTimer?
    private var missingPlugins = MissingPluginNotes()
    var rect: Rect
    var swapped = false
    var muted: Bool { didSet { playbin.set("mute", muted) } }

    /// Called after the state changed (or an error), with the inset as it is now; never
    /// after `close()`.
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
        isLocalFile = source.isLocalFile
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

    /// Starts playing; a refusal comes back on the bus and fails the inset. A source that
    /// never starts (a stalled server) fails after 8 s (a file) or 30 s.
    func start() {
        run(machine.handle(.open(autoplay: true, start: nil, mayBeLive: !isLocalFile)))
        let seconds = isLocalFile ? 8 : 30
        startWatchdog = OneShotTimer(milliseconds: UInt32(seconds * 1000)) { [weak self] in
            guard let self else { return }
            fail(APIError(isLocalFile ? .mediaError : .networkError, "the picture-in-picture source did not start within \(seconds) s"))
        }
    }

    /// The PiP video's size once it negotiated.
    var videoSize: VideoSize? { videoSink.staticPad("sink")?.videoSize }

    /// Frames are shown only while the source runs; an ended or failed one is hidden.
    var showsFrames: Bool { state == .playing || state == .paused || state == .buffering }

    var state: PipInfo.State { PipInfo.State(machine.state) }
    var error: APIError? { machine.error }

    var info: PipInfo {
        PipInfo(uri: uri, state: state, rect: rect, muted: muted, swapped: swapped, error: error)
    }

    private func handle(_ event: BusEvent) {
        if let input = PipelineBusRules.machineInput(for: event) {
            run(machine.handle(input))
            return
        }
        if PipelineBusRules.keepUp(after: event, control: control, playing: machine.target == .playing) { return }
        switch event {
        case .error(let gstError):
            let apiError = APIError(pipelineError: gstError, remote: !isLocalFile, missingPlugins: missingPlugins.names)
            if machine.error == nil { log.warning("pip error", ["code": apiError.code.rawValue, "message": gstError.message]) }
            fail(apiError)
        case .element:
            _ = missingPlugins.note(event)
        case .workDone(.stateChange(let target, .failure)) where target > .null:
            fail(APIError(pipelineError: GStreamerError(domain: .core, code: 0, message: "the pipeline could not change to \(target)"),
                          remote: false, missingPlugins: missingPlugins.names))
        default:
            break
        }
    }

    /// Fails the inset (the first failure is the one it shows).
    func fail(_ failure: APIError) {
        guard machine.error == nil, machine.state != .ended else { return }
        run(machine.handle(.failed(failure)))
    }

    /// Carries out the machine's actions. An ended or failed inset gives its pipeline back
    /// at once, as the main player does: left in PLAYING after a typefind error, playbin3
    /// 1.22 hung when set to NULL later (seen with a text file as the PiP source).
    private func run(_ actions: [PlaybackMachine.Action]) {
        for action in actions {
            switch action {
            case .setPipelineState(let state):
                control.setState(ElementState(state))
            case .seek:
                break  // the inset never seeks
            case .releasePipeline:
                control.release()
            case .emitState(let state, _):
                if state != .opening { startWatchdog = nil }
                if state == .ended { control.release() }
                onChange?()
            }
        }
    }

    func close() {
        onChange = nil
        startWatchdog?.cancel()
        startWatchdog = nil
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

extension PipInfo.State {
    /// The inset's state as its machine derives it (an inset is never idle: it opens at once).
    init(_ state: PlaybackState) {
        switch state {
        case .idle, .opening: self = .opening
        case .buffering: self = .buffering
        case .paused: self = .paused
        case .playing: self = .playing
        case .ended: self = .ended
        case .error: self = .error
        }
    }
}
