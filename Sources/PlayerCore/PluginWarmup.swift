import GStreamerKit

/// Loads the plugins a typical first open needs (demuxers, parsers, decoders), so the first
/// open is not slowed by loading shared objects: about 100 ms cold, paid here at start-up
/// instead. Elements are created and dropped; nothing runs.
public enum PluginWarmup {
    static let factories = [
        "playbin3", "uridecodebin3", "decodebin3", "parsebin", "urisourcebin", "typefind", "filesrc",
        "qtdemux", "matroskademux", "h264parse", "aacparse", "avdec_h264", "avdec_aac",
        "scaletempo", "videoconvert", "audioconvert", "audioresample", "fakevideosink", "fakeaudiosink",
    ]

    public static func run() {
        GStreamer.initialize()
        for name in factories { _ = Element(factory: name) }
    }
}
