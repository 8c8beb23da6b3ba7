import ControlAPI
import FoundationEssentials
import GStreamerKit

/// Chooses the video and audio sinks once at start-up. An operator's choice wins; otherwise
/// the best sink that actually opens on this box, falling back to fake sinks synced to the
/// clock so a headless machine still plays in real time. `autovideosink` is never used: it
/// crashes on a machine without a display.
public struct SinkSelection: Sendable, Equatable {
    public var video: String
    public var audio: String

    public enum SelectionError: Error, CustomStringConvertible {
        case missingElement(String)
        public var description: String {
            if case .missingElement(let name) = self { return "no GStreamer element named '\(name)' is installed" }
            return ""
        }
    }

    /// Checks an operator's names exist; probes the box for defaults. Blocks briefly (it
    /// opens the device to be sure), so call it once before serving.
    public static func choose(video: String?, audio: String?) throws -> SinkSelection {
        GStreamer.initialize()
        for name in [video, audio].compactMap({ $0 }) where !GStreamer.hasElement(name) {
            throw SelectionError.missingElement(name)
        }
        return SinkSelection(
            video: video ?? firstWorking(hasDevice("/dev/dri", prefix: "card") ? ["kmssink"] : [], fallback: "fakevideosink"),
            audio: audio ?? firstWorking(hasDevice("/dev/snd", prefix: "pcm") ? ["alsasink"] : [], fallback: "fakeaudiosink"))
    }

    private static func hasDevice(_ folder: String, prefix: String) -> Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).contains { $0.hasPrefix(prefix) }
    }

    /// The first candidate that reaches READY (the state where sinks open their device).
    private static func firstWorking(_ candidates: [String], fallback: String) -> String {
        for name in candidates {
            guard let sink = Element(factory: name) else { continue }
            let works = sink.setState(.ready) != .failure
            sink.setState(.null)
            if works { return name }
        }
        return fallback
    }

    /// A new sink element for one pipeline (elements cannot be shared between pipelines).
    static func makeSink(_ name: String) -> Element? {
        guard let sink = Element(factory: name) else { return nil }
        // fakesink defaults to sync=false, which plays as fast as the CPU allows and made
        // PAUSED never complete as an audio sink: keep it on the clock.
        if name == "fakesink" { sink.set("sync", true) }
        return sink
    }

    /// playbin3's `flags` for a source feeding the output stage. `native-video`: the decoder's
    /// frames go to the intervideosink as they are; the output stage converts once, where it
    /// composes (playsink would add a videoconvert and videoscale of its own). No
    /// `soft-colorbalance` (nothing here sets colour balance) and no `deinterlace` (the output
    /// stage deinterlaces, in passthrough for progressive frames): measured on a 720p H.264
    /// file with fake sinks, those two made playsink's set-up cost 10 of 30 ms to first frame.
    /// `soft-volume`: volume and mute. `text`: embedded subtitles go to the text tap.
    static func playbinFlags(text: Bool) -> String {
        "video+audio+" + (text ? "text+" : "") + "soft-volume+native-video"
    }

    /// A playbin3 with its video sink (from the output stage) and a new audio sink of the
    /// configured factory: how every source's pipeline starts.
    static func makePlaybin(name: String, videoSink: Element, audioSink: String) throws(APIError) -> (playbin: Element, audioSink: Element) {
        guard let playbin = Element(factory: "playbin3", name: name) else {
            throw APIError(.pipelineError, "the playbin3 element is missing (install gstreamer1.0-plugins-base)")
        }
        guard let audio = makeSink(audioSink) else {
            throw APIError(.pipelineError, "cannot create the audio sink \(audioSink)")
        }
        playbin.set("video-sink", videoSink)
        // Behind a volume element of its own: the one playsink would make leaks (see
        // Element.withVolume). Positions are still asked of the sink itself.
        playbin.set("audio-sink", Element.withVolume(audio, name: "\(name)-audio") ?? audio)
        return (playbin, audio)
    }
}
