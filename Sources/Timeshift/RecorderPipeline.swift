import FoundationEssentials
import GLibRuntime
import GStreamerKit

/// What the recorder records.
public enum RecordingSource: Sendable, Equatable {
    /// The built-in demo: a test pattern with a clock, and a tone, encoded here.
    case demo
    /// A live URI GStreamer's `urisourcebin` opens: `udp://`, `rtsp://`, `http(s)://` HLS.
    case uri(String)
}

/// The recorder's pipeline: the source, remuxed (or, for raw sources, encoded) into
/// MPEG-TS segments of about `segmentSeconds` by `splitmuxsink` in the ring's folder.
///
///     urisourcebin ─▶ parsebin ─▶ [queue ─▶ (encode if raw)] ─▶ splitmuxsink (mpegtsmux, seg%08d.ts)
///
/// Built in code rather than from a template in `pipelines/`: the branches depend on the
/// streams the source turns out to carry (parsebin adds a pad per stream). The first video
/// stream and every audio stream are kept (H.264/H.265/MPEG-2 video and AAC/MP3/AC-3 audio
/// pass through as they are; raw streams are encoded to H.264 and AAC); subtitles and data
/// streams are dropped. The URI is a property of `urisourcebin`, never pipeline text.
final class RecorderPipeline: @unchecked Sendable {
    static let segmenterName = "segmenter"
    /// Segment length aimed at; splitmuxsink cuts at the first keyframe after it (and asks
    /// encoders for one on time).
    static let segmentSeconds = 1.0

    let pipeline: Element
    let segmenter: Element
    // Touched from streaming threads (pad-added); ThreadLock rather than Mutex so
    // ThreadSanitizer sees the locking.
    private let lock = ThreadLock()
    private var hooks: [PadAddedHook] = []
    private var videoLinked = false

    private init(folder: URL, startIndex: Int) throws(RecorderError) {
        pipeline = Element.pipeline(name: "recorder")
        guard let segmenter = Element(factory: "splitmuxsink", name: Self.segmenterName) else {
            throw RecorderError.missingElement("splitmuxsink (gstreamer1.0-plugins-good)")
        }
        self.segmenter = segmenter
        segmenter.set("location", folder.appendingPathComponent("seg%08d.ts").path)
        segmenter.set("muxer-factory", "mpegtsmux")
        segmenter.set("max-size-time", int64: Int(Self.segmentSeconds * 1e9))
        segmenter.set("send-keyframe-requests", true)
        segmenter.set("start-index", Int32(clamping: startIndex))
        pipeline.add(segmenter)
    }

    static func make(_ source: RecordingSource, folder: URL, startIndex: Int) throws(RecorderError) -> RecorderPipeline {
        let recorder = try RecorderPipeline(folder: folder, startIndex: startIndex)
        switch source {
        case .demo: try recorder.buildDemo()
        case .uri(let uri): try recorder.buildSource(uri: uri)
        }
        return recorder
    }

    /// Call after the pipeline reached NULL.
    func disconnect() {
        for hook in lock.withLock({ hooks }) { hook.disconnect() }
    }

    // MARK: Demo

    private func buildDemo() throws(RecorderError) {
        let video = try make("videotestsrc"), caps = try make("capsfilter"), clock = try make("clockoverlay")
        video.set("is-live", true)
        video.set("pattern", nick: "smpte")
        caps.set("caps", capsString: "video/x-raw,width=640,height=360,framerate=30/1")
        clock.set("text", "Marquee demo")
        clock.set("halignment", nick: "center")
        clock.set("valignment", nick: "center")
        clock.set("font-desc", "Sans 28")
        let audio = try make("audiotestsrc")
        audio.set("is-live", true)
        audio.set("wave", nick: "sine")
        audio.set("volume", 0.1)
        let videoChain = [video, caps, clock] + (try videoEncoder())
        let audioChain = [audio] + (try audioEncoder())
        for element in videoChain + audioChain { pipeline.add(element) }
        guard Element.link(videoChain), Element.link(audioChain),
              let videoPad = segmenter.requestPad("video"), let audioPad = segmenter.requestPad("audio_%u"),
              let videoOut = videoChain.last?.staticPad("src"), let audioOut = audioChain.last?.staticPad("src"),
              videoOut.link(to: videoPad), audioOut.link(to: audioPad) else {
            throw RecorderError.linkFailed("demo")
        }
    }

    // MARK: Any source

    private func buildSource(uri: String) throws(RecorderError) {
        let source = try make("urisourcebin")
        source.set("uri", uri)
        pipeline.add(source)
        // urisourcebin adds a pad per stream it finds (one for a UDP transport stream,
        // one per rendition for HLS, one per RTP stream for RTSP); each gets a parsebin.
        let hook = PadAddedHook(element: source) { [weak self] pad in self?.attachParser(to: pad) }
        lock.withLock { hooks.append(hook) }
    }

    private func attachParser(to pad: Pad) {
        guard let parser = Element(factory: "parsebin") else { return }
        let hook = PadAddedHook(element: parser) { [weak self] pad in self?.attachBranch(to: pad) }
        lock.withLock { hooks.append(hook) }
        pipeline.add(parser)
        parser.syncStateWithParent()
        if let sink = parser.staticPad("sink") { pad.link(to: sink) }
    }

    /// One parsed stream: kept (remuxed, or encoded when raw) or dropped into a fakesink.
    private func attachBranch(to pad: Pad) {
        let type = pad.mediaType ?? ""
        var chain: [Element] = []
        var target: Pad?
        do {
            if type.hasPrefix("video/"), claimVideo() {
                chain = [try make("queue")] + (try videoConversion(for: type))
                target = segmenter.requestPad("video")
            } else if type.hasPrefix("audio/") {
                chain = [try make("queue")] + (type == "audio/x-raw" ? try audioEncoder() : [])
                target = segmenter.requestPad("audio_%u")
            }
        } catch {
            chain = []
        }
        if target == nil || chain.isEmpty {
            // Not recorded (subtitles, data, a second video): consumed so the demuxer flows.
            guard let sink = Element(factory: "fakesink") else { return }
            sink.set("async", false)
            sink.set("sync", false)
            chain = [sink]
            target = nil
        }
        for element in chain { pipeline.add(element) }
        Element.link(chain)
        if let target, let out = chain.last?.staticPad("src") { out.link(to: target) }
        for element in chain.reversed() { element.syncStateWithParent() }
        if let sink = chain.first?.staticPad("sink") { pad.link(to: sink) }
    }

    /// True for the first video stream only (splitmuxsink records one).
    private func claimVideo() -> Bool {
        lock.withLock {
            defer { videoLinked = true }
            return !videoLinked
        }
    }

    // MARK: Encoders for raw sources

    /// What a video stream needs before mpegtsmux: raw video is encoded; H.264 and H.265
    /// are re-parsed, since parsebin may hand them over in "avc"/"hvc1" form and mpegtsmux
    /// takes only Annex B byte-stream.
    private func videoConversion(for type: String) throws(RecorderError) -> [Element] {
        switch type {
        case "video/x-raw": return try videoEncoder()
        case "video/x-h264": return [try make("h264parse")]
        case "video/x-h265": return [try make("h265parse")]
        default: return []
        }
    }

    /// H.264 for low latency: no B-frames, a keyframe at least every 2 s (splitmuxsink asks
    /// for one each segment).
    private func videoEncoder() throws(RecorderError) -> [Element] {
        // 4:2:0, or x264enc keeps a 4:4:4 input as High 4:4:4, which set-top decoders refuse.
        let convert = try make("videoconvert"), format = try make("capsfilter")
        format.set("caps", capsString: "video/x-raw,format=I420")
        let encoder = try make("x264enc", package: "gstreamer1.0-plugins-ugly")
        encoder.set("tune", nick: "zerolatency")
        encoder.set("speed-preset", nick: "veryfast")
        encoder.set("key-int-max", uint: 60)
        encoder.set("bitrate", uint: 1500)
        return [convert, format, encoder, try make("h264parse")]
    }

    private func audioEncoder() throws(RecorderError) -> [Element] {
        [try make("audioconvert"), try make("audioresample"), try make("avenc_aac", package: "gstreamer1.0-libav"), try make("aacparse")]
    }

    private func make(_ factory: String, package: String = "gstreamer1.0-plugins-base/good/bad") throws(RecorderError) -> Element {
        guard let element = Element(factory: factory) else { throw RecorderError.missingElement("\(factory) (\(package))") }
        return element
    }
}

public enum RecorderError: Error, CustomStringConvertible, Sendable {
    case missingElement(String)
    case linkFailed(String)
    case cannotStart(String)

    public var description: String {
        switch self {
        case .missingElement(let what): return "the element \(what) is missing"
        case .linkFailed(let what): return "cannot link the \(what) recorder"
        case .cannotStart(let why): return "the recorder cannot start: \(why)"
        }
    }
}
