import Foundation

/// A VOD HLS ladder made by `HLSFixtures.ladder`. Paths are relative to `directory`,
/// which is what a `RecordingHTTPServer` should serve:
/// `RecordingHTTPServer(root: ladder.directory)`, then `server.baseURL + "/" + ladder.masterPath`.
public struct HLSLadder: Sendable {
    public let directory: URL
    /// "master.m3u8".
    public let masterPath: String
    /// Media playlists of the video variants, lowest bandwidth first:
    /// "v0/index.m3u8" (320x180), "v1/index.m3u8" (640x360), "v2/index.m3u8" (960x540).
    public let variantPaths: [String]
    /// Language code -> media playlist: "en" -> "audio_en/index.m3u8", "fr" -> "audio_fr/index.m3u8".
    public let audioPaths: [String: String]
    /// Language code -> WebVTT media playlist: "en" -> "subs_en/index.m3u8" (NAME "English CC",
    /// DEFAULT=YES), "de" -> "subs_de/index.m3u8" (NAME "Deutsch"). Segments are
    /// "subs_<lang>/cues00000.vtt", … of two seconds each, one cue per second.
    public let subtitlePaths: [String: String]
    /// The BANDWIDTH attribute of each variant, in `variantPaths` order (strictly increasing).
    public let bandwidths: [Int]

    /// Segment `index` of every video variant and audio rendition ("v0/segment00006.ts", …):
    /// what to hold back or fail to cut playback off at one point whatever variant plays.
    public func segmentPaths(_ index: Int) -> [String] {
        (variantPaths + audioPaths.values.sorted()).map {
            ($0 as NSString).deletingLastPathComponent + "/" + String(format: "segment%05d.ts", index)
        }
    }
}

/// An AES-128 encrypted VOD HLS made by `HLSFixtures.encrypted`; paths relative to `directory`.
public struct EncryptedHLS: Sendable {
    public let directory: URL
    /// "master.m3u8", listing the one variant.
    public let masterPath: String
    /// "v0/index.m3u8": `#EXT-X-KEY:METHOD=AES-128,URI="key.bin"` and no IV attribute, so
    /// segment N's IV is N (its media sequence number) as a 128-bit big-endian integer.
    public let mediaPath: String
    /// "v0/key.bin", the 16 raw key bytes (`key`).
    public let keyPath: String
    public let key: [UInt8]
    /// "v0/segment00000.ts", … in playlist order; each is AES-128-CBC with PKCS#7 padding.
    public let segmentPaths: [String]
}

/// HLS fixtures: MPEG-TS segments of one second, media playlists with
/// `#EXT-X-PLAYLIST-TYPE:VOD` and `#EXT-X-ENDLIST`, and a hand-written master playlist.
///
/// Each stream is encoded by its own gst-launch-1.0 run into one MPEG-TS file
/// (`mpegtsmux ! filesink`), which is then cut into segments here, at the first video
/// keyframe (audio-only: the first audio frame) at or after each whole second, each
/// segment starting with a copy of the latest PAT and PMT, as a segmenter does; a tail
/// under half a second joins the segment before it. Not hlssink2: on GStreamer 1.22 its
/// pipeline misses EOS now and then (about 1 run in 8 for video, 2 in 5 for audio-only),
/// after writing everything, and gst-launch never exits. Segment bytes are deterministic,
/// as for `MediaFixtures`.
///
/// Generated at most once per process per argument, under `MediaFixtures.directory`;
/// safe from concurrent tests. Serve with `RecordingHTTPServer` (hlsdemux2 reads no file://).
public enum HLSFixtures {
    /// Three video-only variants (H.264 constrained baseline, 30 fps, a keyframe every
    /// 30 frames, each painting a different videotestsrc pattern with its size written
    /// on it): 320x180 ~300 kb/s (ball), 640x360 ~800 kb/s (moving SMPTE bars), 960x540
    /// ~1600 kb/s (moving checkers); plus audio-only AAC-LC 48 kHz stereo renditions in
    /// group "aud": "English" (en, 440 Hz, DEFAULT=YES) and "French" (fr, 880 Hz); and
    /// WebVTT subtitle renditions in group "subs": "English CC" (en, DEFAULT=YES) and
    /// "Deutsch" (de), cues "English cue N" / "Deutsch N" for second N.
    ///
    /// BANDWIDTH is measured from the segment files, MPEG-TS overhead included: the
    /// variant's largest bit rate over one segment plus the largest of the audio
    /// renditions' (RFC 8216 4.3.4.2), so about 0.60, 1.29 and 1.84 Mb/s; AVERAGE-BANDWIDTH
    /// likewise from whole-file averages. CODECS comes from the streams' SPS and ADTS
    /// headers: avc1.42c01e (level 3.0) for v0 and v1, avc1.42c01f (3.1) for v2, mp4a.40.2.
    public static func ladder(seconds: Int = 8) throws -> HLSLadder {
        let fixture = "HLSFixtures.ladder(seconds: \(seconds))"
        try validate(seconds: seconds, fixture: fixture)
        let variants = [
            VideoVariant(width: 320, height: 180, kbps: 300, pattern: "ball", level: "3"),
            VideoVariant(width: 640, height: 360, kbps: 800, pattern: "smpte", level: "3"),
            VideoVariant(width: 960, height: 540, kbps: 1600, pattern: "checkers-8", level: "3.1"),
        ]
        let renditions = [(language: "en", name: "English", frequency: 440),
                          (language: "fr", name: "French", frequency: 880)]
        let subtitles = [(language: "en", name: "English CC", cue: "English cue"),
                         (language: "de", name: "Deutsch", cue: "Deutsch")]
        var bandwidths: [Int] = []
        let directory = try cachedDirectory("hls-ladder-\(seconds)s", fixture: fixture) { root in
            let aac = try Pipelines.aacEncoder(fixture: fixture)
            var audioStats: [StreamStats] = []
            var audioCodec = ""
            for rendition in renditions {
                let args = Pipelines.audio(seconds: seconds, frequency: rendition.frequency, encoder: aac)
                let stats = try writeMediaPlaylist(
                    elementaryStreams: [args], to: root, folder: "audio_\(rendition.language)", fixture: fixture)
                audioCodec = stats.audioCodec ?? "mp4a.40.2"
                audioStats.append(stats)
            }
            let audioPeak = audioStats.map(\.peakBitrate).max() ?? 0
            let audioAverage = audioStats.map(\.averageBitrate).max() ?? 0

            var master = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-INDEPENDENT-SEGMENTS\n"
            for (index, rendition) in renditions.enumerated() {
                master += "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud\",NAME=\"\(rendition.name)\","
                    + "LANGUAGE=\"\(rendition.language)\",DEFAULT=\(index == 0 ? "YES" : "NO"),"
                    + "AUTOSELECT=YES,URI=\"audio_\(rendition.language)/index.m3u8\"\n"
            }
            for (index, track) in subtitles.enumerated() {
                try writeSubtitlePlaylist(seconds: seconds, cue: track.cue, to: root, folder: "subs_\(track.language)")
                master += "#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subs\",NAME=\"\(track.name)\","
                    + "LANGUAGE=\"\(track.language)\",DEFAULT=\(index == 0 ? "YES" : "NO"),"
                    + "AUTOSELECT=YES,URI=\"subs_\(track.language)/index.m3u8\"\n"
            }
            for (index, variant) in variants.enumerated() {
                let stats = try writeMediaPlaylist(
                    elementaryStreams: [variant.pipeline(seconds: seconds)],
                    to: root, folder: "v\(index)", fixture: fixture)
                let peak = stats.peakBitrate + audioPeak
                if let previous = bandwidths.last, peak <= previous {
                    throw MediaFixtureError(
                        fixture: fixture,
                        message: "variant v\(index) measures \(peak) b/s, not above v\(index - 1)'s \(previous)",
                        stderr: "")
                }
                bandwidths.append(peak)
                master += "#EXT-X-STREAM-INF:BANDWIDTH=\(peak),"
                    + "AVERAGE-BANDWIDTH=\(stats.averageBitrate + audioAverage),"
                    + "RESOLUTION=\(variant.width)x\(variant.height),FRAME-RATE=30.000,"
                    + "CODECS=\"\(stats.videoCodec ?? "avc1.42c01e"),\(audioCodec)\",AUDIO=\"aud\",SUBTITLES=\"subs\"\n"
                    + "v\(index)/index.m3u8\n"
            }
            try Data(master.utf8).write(to: root.appendingPathComponent("master.m3u8"))
        }
        if bandwidths.isEmpty {
            // Cached by an earlier call: the master playlist is the record.
            bandwidths = try readBandwidths(directory.appendingPathComponent("master.m3u8"))
        }
        return HLSLadder(
            directory: directory,
            masterPath: "master.m3u8",
            variantPaths: variants.indices.map { "v\($0)/index.m3u8" },
            audioPaths: Dictionary(uniqueKeysWithValues: renditions.map {
                ($0.language, "audio_\($0.language)/index.m3u8")
            }),
            subtitlePaths: Dictionary(uniqueKeysWithValues: subtitles.map {
                ($0.language, "subs_\($0.language)/index.m3u8")
            }),
            bandwidths: bandwidths)
    }

    /// One variant, H.264 640x360 ~800 kb/s (moving SMPTE bars) and AAC-LC 440 Hz muxed in
    /// MPEG-TS, with every segment encrypted by `openssl enc -aes-128-cbc` under a fixed key.
    /// Throws `MediaFixtureError` when openssl is not on PATH.
    public static func encrypted(seconds: Int = 6) throws -> EncryptedHLS {
        let fixture = "HLSFixtures.encrypted(seconds: \(seconds))"
        try validate(seconds: seconds, fixture: fixture)
        let variant = VideoVariant(width: 640, height: 360, kbps: 800, pattern: "smpte", level: "3")
        var segmentCount = 0
        let directory = try cachedDirectory("hls-aes128-\(seconds)s", fixture: fixture) { root in
            guard findExecutable("openssl") != nil else {
                throw MediaFixtureError(
                    fixture: fixture, message: "openssl not on PATH; install openssl", stderr: "")
            }
            let aac = try Pipelines.aacEncoder(fixture: fixture)
            let stats = try writeMediaPlaylist(
                elementaryStreams: [variant.pipeline(seconds: seconds),
                                    Pipelines.audio(seconds: seconds, frequency: 440, encoder: aac)],
                to: root, folder: "v0", keys: SegmentKeys(single: encryptionKey), fixture: fixture)
            segmentCount = stats.segmentCount
            let master = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-INDEPENDENT-SEGMENTS\n"
                + "#EXT-X-STREAM-INF:BANDWIDTH=\(stats.peakBitrate),AVERAGE-BANDWIDTH=\(stats.averageBitrate),"
                + "RESOLUTION=\(variant.width)x\(variant.height),FRAME-RATE=30.000,"
                + "CODECS=\"\(stats.videoCodec ?? "avc1.42c01e"),\(stats.audioCodec ?? "mp4a.40.2")\"\n"
                + "v0/index.m3u8\n"
            try Data(master.utf8).write(to: root.appendingPathComponent("master.m3u8"))
        }
        if segmentCount == 0 {
            let playlist = try String(contentsOf: directory.appendingPathComponent("v0/index.m3u8"), encoding: .utf8)
            segmentCount = playlist.split(separator: "\n").filter { $0.hasPrefix("#EXTINF") }.count
        }
        return EncryptedHLS(
            directory: directory,
            masterPath: "master.m3u8",
            mediaPath: "v0/index.m3u8",
            keyPath: "v0/key.bin",
            key: encryptionKey,
            segmentPaths: (0..<segmentCount).map { segmentName($0, folder: "v0") })
    }

    /// Like `encrypted`, but the key changes every `segmentsPerKey` segments: an
    /// `#EXT-X-KEY:METHOD=AES-128,URI="key-NNNN.bin"` line before segments 0, `segmentsPerKey`,
    /// 2 x `segmentsPerKey` …, so a player needs a new key mid-play. Key N is
    /// `rotatingKey(N)`, written beside the segments as `key-NNNN.bin`.
    public static func rotatingKeys(seconds: Int = 12, segmentsPerKey: Int = 2) throws -> EncryptedHLS {
        let fixture = "HLSFixtures.rotatingKeys(seconds: \(seconds), segmentsPerKey: \(segmentsPerKey))"
        try validate(seconds: seconds, fixture: fixture)
        guard segmentsPerKey >= 1 else {
            throw MediaFixtureError(fixture: fixture, message: "segmentsPerKey must be at least 1", stderr: "")
        }
        let variant = VideoVariant(width: 640, height: 360, kbps: 800, pattern: "smpte", level: "3")
        let directory = try cachedDirectory("hls-aes128-rotating-\(seconds)s-\(segmentsPerKey)", fixture: fixture) { root in
            guard findExecutable("openssl") != nil else {
                throw MediaFixtureError(fixture: fixture, message: "openssl not on PATH; install openssl", stderr: "")
            }
            let aac = try Pipelines.aacEncoder(fixture: fixture)
            let stats = try writeMediaPlaylist(
                elementaryStreams: [variant.pipeline(seconds: seconds),
                                    Pipelines.audio(seconds: seconds, frequency: 440, encoder: aac)],
                to: root, folder: "v0", keys: SegmentKeys(rotatingEvery: segmentsPerKey), fixture: fixture)
            let master = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-INDEPENDENT-SEGMENTS\n"
                + "#EXT-X-STREAM-INF:BANDWIDTH=\(stats.peakBitrate),RESOLUTION=\(variant.width)x\(variant.height),"
                + "CODECS=\"\(stats.videoCodec ?? "avc1.42c01e"),\(stats.audioCodec ?? "mp4a.40.2")\"\n"
                + "v0/index.m3u8\n"
            try Data(master.utf8).write(to: root.appendingPathComponent("master.m3u8"))
        }
        let playlist = try String(contentsOf: directory.appendingPathComponent("v0/index.m3u8"), encoding: .utf8)
        let segmentCount = playlist.split(separator: "\n").filter { $0.hasPrefix("#EXTINF") }.count
        return EncryptedHLS(
            directory: directory, masterPath: "master.m3u8", mediaPath: "v0/index.m3u8",
            keyPath: "v0/" + SegmentKeys.file(0), key: rotatingKey(0),
            segmentPaths: (0..<segmentCount).map { segmentName($0, folder: "v0") })
    }

    /// Key `n` of `rotatingKeys`: "Marquee key 0003" for n = 3 (16 ASCII bytes).
    public static func rotatingKey(_ n: Int) -> [UInt8] { Array(String(format: "Marquee key %04d", n % 10_000).utf8) }

    /// Which key encrypts which segment, and the file the playlist names for it.
    struct SegmentKeys {
        let segmentsPerKey: Int
        let keyFor: (Int) -> (file: String, bytes: [UInt8])

        /// One key for every segment, "key.bin".
        init(single key: [UInt8]) {
            segmentsPerKey = Int.max
            keyFor = { _ in ("key.bin", key) }
        }

        init(rotatingEvery segments: Int) {
            segmentsPerKey = segments
            keyFor = { n in (SegmentKeys.file(n), HLSFixtures.rotatingKey(n)) }
        }

        static func file(_ n: Int) -> String { String(format: "key-%04d.bin", n) }

        func key(forSegment index: Int) -> (file: String, bytes: [UInt8]) { keyFor(index / segmentsPerKey) }
    }

    // "Marquee HLS key!" in ASCII: fixed, so a test can decrypt a segment itself.
    static let encryptionKey: [UInt8] = Array("Marquee HLS key!".utf8)

    private static func validate(seconds: Int, fixture: String) throws {
        // 60 s of the 960x540 variant takes ~10 s to encode on a 2-core CI machine,
        // inside Pipelines.launch's 60 s limit per run even on a slow one.
        guard (1...60).contains(seconds) else {
            throw MediaFixtureError(fixture: fixture, message: "seconds must be in 1...60", stderr: "")
        }
    }

    private static func segmentName(_ index: Int, folder: String) -> String {
        "\(folder)/" + String(format: "segment%05d.ts", index)
    }

    /// Like `FixtureStore.cached`, for a folder: a folder that exists is complete.
    private static func cachedDirectory(
        _ name: String, fixture: String, generate: (URL) throws -> Void
    ) throws -> URL {
        try FixtureStore.cached(name, fixture: fixture, isDirectory: true, generate: generate)
    }

    private static func readBandwidths(_ master: URL) throws -> [Int] {
        let text = try String(contentsOf: master, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line -> Int? in
            guard line.hasPrefix("#EXT-X-STREAM-INF:"),
                  let range = line.range(of: "BANDWIDTH="), line[..<range.lowerBound].hasSuffix(":")
            else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
    }

    private struct VideoVariant {
        let width: Int, height: Int, kbps: Int, pattern: String
        /// H.264 level forced through caps (3.0 holds up to 720x576 at 30 fps; 960x540 needs 3.1).
        let level: String

        func pipeline(seconds: Int) -> [String] {
            let frameRate = Pipelines.frameRate
            var args = [
                "videotestsrc", "num-buffers=\(seconds * frameRate)", "pattern=\(pattern)",
                "horizontal-speed=4",
                "!", "video/x-raw,format=I420,width=\(width),height=\(height),framerate=\(frameRate)/1",
            ]
            if Pipelines.hasTimeOverlay {
                // Fixed size: text rendering dominates the encode time at large sizes.
                args += ["!", "timeoverlay", "text=\(width)x\(height)", "halignment=left",
                         "valignment=top", "font-desc=Sans 24"]
            }
            // threads=1: reproducible rate control (see Pipelines.video). key-int-max
            // plus 1 s segment boundaries puts exactly one GOP in each segment.
            args += [
                "!", "x264enc", "key-int-max=\(frameRate)", "speed-preset=ultrafast",
                "bitrate=\(kbps)", "threads=1",
                "!", "video/x-h264,profile=constrained-baseline,level=(string)\(level)",
                "!", "h264parse",
            ]
            return args
        }
    }

    private struct StreamStats {
        var segmentCount: Int
        var peakBitrate: Int
        var averageBitrate: Int
        var videoCodec: String?
        var audioCodec: String?
    }

    /// Muxes `elementaryStreams` (gst-launch fragments ending in a parser) into one
    /// MPEG-TS, cuts it into `folder/segmentNNNNN.ts` (AES-128 encrypted when `key` is
    /// set, with `key.bin` beside them), and writes `folder/index.m3u8`.
    /// WebVTT segments of two seconds with one cue per second. X-TIMESTAMP-MAP ties cue
    /// time 0 to MPEG-TS time 0, as segmenters do when the video starts at PTS 0.
    private static func writeSubtitlePlaylist(seconds: Int, cue: String, to root: URL, folder: String) throws {
        let output = root.appendingPathComponent(folder, isDirectory: true)
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        func stamp(_ second: Int) -> String { String(format: "00:00:%02d.000", second) }
        var playlist = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n"
            + "#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        for (index, start) in stride(from: 0, to: seconds, by: 2).enumerated() {
            let name = String(format: "cues%05d.vtt", index)
            var body = "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n"
            for second in start..<min(start + 2, seconds) {
                body += "\n\(stamp(second)) --> \(stamp(second + 1))\n\(cue) \(second)\n"
            }
            try Data(body.utf8).write(to: output.appendingPathComponent(name))
            playlist += String(format: "#EXTINF:%.3f,\n", Double(min(2, seconds - start))) + name + "\n"
        }
        try Data((playlist + "#EXT-X-ENDLIST\n").utf8).write(to: output.appendingPathComponent("index.m3u8"))
    }

    private static func writeMediaPlaylist(
        elementaryStreams: [[String]], to root: URL, folder: String, keys: SegmentKeys? = nil,
        fixture: String
    ) throws -> StreamStats {
        let fileManager = FileManager.default
        let output = root.appendingPathComponent(folder, isDirectory: true)
        try fileManager.createDirectory(at: output, withIntermediateDirectories: true)
        let muxed = root.appendingPathComponent("\(folder)-muxed.ts.tmp")
        defer { try? fileManager.removeItem(at: muxed) }
        var args = ["mpegtsmux", "name=mux", "!", "filesink", "location=\(muxed.path)"]
        for stream in elementaryStreams { args += stream + ["!", "mux."] }
        try Pipelines.launch(args, fixture: fixture)

        let split: TransportStreamSplitter.Result
        do {
            split = try TransportStreamSplitter.split(try Data(contentsOf: muxed), segmentTicks: 90_000)
        } catch let error as TransportStreamSplitter.Failure {
            throw MediaFixtureError(fixture: fixture, message: "mpegtsmux output: \(error.message)", stderr: "")
        }

        var playlist = ""
        var totalBytes = 0, totalSeconds = 0.0, peak = 0.0
        for (index, segment) in split.segments.enumerated() {
            let name = String(format: "segment%05d.ts", index)
            let destination = output.appendingPathComponent(name)
            if let keys {
                let key = keys.key(forSegment: index)
                if index % keys.segmentsPerKey == 0 {
                    try Data(key.bytes).write(to: output.appendingPathComponent(key.file))
                    playlist += "#EXT-X-KEY:METHOD=AES-128,URI=\"\(key.file)\"\n"
                }
                let plain = output.appendingPathComponent("\(name).plain")
                try segment.data.write(to: plain)
                defer { try? fileManager.removeItem(at: plain) }
                try encrypt(plain, to: destination, key: key.bytes, sequence: index, fixture: fixture)
            } else {
                try segment.data.write(to: destination)
            }
            let size = (try fileManager.attributesOfItem(atPath: destination.path)[.size] as? Int) ?? 0
            totalBytes += size
            totalSeconds += segment.duration
            peak = max(peak, Double(size * 8) / segment.duration)
            playlist += String(format: "#EXTINF:%.6f,\n", segment.duration) + name + "\n"
        }
        // Rounded to the nearest integer, no EXTINF may exceed the target (RFC 8216 4.3.3.1).
        let target = max(1, split.segments.map { Int($0.duration.rounded()) }.max() ?? 1)
        let header = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:\(target)\n"
            + "#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n"
        try Data((header + playlist + "#EXT-X-ENDLIST\n").utf8)
            .write(to: output.appendingPathComponent("index.m3u8"))
        return StreamStats(
            segmentCount: split.segments.count,
            peakBitrate: Int(peak.rounded(.up)),
            averageBitrate: Int((Double(totalBytes * 8) / totalSeconds).rounded(.up)),
            videoCodec: split.videoCodec,
            audioCodec: split.audioCodec)
    }

    private static func encrypt(_ input: URL, to output: URL, key: [UInt8], sequence: Int, fixture: String) throws {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        // No IV attribute in the playlist: the IV is the media sequence number, big-endian.
        let iv = [UInt8](repeating: 0, count: 8) + withUnsafeBytes(of: UInt64(sequence).bigEndian, Array.init)
        let args = ["enc", "-aes-128-cbc", "-K", hex(key), "-iv", hex(iv),
                    "-in", input.path, "-out", output.path]
        let result: (status: Int32, stdout: String, stderr: String)
        do {
            result = try runProcess("openssl", args, timeout: 30)
        } catch {
            throw MediaFixtureError(fixture: fixture, message: "openssl: \(error)", stderr: "")
        }
        guard result.status == 0 else {
            throw MediaFixtureError(
                fixture: fixture,
                message: "openssl exited with status \(result.status): openssl " + args.joined(separator: " ")
                    + "\n" + result.stderr,
                stderr: "")
        }
    }
}

/// Cuts a single-program MPEG-TS into segments the way an HLS segmenter does. Written
/// for mpegtsmux output: PSI sections in one packet each, one access unit per PES,
/// random_access_indicator on video keyframes.
enum TransportStreamSplitter {
    struct Failure: Error { let message: String }
    struct Segment { var data: Data; var duration: Double }
    struct Result {
        var segments: [Segment]
        /// "avc1.PPCCLL" from the first SPS, when there is H.264.
        var videoCodec: String?
        /// "mp4a.40.N" from the first ADTS header, when there is AAC.
        var audioCodec: String?
    }

    static let packetSize = 188
    static let ptsWrap: Int64 = 1 << 33

    /// Cuts at the first keyframe PES (video) or PES (audio-only) of the reference stream
    /// whose PTS is at or past each multiple of `segmentTicks` (90 kHz) from the first
    /// PTS. Every segment after the first starts with copies of the latest PAT and PMT
    /// (PSI continuity counters are renumbered to stay continuous).
    static func split(_ data: Data, segmentTicks: Int64) throws -> Result {
        let bytes = [UInt8](data)
        guard !bytes.isEmpty, bytes.count % packetSize == 0 else {
            throw Failure(message: "\(bytes.count) bytes is not a whole number of 188-byte packets")
        }
        let packetCount = bytes.count / packetSize

        var pmtPID: Int?
        var streams: [(pid: Int, type: UInt8)] = []
        var lastPAT: Int?, lastPMT: Int?
        var cuts: [(packet: Int, pat: Int?, pmt: Int?, pts: Int64)] = []
        var firstPTS: Int64?, previousPTS: Int64?, lastDelta: Int64 = 0
        var nextBoundary: Int64 = 0
        var firstPayloads: [Int: [UInt8]] = [:]  // first PES of each stream, for codec strings
        var collecting: Set<Int> = []

        for index in 0..<packetCount {
            let base = index * packetSize
            guard bytes[base] == 0x47 else { throw Failure(message: "lost sync at packet \(index)") }
            let pid = Int(bytes[base + 1] & 0x1F) << 8 | Int(bytes[base + 2])
            let unitStart = bytes[base + 1] & 0x40 != 0
            let adaptation = (bytes[base + 3] >> 4) & 0x3
            var payload = base + 4
            var randomAccess = false
            if adaptation & 0x2 != 0 {
                let length = Int(bytes[base + 4])
                randomAccess = length > 0 && bytes[base + 5] & 0x40 != 0
                payload += 1 + length
            }
            let end = base + packetSize
            guard adaptation & 0x1 != 0, payload < end else { continue }

            if pid == 0 {
                lastPAT = index
                if unitStart, pmtPID == nil { pmtPID = parsePAT(bytes, payload, end) }
                continue
            }
            if pid == pmtPID {
                lastPMT = index
                if unitStart, streams.isEmpty {
                    streams = parsePMT(bytes, payload, end)
                    collecting = Set(streams.map(\.pid))
                }
                continue
            }
            guard streams.contains(where: { $0.pid == pid }) else { continue }

            if collecting.contains(pid) {
                if unitStart, firstPayloads[pid] != nil {
                    collecting.remove(pid)
                } else if unitStart || firstPayloads[pid] != nil {
                    firstPayloads[pid, default: []] += bytes[payload..<end]
                    // The parameter sets and the first ADTS header come first.
                    if firstPayloads[pid, default: []].count >= 4096 { collecting.remove(pid) }
                }
            }

            let reference = streams.first(where: { $0.type == 0x1B }) ?? streams[0]
            guard pid == reference.pid, unitStart, let pts = parsePTS(bytes, payload, end) else { continue }
            if let previousPTS { lastDelta = (pts - previousPTS + ptsWrap) % ptsWrap }
            previousPTS = pts
            let isKey = reference.type != 0x1B || randomAccess || startsWithSPS(bytes, payload, end)
            guard let origin = firstPTS else {
                firstPTS = pts
                cuts.append((0, nil, nil, pts))
                nextBoundary = segmentTicks
                continue
            }
            let elapsed = (pts - origin + ptsWrap) % ptsWrap
            if isKey, elapsed >= nextBoundary {
                cuts.append((index, lastPAT, lastPMT, pts))
                while nextBoundary <= elapsed { nextBoundary += segmentTicks }
            }
        }
        guard let lastPTS = previousPTS, !cuts.isEmpty, let pmtPID else {
            throw Failure(message: "no PES with a PTS on the reference stream (PMT: \(streams))")
        }
        // An encoder's last frames can spill a sliver past the end (AAC: one frame of
        // 21 ms); fold a short tail into the segment before it.
        if cuts.count > 1, (lastPTS + lastDelta - cuts[cuts.count - 1].pts + ptsWrap) % ptsWrap < segmentTicks / 2 {
            cuts.removeLast()
        }

        var segments: [Segment] = []
        var psiCounters: [Int: Int] = [:]
        for (number, cut) in cuts.enumerated() {
            let endPacket = number + 1 < cuts.count ? cuts[number + 1].packet : packetCount
            let endPTS = number + 1 < cuts.count ? cuts[number + 1].pts : lastPTS + lastDelta
            var segment = [UInt8]()
            for psi in [cut.pat, cut.pmt].compactMap({ $0 }) {
                segment += bytes[psi * packetSize..<(psi + 1) * packetSize]
            }
            segment += bytes[cut.packet * packetSize..<endPacket * packetSize]
            // The copies would repeat continuity counters, which tsdemux reports as a
            // section discontinuity: number PAT and PMT packets afresh, stream-wide.
            for packet in stride(from: 0, to: segment.count, by: packetSize) {
                let pid = Int(segment[packet + 1] & 0x1F) << 8 | Int(segment[packet + 2])
                guard pid == 0 || pid == pmtPID else { continue }
                segment[packet + 3] = segment[packet + 3] & 0xF0 | UInt8(psiCounters[pid, default: 0] & 0x0F)
                psiCounters[pid, default: 0] += 1
            }
            let ticks = (endPTS - cut.pts + ptsWrap) % ptsWrap
            segments.append(Segment(data: Data(segment), duration: Double(ticks) / 90_000))
        }

        var result = Result(segments: segments)
        for stream in streams {
            guard let pes = firstPayloads[stream.pid], pes.count > 9 else { continue }
            let elementary = Array(pes.dropFirst(9 + Int(pes[8])))
            switch stream.type {
            case 0x1B: result.videoCodec = result.videoCodec ?? avcCodec(elementary)
            case 0x0F: result.audioCodec = result.audioCodec ?? aacCodec(elementary)
            default: break
            }
        }
        return result
    }

    private static func parsePAT(_ bytes: [UInt8], _ payload: Int, _ end: Int) -> Int? {
        let section = payload + 1 + Int(bytes[payload])
        guard section + 8 <= end, bytes[section] == 0x00 else { return nil }
        let sectionEnd = min(end, section + 3 + (Int(bytes[section + 1] & 0x0F) << 8 | Int(bytes[section + 2])) - 4)
        var entry = section + 8
        while entry + 4 <= sectionEnd {
            let program = Int(bytes[entry]) << 8 | Int(bytes[entry + 1])
            if program != 0 { return Int(bytes[entry + 2] & 0x1F) << 8 | Int(bytes[entry + 3]) }
            entry += 4
        }
        return nil
    }

    private static func parsePMT(_ bytes: [UInt8], _ payload: Int, _ end: Int) -> [(pid: Int, type: UInt8)] {
        let section = payload + 1 + Int(bytes[payload])
        guard section + 12 <= end, bytes[section] == 0x02 else { return [] }
        let sectionEnd = min(end, section + 3 + (Int(bytes[section + 1] & 0x0F) << 8 | Int(bytes[section + 2])) - 4)
        var entry = section + 12 + (Int(bytes[section + 10] & 0x0F) << 8 | Int(bytes[section + 11]))
        var streams: [(pid: Int, type: UInt8)] = []
        while entry + 5 <= sectionEnd {
            let pid = Int(bytes[entry + 1] & 0x1F) << 8 | Int(bytes[entry + 2])
            streams.append((pid, bytes[entry]))
            entry += 5 + (Int(bytes[entry + 3] & 0x0F) << 8 | Int(bytes[entry + 4]))
        }
        return streams
    }

    private static func parsePTS(_ bytes: [UInt8], _ payload: Int, _ end: Int) -> Int64? {
        guard payload + 14 <= end, bytes[payload] == 0, bytes[payload + 1] == 0, bytes[payload + 2] == 1,
              bytes[payload + 7] & 0x80 != 0
        else { return nil }
        let p = payload + 9
        return Int64(bytes[p] >> 1 & 0x07) << 30 | Int64(bytes[p + 1]) << 22
            | Int64(bytes[p + 2] >> 1) << 15 | Int64(bytes[p + 3]) << 7 | Int64(bytes[p + 4] >> 1)
    }

    /// Fallback keyframe test for muxers that set no random_access_indicator: x264
    /// repeats SPS/PPS before every IDR, and no PES starts with one otherwise.
    private static func startsWithSPS(_ bytes: [UInt8], _ payload: Int, _ end: Int) -> Bool {
        guard payload + 9 <= end else { return false }
        let start = payload + 9 + Int(bytes[payload + 8])
        guard start < end else { return false }
        return avcCodec(Array(bytes[start..<end])) != nil
    }

    private static func avcCodec(_ stream: [UInt8]) -> String? {
        var index = 0
        while index + 6 < stream.count {
            if stream[index] == 0, stream[index + 1] == 0, stream[index + 2] == 1,
               stream[index + 3] & 0x1F == 7 {
                return String(format: "avc1.%02x%02x%02x", stream[index + 4], stream[index + 5], stream[index + 6])
            }
            index += 1
        }
        return nil
    }

    private static func aacCodec(_ stream: [UInt8]) -> String? {
        guard stream.count > 2, stream[0] == 0xFF, stream[1] & 0xF6 == 0xF0 else { return nil }
        return "mp4a.40.\(Int(stream[2] >> 6) + 1)"
    }
}
