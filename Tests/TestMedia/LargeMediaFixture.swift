import Foundation

extension MediaFixtures {
    /// The length of `largeMP4()`, in seconds.
    public static let largeMP4Seconds = 24

    /// An MP4 larger than 64 MiB (the header proxy's old cap on a body read whole) that is
    /// cheap to make and to play: 24 s of 320x240 noise (videotestsrc pattern=snow) at x264's
    /// quantizer 1, which noise does not compress: about 3.7 MB a second, ~88 MB in all,
    /// made in about 2 s. Video only, a keyframe every second, the index first (faststart), as
    /// files made for streaming have it: with the index at the end, qtdemux reading over
    /// HTTP (push mode) takes in the whole file before it plays, proxy or not.
    public static func largeMP4() throws -> URL {
        let fixture = "largeMP4()"
        return try FixtureStore.cached("large-\(largeMP4Seconds)s.mp4", fixture: fixture) { output in
            try Pipelines.launch([
                "videotestsrc", "num-buffers=\(largeMP4Seconds * Pipelines.frameRate)", "pattern=snow",
                "!", "video/x-raw,format=I420,width=320,height=240,framerate=\(Pipelines.frameRate)/1",
                "!", "x264enc", "pass=quant", "quantizer=1", "speed-preset=ultrafast",
                "key-int-max=\(Pipelines.frameRate)", "threads=1",
                "!", "h264parse",
                "!", "mp4mux", "faststart=true", "faststart-file=\(output.path).mdat",
                "!", "filesink", "location=\(output.path)",
            ], fixture: fixture)
        }
    }
}
