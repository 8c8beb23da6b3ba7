import Foundation

/// A flat colour for `OutputFixtures.solidClip` and `OutputFixtures.solidPNG`
/// (the videotestsrc pattern of the same name).
public enum SolidColor: String, Sendable, CaseIterable {
    case black, red, green, blue, white
}

/// The subtitle formats Marquee loads from external files.
public enum SubtitleFileFormat: String, Sendable, CaseIterable {
    case srt, sami, webvtt

    /// The file name extension a fixture of this format gets.
    public var fileExtension: String {
        switch self {
        case .srt: return "srt"
        case .sami: return "smi"
        case .webvtt: return "vtt"
        }
    }
}

/// A cue as a `cue` event should report it: plain text (tags removed, entities decoded)
/// and times in seconds.
public struct ExpectedCue: Equatable, Sendable, CustomStringConvertible {
    public var text: String
    public var start: Double
    public var end: Double

    public init(text: String, start: Double, end: Double) {
        (self.text, self.start, self.end) = (text, start, end)
    }

    public var description: String { "\"\(text)\" \(start)-\(end)" }
}

/// A subtitle file written by `OutputFixtures` and the cues it holds.
public struct SubtitleFixture: Sendable {
    public let url: URL
    public let format: SubtitleFileFormat
    /// In time order; each `end` is at or before the next `start`.
    public let cues: [ExpectedCue]

    public var path: String { url.path }
}

/// Fixtures for the output stage (picture-in-picture, watermark, rendered subtitles), whose
/// tests read colours back from `GET /v1/snapshot.jpg`: flat-colour clips and images, so a
/// region's colour says what was drawn there, and subtitle files with known cues.
///
/// Generated at most once per process under `MediaFixtures.directory`, like `MediaFixtures`;
/// safe from concurrent tests.
public enum OutputFixtures {
    /// MP4 (mp4mux): one flat colour, H.264 constrained-baseline 640x360 at 30 fps with a
    /// keyframe every second, plus AAC-LC 48 kHz stereo (440 Hz sine). 30 s by default, so
    /// a test never reaches the end. Encodes in a few seconds (flat frames cost nothing).
    public static func solidClip(_ color: SolidColor, seconds: Int = 30) throws -> URL {
        let fixture = "OutputFixtures.solidClip(.\(color.rawValue), seconds: \(seconds))"
        guard (1...120).contains(seconds) else {
            throw MediaFixtureError(fixture: fixture, message: "seconds must be in 1...120", stderr: "")
        }
        return try FixtureStore.cached("solid-\(color.rawValue)-\(seconds)s.mp4", fixture: fixture) { output in
            let aac = try Pipelines.aacEncoder(fixture: fixture)
            let frameRate = Pipelines.frameRate
            var args = ["mp4mux", "name=mux", "!", "filesink", "location=\(output.path)"]
            args += [
                "videotestsrc", "num-buffers=\(seconds * frameRate)", "pattern=\(color.rawValue)",
                "!", "video/x-raw,format=I420,width=640,height=360,framerate=\(frameRate)/1",
                // threads=1: reproducible output (see Pipelines.video).
                "!", "x264enc", "key-int-max=\(frameRate)", "speed-preset=ultrafast", "bitrate=300", "threads=1",
                "!", "video/x-h264,profile=constrained-baseline",
                "!", "h264parse", "!", "mux.",
            ]
            args += Pipelines.audio(seconds: seconds, frequency: 440, encoder: aac) + ["!", "mux."]
            try Pipelines.launch(args, fixture: fixture)
        }
    }

    /// A PNG of one flat, opaque colour, `size` x `size` pixels (RGBA), for image watermarks.
    public static func solidPNG(_ color: SolidColor = .green, size: Int = 64) throws -> URL {
        let fixture = "OutputFixtures.solidPNG(.\(color.rawValue), size: \(size))"
        guard (1...4096).contains(size) else {
            throw MediaFixtureError(fixture: fixture, message: "size must be in 1...4096", stderr: "")
        }
        return try FixtureStore.cached("solid-\(color.rawValue)-\(size).png", fixture: fixture) { output in
            guard findExecutable("gst-launch-1.0") != nil else {
                throw MediaFixtureError(
                    fixture: fixture, message: "gst-launch-1.0 not on PATH; install gstreamer1.0-tools", stderr: "")
            }
            try Pipelines.launch([
                "videotestsrc", "num-buffers=1", "pattern=\(color.rawValue)",
                "!", "video/x-raw,width=\(size),height=\(size)",
                "!", "videoconvert", "!", "video/x-raw,format=RGBA",
                "!", "pngenc", "!", "filesink", "location=\(output.path)",
            ], fixture: fixture)
        }
    }

    /// One cue, "MWM WMW MWM" (wide letters: much ink), from 0 to 60 s: on screen for the whole
    /// of a `solidClip`, for tests that read the rendered text's colour and place.
    public static func longCue(_ format: SubtitleFileFormat = .srt) throws -> SubtitleFixture {
        try subtitles(format, name: "long", cues: [RawCue(start: 0, end: 60, text: "MWM WMW MWM", plain: "MWM WMW MWM")])
    }

    /// Five short cues for event tests, each with markup the plain text must lose:
    ///
    ///     1.0–2.0  <i>First</i> cue        -> "First cue"
    ///     2.5–3.5  Tom &amp; Jerry         -> "Tom & Jerry"
    ///     4.0–5.0  Math $$x^2$$            -> "Math $$x^2$$" (math is left for the dashboard)
    ///     5.0–6.0  <b>Back</b> to back     -> "Back to back" (starts as the one before ends)
    ///     6.5–7.5  Last cue                -> "Last cue"
    ///
    /// SAMI has no end times: each gap and the end are written as `&nbsp;` paragraphs.
    public static func shortCues(_ format: SubtitleFileFormat) throws -> SubtitleFixture {
        try subtitles(format, name: "short", cues: shortCueList)
    }

    /// A file with the format's extension whose content is no subtitle format at all (no
    /// timing line, no `WEBVTT` signature, no `<SYNC>`): loading it must fail.
    public static func unparseableSubtitle(_ format: SubtitleFileFormat = .srt) throws -> URL {
        try FixtureStore.cached("unparseable.\(format.fileExtension)", fixture: "OutputFixtures.unparseableSubtitle(.\(format))") { output in
            try Data("This is not a subtitle file.\nIt has no cues and no timing lines at all.\n".utf8).write(to: output)
        }
    }

    /// A path in the fixture directory where no file exists.
    public static func missingSubtitlePath(_ format: SubtitleFileFormat = .srt) -> String {
        MediaFixtures.directory.appendingPathComponent("does-not-exist-\(UUID().uuidString).\(format.fileExtension)").path
    }

    // MARK: Writing subtitle files

    private struct RawCue {
        var start: Double
        var end: Double
        /// As written in the file (markup and entities are the same in all three formats).
        var text: String
        var plain: String
    }

    private static let shortCueList = [
        RawCue(start: 1.0, end: 2.0, text: "<i>First</i> cue", plain: "First cue"),
        RawCue(start: 2.5, end: 3.5, text: "Tom &amp; Jerry", plain: "Tom & Jerry"),
        RawCue(start: 4.0, end: 5.0, text: "Math $$x^2$$", plain: "Math $$x^2$$"),
        RawCue(start: 5.0, end: 6.0, text: "<b>Back</b> to back", plain: "Back to back"),
        RawCue(start: 6.5, end: 7.5, text: "Last cue", plain: "Last cue"),
    ]

    private static func subtitles(_ format: SubtitleFileFormat, name: String, cues: [RawCue]) throws -> SubtitleFixture {
        let fixture = "OutputFixtures.\(name)(.\(format))"
        let url = try FixtureStore.cached("\(name)-cues.\(format.fileExtension)", fixture: fixture) { output in
            try Data(render(cues, as: format).utf8).write(to: output)
        }
        return SubtitleFixture(url: url, format: format,
                               cues: cues.map { ExpectedCue(text: $0.plain, start: $0.start, end: $0.end) })
    }

    private static func render(_ cues: [RawCue], as format: SubtitleFileFormat) -> String {
        func stamp(_ seconds: Double, separator: String) -> String {
            let ms = Int((seconds * 1000).rounded())
            return String(format: "%02d:%02d:%02d%@%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, separator, ms % 1000)
        }
        switch format {
        case .srt:
            return cues.enumerated().map { index, cue in
                "\(index + 1)\n\(stamp(cue.start, separator: ",")) --> \(stamp(cue.end, separator: ","))\n\(cue.text)\n"
            }.joined(separator: "\n")
        case .webvtt:
            return "WEBVTT\n\n" + cues.enumerated().map { index, cue in
                "cue-\(index + 1)\n\(stamp(cue.start, separator: ".")) --> \(stamp(cue.end, separator: "."))\n\(cue.text)\n"
            }.joined(separator: "\n")
        case .sami:
            var body = ""
            for (index, cue) in cues.enumerated() {
                body += "<SYNC Start=\(Int((cue.start * 1000).rounded()))><P Class=ENUSCC>\(cue.text)</P></SYNC>\n"
                // An end that no next cue starts at is a blank paragraph.
                if index + 1 == cues.count || cues[index + 1].start != cue.end {
                    body += "<SYNC Start=\(Int((cue.end * 1000).rounded()))><P Class=ENUSCC>&nbsp;</P></SYNC>\n"
                }
            }
            return """
                <SAMI>
                <HEAD>
                <TITLE>Marquee test subtitles</TITLE>
                <STYLE TYPE="text/css">
                <!--
                P { font-family: Arial; font-weight: normal; color: white; }
                .ENUSCC { Name: English; lang: en-US; }
                -->
                </STYLE>
                </HEAD>
                <BODY>
                \(body)</BODY>
                </SAMI>

                """
        }
    }
}
