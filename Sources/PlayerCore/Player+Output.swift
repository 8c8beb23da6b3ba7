import ControlAPI
import FoundationEssentials
import GLibRuntime
import GStreamerKit
import Subtitles

/// The output stage's commands: picture-in-picture, the watermark, and the frame on screen.
extension Player {
    // MARK: Picture-in-picture

    func startPip(_ request: PipStartRequest) throws(APIError) {
        let resolved = try configuration.resolver.resolve(OpenRequest(uri: request.uri))
        try output.start()
        closePip(publishing: false)
        let inset = try PictureInPicture(source: resolved, displayURI: resolved.info.uri, rect: request.rect ?? .defaultInset,
                                         muted: request.muted ?? true,
                                         videoSink: try output.makeSourceSink(channel: output.pipChannel),
                                         audioSink: configuration.sinks.audio, worker: worker)
        // The inset calls this until it is closed (`closePip`), and only then.
        inset.onChange = { [weak self] in self?.pipChanged() }
        pip = inset
        log.info("pip open", ["uri": resolved.info.uri])
        inset.start()
        pipChanged()
    }

    func updatePip(_ request: PipUpdateRequest) throws(APIError) {
        let inset = try requirePip()
        if let rect = request.rect { inset.rect = rect }
        if let muted = request.muted { inset.muted = muted }
        pipChanged()
    }

    func swapPip() throws(APIError) {
        let inset = try requirePip()
        inset.swapped.toggle()
        pipChanged()
    }

    func stopPip() throws(APIError) {
        try requirePip()
        closePip(publishing: true)
    }

    @discardableResult
    private func requirePip() throws(APIError) -> PictureInPicture {
        guard let pip else { throw APIError(.noPip, "no picture-in-picture is running: POST /v1/pip first") }
        return pip
    }

    func closePip(publishing: Bool) {
        guard let inset = pip else { return }
        inset.close()
        pip = nil
        log.info("pip closed", ["uri": inset.uri])
        updateOutput()
        if publishing { publish(.pip(nil)) }
    }

    /// After any change of the inset: redraw and tell the clients.
    func pipChanged() {
        updateOutput()
        publish(.pip(pip?.info))
    }

    // MARK: Watermark

    /// `PUT /v1/overlays/watermark`: the player's own watermark, drawn whenever the loaded
    /// item has none of its own.
    func setWatermark(_ request: WatermarkRequest) throws(APIError) {
        _ = try watermarkOverlay(for: request)  // a bad image refuses the command
        watermarkRequest = request
        showWatermark()
    }

    func removeWatermark() {
        watermarkRequest = nil
        showWatermark()
    }

    /// The watermark to draw: the loaded item's own (`open {"watermark"}`), else the
    /// player's.
    var wantedWatermark: WatermarkRequest? { session?.itemWatermark ?? watermarkRequest }

    /// Draws `wantedWatermark` when it is not what is drawn, and tells the clients. Called
    /// when either changes: a command, an open, a close, a gapless switch.
    func showWatermark() {
        let wanted = wantedWatermark
        guard wanted != drawnWatermark else { return }
        watermarkTimer?.cancel()
        watermarkTimer = nil
        drawnWatermark = wanted
        guard let wanted, let overlay = try? watermarkOverlay(for: wanted) else {
            // Checked when it was given; an image removed since draws nothing.
            output.watermark = nil
            publish(.watermark(nil))
            return
        }
        output.watermark = overlay
        if wanted.position == .random {
            watermarkTimer = LoopTimer(milliseconds: UInt32(wanted.interval * 1000)) { [weak self] in
                self?.output.watermark?.spot = Self.randomSpot()
            }
        }
        publish(.watermark(wanted))
    }

    /// The request resolved into what the output stage draws; throws for an image that is
    /// not a readable PNG under the media roots.
    func watermarkOverlay(for request: WatermarkRequest) throws(APIError) -> WatermarkOverlay {
        let content: WatermarkOverlay.Content
        if let text = request.text {
            content = .text(BasicMarkup.escape(text))
        } else {
            let file = try configuration.resolver.localFile(request.image ?? "")
            guard let size = PNGHeader.size(of: file) else {
                throw APIError(.invalidArgument, "the watermark image must be a PNG file")
            }
            // gdkpixbufoverlay decodes the whole image: a 30000x30000 PNG of a few KiB would
            // take gigabytes. A watermark needs nothing near 8192 pixels.
            guard size.width <= 8192, size.height <= 8192 else {
                throw APIError(.invalidArgument, "the watermark image is \(size.width)x\(size.height); at most 8192x8192")
            }
            content = .image(path: file.path, aspect: Double(size.width) / Double(size.height))
        }
        return WatermarkOverlay(content: content, size: request.size, color: request.color, opacity: request.opacity,
                                position: request.position, spot: request.position == .random ? Self.randomSpot() : nil)
    }

    /// An item's watermark as it is drawn for this viewing: `{userId}` and `{contentId}` in
    /// its text replaced (by nothing when the open gave none). Replaced before the markup is
    /// escaped, so an id cannot add markup.
    static func itemWatermark(_ request: WatermarkRequest, contentId: String?, userId: String?) -> WatermarkRequest {
        guard let text = request.text else { return request }
        var item = request
        item.text = text.replacing("{userId}", with: userId ?? "").replacing("{contentId}", with: contentId ?? "")
        return item
    }

    /// Anywhere in the frame (fractions of the free space), a different place each time.
    static func randomSpot() -> (x: Double, y: Double) {
        (Double.random(in: 0...1), Double.random(in: 0...1))
    }

    // MARK: The frame on screen

    /// Runs the output stage while something is loaded and tells it what to show.
    func updateOutput() {
        guard session != nil || pip != nil else {
            output.stop()
            return
        }
        let insetShown = pip?.showsFrames == true
        output.layout = OutputStage.Layout(mainVisible: session != nil, inset: insetShown ? pip?.rect : nil,
                                           swapped: pip?.swapped ?? false)
        if let size = session?.videoSize ?? (insetShown ? pip?.videoSize : nil) { output.frameSize = size }
    }

    /// Milliseconds until the composed frame shows the main source's first frame (0: it
    /// does, or there is nothing to wait for). A snapshot asked for while a source opens, or
    /// just after, waits rather than answer `no_video` or the stage's empty background.
    public var frameSettleMilliseconds: UInt32 {
        guard let session else { return 0 }
        if machine.state == .opening { return 50 }  // not known yet: look again soon
        guard let settles = session.frameSettlesAt else { return 0 }
        let left = ContinuousClock.now.duration(to: settles).components
        let milliseconds = Double(left.seconds) * 1000 + Double(left.attoseconds) / 1e15
        return milliseconds > 0 ? UInt32(milliseconds.rounded(.up)) : 0
    }

    /// The composed frame now on screen. `no_video` (503) when nothing with video is
    /// playing: idle, an audio-only source, or before the first frame.
    public func currentFrame() throws(APIError) -> Sample {
        if session?.source.info.protected == true {
            // What the panel shows is not protected (HDMI carries it); copies through the API are.
            throw APIError(.protectedContent, "protected content is playing: no snapshots until it ends")
        }
        let mainHasVideo = session?.hasShownVideo == true
        let insetHasVideo = pip?.showsFrames == true && pip?.videoSize != nil
        guard output.isRunning, mainHasVideo || insetHasVideo, let frame = output.currentFrame() else {
            throw APIError(.noVideo, "no video is on screen")
        }
        return frame
    }
}

/// Reads a PNG's size from its header, without decoding it.
enum PNGHeader {
    static func size(of file: URL) -> (width: Int, height: Int)? {
        guard let bytes = try? FilePrefix.read(file, upTo: 24), bytes.count == 24 else { return nil }
        let header = [UInt8](bytes)
        // The 8-byte signature, then the IHDR chunk: length, "IHDR", width, height (big-endian).
        guard header[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], header[12..<16] == [0x49, 0x48, 0x44, 0x52] else { return nil }
        func int(at offset: Int) -> Int { header[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        let (width, height) = (int(at: 16), int(at: 20))
        return width > 0 && height > 0 ? (width, height) : nil
    }
}
