import ControlAPI
import FoundationEssentials
import Glibc
import GLibRuntime
import GStreamerKit
import Logging

/// The output stage: one live pipeline (`pipelines/output.pipeline`) that draws subtitles
/// and the watermark over the main video and ends in the configured video sink; while a
/// picture-in-picture inset is shown, a composition section (`pipelines/composition.pipeline`)
/// is spliced in to compose the two (OutputStage+Composition.swift). Each source plays in its
/// own playbin3 whose video sink is an `intervideosink` on one of this stage's channels, so
/// the inset can pause, seek, fail or end without touching the main pipeline, and the sink
/// (a KMS plane, say) is opened once.
///
/// Runs while something is loaded (`start()`/`stop()`). What it shows is kept here as
/// plain values and applied to the pipeline whenever it changes and when it starts.
/// GLib thread only.
@GLibActor
final class OutputStage {
    /// GStreamer's inter channels are process-wide names: unique per stage.
    let mainChannel: String
    let pipChannel: String
    private let sinkFactory: String
    let log = Logger(category: "output")

    struct Layout: Equatable {
        /// The main source has frames to show (hidden: the frame is black there).
        var mainVisible = false
        /// Where the inset goes, nil when no PiP frames are shown.
        var inset: Rect?
        /// The PiP source fills the frame and the main video goes into `inset`.
        var swapped = false
    }

    var layout = Layout() { didSet { if layout != oldValue { applyLayout() } } }
    /// The output picture's size: the main video's (or the inset's when the main has none).
    var frameSize: VideoSize? { didSet { if frameSize != oldValue { applyFrameSize() } } }
    var subtitles = SubtitleOverlay() { didSet { if subtitles != oldValue { applySubtitles() } } }
    var watermark: WatermarkOverlay? { didSet { if watermark != oldValue { applyWatermark() } } }

    /// The elements of the running pipeline the code sets.
    struct Parts {
        let pipeline: Element
        let mainRate: Element
        /// The composition section goes between these two pads (main-deinterlace's source
        /// pad and the subtitle overlay's video pad), which are linked while there is none.
        let composeFrom: Pad, composeInto: Pad
        let subtitles: Element, watermarkText: Element, watermarkImage: Element
        let sink: Element

        func contains(_ overlay: Element) -> Bool { overlay === subtitles || overlay === watermarkText }
    }
    private(set) var parts: Parts?
    /// The composition section while it is in the pipeline (see OutputStage+Composition.swift).
    var composition: Composition?
    /// A splice of the composition section in or out that has not been made yet.
    var pendingSplice: Splice?
    /// What to do when the pending splice reports, and when to give up on it.
    var spliceFinished: (@GLibActor (Bool) -> Void)?
    var spliceTimeout: OneShotTimer?
    /// A look at the layout again is scheduled, for when the pipeline has settled in PLAYING.
    var spliceRetryScheduled = false
    /// Overlays with a change waiting for a moment between frames (see `betweenFrames`).
    private var pendingOverlayChanges: Set<String> = []
    private var watch: BusWatch?
    private static var stagesCreated = 0

    init(videoSink: String) {
        Self.stagesCreated += 1
        let prefix = "marquee-\(getpid())-\(Self.stagesCreated)"
        mainChannel = prefix + "-main"
        pipChannel = prefix + "-pip"
        sinkFactory = videoSink
    }

    var isRunning: Bool { parts != nil }

    /// A video sink for a source's playbin3 that feeds this stage.
    func makeSourceSink(channel: String) throws(APIError) -> Element {
        guard let sink = Element(factory: "intervideosink") else {
            throw APIError(.pipelineError, "the intervideosink element is missing (install gstreamer1.0-plugins-bad)")
        }
        sink.set("channel", channel)
        return sink
    }

    /// Starts the pipeline (the one built ahead, if any); nothing when it runs already.
    func start() throws(APIError) {
        guard parts == nil else { return }
        let built: Parts
        if let prepared {
            built = prepared
            self.prepared = nil
        } else {
            built = try build()
        }
        parts = built
        applyFrameSize()
        applyLayout()
        applySubtitles()
        applyWatermark()
        watch = BusWatch(pipeline: built.pipeline) { [weak self] event in self?.handle(event) }
        if built.pipeline.setState(.playing) == .failure {
            stop()
            throw APIError(.pipelineError, "the output pipeline did not start (video sink \(sinkFactory))")
        }
        log.info("output started", ["sink": sinkFactory])
    }

    /// A pipeline built for the next start, in NULL (see `prepareNext`).
    private var prepared: Parts?

    /// Building the pipeline (parsing the template, creating the overlays and the sink) took
    /// 4.6 ms of the 27 ms from `open` to playing (release build, fake sinks) whenever the
    /// last source had stopped the stage. After a stop the next one is built while nothing
    /// happens; in NULL it holds no device and no buffers.
    private func prepareNext() {
        runAfter(milliseconds: 100) { [weak self] in
            guard let self, self.parts == nil, self.prepared == nil else { return }
            self.prepared = try? self.build()
        }
    }

    private func build() throws(APIError) -> Parts {
        let pipeline: Element
        do {
            pipeline = try PipelineTemplate.parse(try TemplateLibrary.text(named: "output"))
        } catch {
            throw APIError(.pipelineError, "cannot build the output pipeline: \(error)")
        }
        guard let mainIn = pipeline.child(named: "main-in"), let mainRate = pipeline.child(named: "main-rate"),
              let composeFrom = pipeline.child(named: "main-deinterlace")?.staticPad("src"),
              let subtitles = pipeline.child(named: "subtitles"), let watermarkText = pipeline.child(named: "watermark-text"),
              let watermarkImage = pipeline.child(named: "watermark-image"), let out = pipeline.child(named: "out"),
              let composeInto = subtitles.staticPad("video_sink") else {
            throw APIError(.pipelineError, "the output template lacks a named element the code needs")
        }
        guard let sink = SinkSelection.makeSink(sinkFactory) else {
            throw APIError(.pipelineError, "cannot create the video sink \(sinkFactory)")
        }
        if sink.hasProperty("allocation-meta-flags") {
            // fakevideosink would otherwise take overlays as metadata instead of having them
            // drawn, and its last frame (the snapshot) would lack subtitles and watermark.
            sink.set("allocation-meta-flags", uint: 0)
        }
        pipeline.add(sink)
        guard Element.link([out, sink]) else { throw APIError(.pipelineError, "cannot link the video sink \(sinkFactory)") }

        mainIn.set("channel", mainChannel)
        mainIn.set("timeout", uint64: Self.inputTimeout)
        for overlay in [subtitles, watermarkText] {
            overlay.set("auto-resize", false)
            overlay.set("wait-text", false)
        }
        subtitles.set("halignment", nick: "center")
        subtitles.set("line-alignment", nick: "center")
        subtitles.set("wrap-mode", nick: "word")

        return Parts(pipeline: pipeline, mainRate: mainRate, composeFrom: composeFrom, composeInto: composeInto,
                     subtitles: subtitles, watermarkText: watermarkText, watermarkImage: watermarkImage, sink: sink)
    }

    /// intervideosrc paints black once no frame arrived for `timeout`: a paused source sends
    /// none, and must stay on screen. Hiding is done with the compositor pads' alpha instead.
    static let inputTimeout: UInt64 = 365 * 24 * 3600 * 1_000_000_000

    func stop() {
        guard let parts else { return }
        watch?.stop()
        watch = nil
        pendingSplice?.cancel()
        parts.pipeline.setState(.null)
        self.parts = nil
        composition = nil
        pendingSplice = nil
        spliceFinished = nil
        spliceTimeout?.cancel()
        spliceTimeout = nil
        // Retries pending in this pipeline must not hold back the next one's changes: with the
        // key still set, the next start's apply would ride on a retry that then finds its
        // overlay gone and drops the change (the player's watermark missing after a stop and
        // an open 12 ms later, about half the runs of ProtectedItemTests).
        pendingOverlayChanges.removeAll()
        log.info("output stopped")
        prepareNext()
    }

    /// The frame on screen now, nil when nothing was drawn yet.
    func currentFrame() -> Sample? { parts?.sink.lastSample }

    /// The size the sink receives.
    func currentFrameSize() -> VideoSize? { parts?.sink.staticPad("sink")?.videoSize }

    private func handle(_ event: BusEvent) {
        switch event {
        case .error(let error):
            log.error("output pipeline error", ["message": error.message, "source": error.source ?? "", "debug": error.debug ?? ""])
        case .warning(let warning):
            log.warning("output pipeline warning", ["message": warning.message, "source": warning.source ?? "", "debug": warning.debug ?? ""])
        case .latency:
            // A section spliced in or out changes what the sink must wait for.
            parts?.pipeline.recalculateLatency()
        case .spliced:
            spliceReported()
        default:
            break
        }
    }

    // MARK: Applying

    private var frameWidth: Int { frameSize?.width ?? 1280 }
    private var frameHeight: Int { frameSize?.height ?? 720 }

    private func applyFrameSize() {
        guard let parts, let size = frameSize else { return }
        // Caps text is built from integers here, never from client input. The stage runs at
        // the main video's rate, so its frames are neither repeated nor dropped.
        if let rate = size.frameRate {
            parts.mainRate.set("caps", capsString: "video/x-raw,framerate=\(rate.numerator)/\(rate.denominator)")
        }
        applyLayout()
        applySubtitles()
        applyWatermark()
    }

    private func applyLayout() {
        guard parts != nil else { return }
        if let composition { arrange(composition) }
        spliceCompositionIfNeeded()
    }

    /// The composed frame's size and where each video goes in it.
    func arrange(_ composition: Composition) {
        if let size = frameSize {
            composition.frame.set("caps", capsString: "video/x-raw,width=\(size.width),height=\(size.height),pixel-aspect-ratio=1/1")
        }
        let full = Rect.fullFrame
        let insetVisible = layout.inset != nil
        let swapped = layout.swapped && insetVisible
        place(composition.mainPad, in: swapped ? layout.inset ?? full : full, zorder: swapped ? 1 : 0, visible: layout.mainVisible)
        place(composition.pipPad, in: swapped ? full : layout.inset ?? full, zorder: swapped ? 0 : 1, visible: insetVisible)
    }

    private func place(_ pad: Pad, in rect: Rect, zorder: UInt32, visible: Bool) {
        let (w, h) = (Double(frameWidth), Double(frameHeight))
        pad.set("xpos", Int32((rect.x * w).rounded()))
        pad.set("ypos", Int32((rect.y * h).rounded()))
        pad.set("width", Int32(max(1, (rect.width * w).rounded())))
        pad.set("height", Int32(max(1, (rect.height * h).rounded())))
        pad.set("zorder", uint: zorder)
        // An alpha of 0 also makes compositor skip the pad's blending.
        pad.set("alpha", visible ? 1.0 : 0.0)
    }

    /// textoverlay draws with Pango on the streaming thread, and a property change landing
    /// in the middle of a draw crashed Pango (a watermark resized in a loop: SIGSEGV in
    /// pango_layout_get_pixel_extents within ~20 changes). Changes are made between two
    /// frames, with the overlay's video pad stream lock (`betweenBuffers`); while the thread
    /// holds it, the change is tried again every 2 ms (a later change of the same overlay
    /// rides on the pending retry, which applies the state as it is then). After 250 tries
    /// (a stage that stopped streaming) it is made anyway.
    private func betweenFrames(of overlay: Element, _ key: String, attempt: Int = 0, _ apply: @escaping @GLibActor () -> Void) {
        if attempt == 0 && pendingOverlayChanges.contains(key) { return }
        if attempt >= 250 || overlay.betweenBuffers(onPad: "video_sink", apply) {
            if attempt >= 250 { apply() }
            pendingOverlayChanges.remove(key)
            return
        }
        pendingOverlayChanges.insert(key)
        runAfter(milliseconds: 2) { [weak self, weak overlay] in
            // An overlay of a stopped pipeline: `stop()` forgot its pending changes already,
            // and the key may by now be a retry of the next pipeline's.
            guard let self, let overlay, self.parts?.contains(overlay) == true else { return }
            self.betweenFrames(of: overlay, key, attempt: attempt + 1, apply)
        }
    }

    private func applySubtitles() {
        guard let parts else { return }
        betweenFrames(of: parts.subtitles, "subtitles") { [weak self] in self?.setSubtitleProperties() }
    }

    private func setSubtitleProperties() {
        guard let parts else { return }
        let overlay = parts.subtitles
        overlay.set("text", subtitles.markup)
        overlay.set("font-desc", "Sans \(pixels(subtitles.style.fontSize))px")
        overlay.set("color", uint: subtitles.style.color.argb)
        overlay.set("valignment", nick: subtitles.style.align.rawValue)
        // Keep the text off the very edge: textoverlay's ypad is in pixels.
        overlay.set("ypad", Int32(Double(frameHeight) * 0.04))
    }

    private func applyWatermark() {
        guard let parts else { return }
        betweenFrames(of: parts.watermarkText, "watermark") { [weak self] in self?.setWatermarkProperties() }
    }

    private func setWatermarkProperties() {
        guard let parts else { return }
        let text = parts.watermarkText, image = parts.watermarkImage
        guard let watermark else {
            text.set("silent", true)
            image.set("alpha", 0.0)
            return
        }
        switch watermark.content {
        case .text(let markup):
            image.set("alpha", 0.0)
            text.set("silent", false)
            text.set("text", markup)
            text.set("font-desc", "Sans Bold \(pixels(watermark.size))px")
            text.set("color", uint: watermark.color.argb)
            text.set("xpad", Int32(Double(frameHeight) * 0.03))
            text.set("ypad", Int32(Double(frameHeight) * 0.03))
            if let spot = watermark.spot {
                text.set("halignment", nick: "position")
                text.set("valignment", nick: "position")
                text.set("xpos", spot.x)
                text.set("ypos", spot.y)
            } else {
                text.set("halignment", nick: watermark.horizontal)
                text.set("valignment", nick: watermark.vertical)
            }
        case .image(let path, let aspect):
            text.set("silent", true)
            let height = pixels(watermark.size)
            let width = max(1, Int((Double(height) * aspect).rounded()))
            image.set("location", path)
            image.set("overlay-height", Int32(height))
            image.set("overlay-width", Int32(width))
            image.set("alpha", watermark.opacity)
            let margin = Int(Double(frameHeight) * 0.03)
            let spot = watermark.spot ?? watermark.anchoredSpot
            // Absolute pixels: the fraction of the free space, so 0 and 1 touch the edges (less a margin).
            let freeX = max(0, frameWidth - width - 2 * margin), freeY = max(0, frameHeight - height - 2 * margin)
            image.set("positioning-mode", nick: "pixels-absolute")
            image.set("offset-x", Int32(margin + Int((spot.x * Double(freeX)).rounded())))
            image.set("offset-y", Int32(margin + Int((spot.y * Double(freeY)).rounded())))
        }
    }

    /// A fraction of the frame height in whole pixels (at least 1).
    private func pixels(_ fraction: Double) -> Int { max(1, Int((fraction * Double(frameHeight)).rounded())) }
}

/// The subtitle cue on screen and how it is drawn.
struct SubtitleOverlay: Equatable {
    /// Pango markup of the cue, "" when none.
    var markup = ""
    var style = SubtitleStyle()
}

/// A watermark ready to draw: the request resolved into element values.
struct WatermarkOverlay: Equatable {
    enum Content: Equatable {
        /// Pango markup (the text, escaped).
        case text(String)
        /// A local image file and its width / height.
        case image(path: String, aspect: Double)
    }
    var content: Content
    var size: Double
    var color: RGBAColor
    var opacity: Double
    var position: WatermarkPosition
    /// For `random`: where it is now, fractions of the free space (0...1 each).
    var spot: (x: Double, y: Double)?

    static func == (a: Self, b: Self) -> Bool {
        a.content == b.content && a.size == b.size && a.color == b.color && a.opacity == b.opacity && a.position == b.position
            && a.spot?.x == b.spot?.x && a.spot?.y == b.spot?.y
    }

    var horizontal: String {
        switch position {
        case .topLeft, .left, .bottomLeft: return "left"
        case .topRight, .right, .bottomRight: return "right"
        default: return "center"
        }
    }

    var vertical: String {
        switch position {
        case .topLeft, .top, .topRight: return "top"
        case .bottomLeft, .bottom, .bottomRight: return "bottom"
        default: return "center"
        }
    }

    /// A fixed position as fractions of the free space.
    var anchoredSpot: (x: Double, y: Double) {
        let x: Double = horizontal == "left" ? 0 : horizontal == "right" ? 1 : 0.5
        let y: Double = vertical == "top" ? 0 : vertical == "bottom" ? 1 : 0.5
        return (x, y)
    }
}
