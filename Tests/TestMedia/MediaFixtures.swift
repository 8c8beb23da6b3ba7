import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public struct MediaFixtureError: Error, CustomStringConvertible {
    public let fixture: String
    public let message: String
    /// gst-launch-1.0's stderr when it was the part that failed; empty otherwise.
    public let stderr: String

    public var description: String {
        stderr.isEmpty
            ? "TestMedia: cannot make \(fixture): \(message)"
            : "TestMedia: cannot make \(fixture): \(message)\ngst-launch-1.0 stderr:\n\(stderr)"
    }
}

/// Small media files generated on demand with gst-launch-1.0, so the repository
/// carries no binary fixtures and every clip has known, documented properties.
///
/// Each file is generated at most once per process, into `directory`, which is
/// removed at exit. Calls are safe from concurrent tests.
///
/// Media payloads are deterministic (same frames, samples, sizes and offsets on every
/// run); container creation timestamps and Matroska's random segment UID are not,
/// because the muxers take them from the clock and RNG.
public enum MediaFixtures {
    /// The per-process directory all fixtures live in.
    public static var directory: URL { FixtureStore.directory }

    /// MP4 (mp4mux, index at the end): H.264 constrained-baseline 320x240 at 30 fps
    /// with a keyframe every second (frames 0, 30, 60, …), plus AAC-LC 48 kHz stereo
    /// (440 Hz sine). Video scrolls, and carries a running timestamp when the
    /// timeoverlay element (Debian: gstreamer1.0-x) is installed, so no two frames match.
    public static func mp4(seconds: Int = 6) throws -> URL {
        let fixture = "mp4(seconds: \(seconds))"
        try validate(seconds: seconds, fixture: fixture)
        return try FixtureStore.cached("av-\(seconds)s.mp4", fixture: fixture) { output in
            let aac = try Pipelines.aacEncoder(fixture: fixture)
            var args = ["mp4mux", "name=mux", "!", "filesink", "location=\(output.path)"]
            args += Pipelines.video(seconds: seconds) + ["!", "mux."]
            args += Pipelines.audio(seconds: seconds, frequency: 440, encoder: aac) + ["!", "mux."]
            try Pipelines.launch(args, fixture: fixture)
        }
    }

    /// Matroska with, in this order: H.264 video (as in `mp4`), AAC audio tagged
    /// language "en" / title "English" (440 Hz), AAC audio tagged "fr" / "French"
    /// (660 Hz), and a UTF-8 subtitle track tagged "en" with one cue per second
    /// ("Subtitle 1" shown 0.0–0.8 s, "Subtitle 2" 1.0–1.8 s, …). GStreamer demuxers
    /// report the languages in the `language-code` stream tag.
    public static func mkvWithTracks(seconds: Int = 6) throws -> URL {
        let fixture = "mkvWithTracks(seconds: \(seconds))"
        try validate(seconds: seconds, fixture: fixture)
        return try FixtureStore.cached("tracks-\(seconds)s.mkv", fixture: fixture) { output in
            let aac = try Pipelines.aacEncoder(fixture: fixture)
            let subtitles = try FixtureStore.writeSubtitles(seconds: seconds, fixture: fixture)
            var args = ["matroskamux", "name=mux", "!", "filesink", "location=\(output.path)"]
            args += Pipelines.video(seconds: seconds) + ["!", "mux.video_0"]
            args += Pipelines.audio(seconds: seconds, frequency: 440, encoder: aac)
            args += ["!", "taginject", "tags=language-code=en,title=English", "!", "mux.audio_0"]
            args += Pipelines.audio(seconds: seconds, frequency: 660, encoder: aac)
            args += ["!", "taginject", "tags=language-code=fr,title=French", "!", "mux.audio_1"]
            args += ["filesrc", "location=\(subtitles.path)", "!", "subparse"]
            args += ["!", "taginject", "tags=language-code=en", "!", "mux.subtitle_0"]
            try Pipelines.launch(args, fixture: fixture)
        }
    }

    /// Matroska with H.264 video (as in `mp4`) and two UTF-8 subtitle tracks: "en"
    /// ("English 1" shown 0.0–0.8 s, "English 2" 1.0–1.8 s, …) then "ko" ("한국어 1", …), so
    /// that choosing the second by language shows in the cues' text.
    public static func mkvWithSubtitleLanguages(seconds: Int = 6) throws -> URL {
        let fixture = "mkvWithSubtitleLanguages(seconds: \(seconds))"
        try validate(seconds: seconds, fixture: fixture)
        return try FixtureStore.cached("subtitle-languages-\(seconds)s.mkv", fixture: fixture) { output in
            let english = try FixtureStore.writeSubtitles(seconds: seconds, fixture: fixture, text: "English", tag: "en")
            let korean = try FixtureStore.writeSubtitles(seconds: seconds, fixture: fixture, text: "한국어", tag: "ko")
            var args = ["matroskamux", "name=mux", "!", "filesink", "location=\(output.path)"]
            args += Pipelines.video(seconds: seconds) + ["!", "mux.video_0"]
            args += ["filesrc", "location=\(english.path)", "!", "subparse"]
            args += ["!", "taginject", "tags=language-code=en", "!", "mux.subtitle_0"]
            args += ["filesrc", "location=\(korean.path)", "!", "subparse"]
            args += ["!", "taginject", "tags=language-code=ko", "!", "mux.subtitle_1"]
            try Pipelines.launch(args, fixture: fixture)
        }
    }

    /// Ogg with Theora video (320x240, 30 fps) and Vorbis audio (440 Hz): another container
    /// typefinding must recognise.
    public static func ogg(seconds: Int = 2) throws -> URL {
        let fixture = "ogg(seconds: \(seconds))"
        try validate(seconds: seconds, fixture: fixture)
        return try FixtureStore.cached("av-\(seconds)s.ogg", fixture: fixture) { output in
            let frames = seconds * Pipelines.frameRate
            try Pipelines.launch([
                "oggmux", "name=mux", "!", "filesink", "location=\(output.path)",
                "videotestsrc", "num-buffers=\(frames)", "!", "video/x-raw,format=I420,width=320,height=240,framerate=30/1",
                "!", "theoraenc", "!", "queue", "!", "mux.",
                "audiotestsrc", "num-buffers=\(frames)", "samplesperbuffer=\(Pipelines.samplesPerBuffer)",
                "!", "audio/x-raw,rate=48000,channels=2", "!", "audioconvert", "!", "vorbisenc", "!", "queue", "!", "mux.",
            ], fixture: fixture)
        }
    }

    /// MP3 frames with no ID3 tag or container (lamemp3enc, 440 Hz): typefinding has only the
    /// frame headers to go by, the weakest evidence a real file gives it.
    public static func rawMP3(seconds: Int = 2) throws -> URL {
        let fixture = "rawMP3(seconds: \(seconds))"
        try validate(seconds: seconds, fixture: fixture)
        return try FixtureStore.cached("raw-\(seconds)s.mp3", fixture: fixture) { output in
            try Pipelines.launch([
                "audiotestsrc", "num-buffers=\(seconds * Pipelines.frameRate)", "samplesperbuffer=\(Pipelines.samplesPerBuffer)",
                "!", "audio/x-raw,rate=48000,channels=2", "!", "audioconvert", "!", "lamemp3enc",
                "!", "filesink", "location=\(output.path)",
            ], fixture: fixture)
        }
    }

    /// 64 KiB of pseudo-random bytes named `.mp4`, for "unsupported/corrupt file"
    /// paths: the extension promises media, the content matches no known format.
    public static func garbage() throws -> URL {
        try FixtureStore.cached("garbage.mp4", fixture: "garbage()") { output in
            try Data(pseudoRandomBytes(64 * 1024)).write(to: output)
        }
    }

    /// A PDF header and 64 KiB of pseudo-random bytes, named `.mp4`: typefinding recognises
    /// it (application/pdf), but it is not media. GStreamer 1.22 posts missing-plugin for it
    /// and then, in most opens, nothing more.
    public static func notMedia() throws -> URL {
        try FixtureStore.cached("not-media.mp4", fixture: "notMedia()") { output in
            try Data(Array("%PDF-1.4\n".utf8) + pseudoRandomBytes(64 * 1024)).write(to: output)
        }
    }

    /// The first 4 KiB of `mp4()` (its header) followed by 256 KiB of pseudo-random bytes:
    /// recognised as MP4, broken after that.
    public static func mp4HeaderThenGarbage() throws -> URL {
        let source = try mp4()
        return try FixtureStore.cached("header-then-garbage.mp4", fixture: "mp4HeaderThenGarbage()") { output in
            let header = try Data(contentsOf: source).prefix(4096)
            try (header + Data(pseudoRandomBytes(256 * 1024))).write(to: output)
        }
    }

    /// SplitMix64: a fixed seed gives identical bytes on every run and platform.
    private static func pseudoRandomBytes(_ count: Int) -> [UInt8] {
        var state: UInt64 = 0x4D41_5251_5545_4521
        var bytes = [UInt8]()
        bytes.reserveCapacity(count)
        while bytes.count < count {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            withUnsafeBytes(of: z.littleEndian) { bytes.append(contentsOf: $0) }
        }
        return bytes
    }

    /// The first 40% of `mp4()` (the default 6 s clip). mp4mux writes the moov index
    /// last, so this is media data with no index: demuxers must fail, not hang.
    public static func truncatedMP4() throws -> URL {
        // Resolved before taking the store's lock, which is not reentrant.
        let source = try mp4()
        return try FixtureStore.cached("truncated.mp4", fixture: "truncatedMP4()") { output in
            let data = try Data(contentsOf: source)
            try data.prefix(data.count * 40 / 100).write(to: output)
        }
    }

    private static func validate(seconds: Int, fixture: String) throws {
        guard (1...600).contains(seconds) else {
            throw MediaFixtureError(
                fixture: fixture, message: "seconds must be in 1...600", stderr: "")
        }
    }
}

// Internal, not private: HLSFixtures.swift shares the lock and the directory.
enum FixtureStore {
    // One lock for all fixtures: generation is CPU-bound, so running two gst-launch
    // jobs side by side on a small CI machine gains nothing and risks timeouts.
    static let lock = NSLock()

    static let directory: URL = {
        // pid + random suffix: parallel test processes (swift test --parallel) must not
        // see each other's half-written files, and a recycled pid must not find stale ones.
        let name = "marquee-testmedia-\(getpid())-\(UUID().uuidString.prefix(8))"
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent(name, isDirectory: true)
        // Created eagerly so tests may drop their own files (playlists, copies) next
        // to the fixtures; `cached` retries if this fails.
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: FixtureStore.directory) }
        return url
    }()

    /// Returns `name` in `directory`, running `generate` first if this process has not
    /// produced it yet. `generate` writes to a scratch path that is renamed only on
    /// success, so a failed or interrupted run never leaves a file that looks cached.
    /// `generate` must not call back into `cached` (the lock is not reentrant).
    /// With `isDirectory`, `generate` fills a scratch folder instead of writing a file.
    static func cached(
        _ name: String, fixture: String, isDirectory: Bool = false, generate: (URL) throws -> Void
    ) throws -> URL {
        lock.lock()
        defer { lock.unlock() }
        let fileManager = FileManager.default
        let final = directory.appendingPathComponent(name, isDirectory: isDirectory)
        if fileManager.fileExists(atPath: final.path) { return final }

        let scratch = directory.appendingPathComponent("partial-\(name)", isDirectory: isDirectory)
        do {
            try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
            try? fileManager.removeItem(at: scratch)
            if isDirectory { try fileManager.createDirectory(at: scratch, withIntermediateDirectories: true) }
            try generate(scratch)
            let size = (try? fileManager.attributesOfItem(atPath: scratch.path)[.size] as? Int) ?? 0
            guard isDirectory || size > 0 else {
                throw MediaFixtureError(fixture: fixture, message: "generator wrote no data", stderr: "")
            }
            try fileManager.moveItem(at: scratch, to: final)
        } catch let error as MediaFixtureError {
            try? fileManager.removeItem(at: scratch)
            throw error
        } catch {
            try? fileManager.removeItem(at: scratch)
            throw MediaFixtureError(fixture: fixture, message: "\(error)", stderr: "")
        }
        return final
    }

    /// `text`: each cue's text before its number ("Subtitle 1", "Subtitle 2", …); `tag`
    /// names the file of a text other than the default.
    static func writeSubtitles(seconds: Int, fixture: String, text: String = "Subtitle", tag: String? = nil) throws -> URL {
        func stamp(_ milliseconds: Int) -> String {
            let h = milliseconds / 3_600_000, m = milliseconds / 60_000 % 60
            let s = milliseconds / 1000 % 60, ms = milliseconds % 1000
            return String(format: "%02d:%02d:%02d,%03d", h, m, s, ms)
        }
        var srt = ""
        for cue in 0..<seconds {
            srt += "\(cue + 1)\n\(stamp(cue * 1000)) --> \(stamp(cue * 1000 + 800))\n\(text) \(cue + 1)\n\n"
        }
        let url = directory.appendingPathComponent("subtitles-\(seconds)s\(tag.map { "-\($0)" } ?? "").srt")
        try Data(srt.utf8).write(to: url, options: .atomic)
        return url
    }
}

// Internal, not private: HLSFixtures.swift reuses the audio chain and launcher.
enum Pipelines {
    static let frameRate = 30
    // 1600 samples = one video frame at 48 kHz, so audio and video end together exactly.
    static let samplesPerBuffer = 48_000 / frameRate

    static func video(seconds: Int) -> [String] {
        var args = [
            "videotestsrc", "num-buffers=\(seconds * frameRate)", "pattern=smpte", "horizontal-speed=4",
            "!", "video/x-raw,format=I420,width=320,height=240,framerate=\(frameRate)/1",
        ]
        if hasTimeOverlay {
            args += ["!", "timeoverlay", "halignment=left", "valignment=top", "font-desc=Sans 24"]
        }
        // threads=1: multi-threaded x264 rate control is not reproducible between runs.
        // bitrate keeps clips small (~300 KB per 6 s) so tests copy and scan them fast.
        args += [
            "!", "x264enc", "key-int-max=\(frameRate)", "speed-preset=ultrafast",
            "bitrate=400", "threads=1",
            "!", "h264parse",
        ]
        return args
    }

    static func audio(seconds: Int, frequency: Int, encoder: String) -> [String] {
        [
            "audiotestsrc", "num-buffers=\(seconds * frameRate)",
            "samplesperbuffer=\(samplesPerBuffer)", "wave=sine", "freq=\(frequency)",
            "!", "audio/x-raw,rate=48000,channels=2",
            // Encoders disagree on sample format (avenc_aac: planar float, fdkaacenc: S16).
            "!", "audioconvert",
            "!", encoder,
            "!", "aacparse",
        ]
    }

    static let hasTimeOverlay = elementExists("timeoverlay")

    // fdkaacenc and voaacenc are fallbacks for installs without gstreamer1.0-libav.
    static let availableAACEncoder: String? =
        ["avenc_aac", "fdkaacenc", "voaacenc"].first(where: elementExists)

    static func aacEncoder(fixture: String) throws -> String {
        guard findExecutable("gst-inspect-1.0") != nil, findExecutable("gst-launch-1.0") != nil else {
            throw MediaFixtureError(
                fixture: fixture,
                message: "gst-launch-1.0/gst-inspect-1.0 not on PATH; install gstreamer1.0-tools",
                stderr: "")
        }
        guard let encoder = availableAACEncoder else {
            throw MediaFixtureError(
                fixture: fixture,
                message: "no AAC encoder element (avenc_aac, fdkaacenc or voaacenc); "
                    + "install gstreamer1.0-libav",
                stderr: "")
        }
        return encoder
    }

    static func elementExists(_ element: String) -> Bool {
        let result = try? runProcess("gst-inspect-1.0", ["--exists", element], timeout: 30)
        return result?.status == 0
    }

    static func launch(_ pipeline: [String], fixture: String) throws {
        let result: (status: Int32, stdout: String, stderr: String)
        do {
            // Generous timeout: the first GStreamer run on a fresh machine rebuilds the
            // plugin registry, which alone can take several seconds.
            result = try runProcess("gst-launch-1.0", ["-q"] + pipeline, timeout: 60)
        } catch let ProcessRunnerError.timedOut(_, _, timeout, _, stderr) {
            throw MediaFixtureError(
                fixture: fixture,
                message: "gst-launch-1.0 did not finish within \(Int(timeout)) s; pipeline: "
                    + pipeline.joined(separator: " "),
                stderr: stderr)
        } catch {
            throw MediaFixtureError(fixture: fixture, message: "\(error)", stderr: "")
        }
        guard result.status == 0 else {
            throw MediaFixtureError(
                fixture: fixture,
                message: "gst-launch-1.0 exited with status \(result.status); pipeline: "
                    + pipeline.joined(separator: " "),
                stderr: result.stderr.isEmpty ? result.stdout : result.stderr)
        }
    }
}
