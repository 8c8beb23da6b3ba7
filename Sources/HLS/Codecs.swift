/// Sorting the entries of a CODECS attribute (RFC 6381 strings) into audio and video.
public enum Codecs {
    static let audioPrefixes = ["mp4a", "ac-3", "ec-3", "ac-4", "opus", "Opus", "flac", "fLaC", "mp3", ".mp3",
                                "alac", "dtsc", "dtse", "dtsh", "dtsl", "dtsx", "mhm1", "mha1"]
    static let videoPrefixes = ["avc1", "avc3", "hvc1", "hev1", "dvh1", "dvhe", "dva1", "dvav", "av01", "dav1",
                                "vp09", "vp08", "vp8", "vp9", "mp4v", "theora"]

    /// The comma-separated entries, trimmed, empty ones dropped.
    public static func split(_ codecs: String) -> [String] {
        codecs.split(separator: ",").map { String(PlaylistLines.trim($0)) }.filter { !$0.isEmpty }
    }

    public static func isAudio(_ codec: String) -> Bool { audioPrefixes.contains { codec.hasPrefix($0) } }
    public static func isVideo(_ codec: String) -> Bool { videoPrefixes.contains { codec.hasPrefix($0) } }
}
