import Foundation

/// A live (sliding-window) media playlist made from a VOD one, for serving with
/// `RecordingHTTPServer.serve(_:body:)`: as wall-clock time passes, one segment is
/// published per segment duration and the oldest drops out of the window, as a live
/// origin does. The VOD segments repeat forever; each wrap is marked with
/// `EXT-X-DISCONTINUITY` (the timestamps start again) and counted in
/// `EXT-X-DISCONTINUITY-SEQUENCE`. No `EXT-X-ENDLIST`, so players treat it as live.
public struct LiveHLSPlaylist: Sendable {
    public struct Segment: Sendable {
        public let uri: String
        public let duration: Double
    }

    public let segments: [Segment]
    /// Segments listed at a time.
    public let window: Int
    public let start: Date
    public let targetDuration: Int

    /// Reads the `#EXTINF` entries of `vodPlaylist` (URIs kept as written, so serve the
    /// live playlist from the same folder).
    public init(vodPlaylist: URL, window: Int = 4, start: Date = Date()) throws {
        let text = try String(contentsOf: vodPlaylist, encoding: .utf8)
        var segments: [Segment] = []
        var pendingDuration: Double?
        for line in text.split(whereSeparator: \.isNewline).map(String.init) {
            if line.hasPrefix("#EXTINF:") {
                pendingDuration = Double(line.dropFirst("#EXTINF:".count).prefix { $0 != "," })
            } else if !line.hasPrefix("#"), !line.isEmpty, let duration = pendingDuration {
                segments.append(Segment(uri: line, duration: duration))
                pendingDuration = nil
            }
        }
        guard !segments.isEmpty, window >= 1 else {
            throw MediaFixtureError(fixture: "LiveHLSPlaylist", message: "no segments in \(vodPlaylist.path)", stderr: "")
        }
        self.segments = segments
        self.window = window
        self.start = start
        targetDuration = max(1, Int(segments.map(\.duration).max()!.rounded()))
    }

    /// The media sequence number of the newest listed segment at `date`.
    public func newestSequence(at date: Date = Date()) -> Int {
        var elapsed = date.timeIntervalSince(start)
        var sequence = window - 1
        while elapsed >= segments[(sequence + 1) % segments.count].duration {
            sequence += 1
            elapsed -= segments[sequence % segments.count].duration
        }
        return sequence
    }

    /// The playlist as a live origin would serve it at `date`.
    public func text(at date: Date = Date()) -> String {
        let newest = newestSequence(at: date)
        let first = newest - window + 1
        // Wraps that happened at or before the first listed segment.
        let discontinuities = first / segments.count
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:\(targetDuration)\n"
            + "#EXT-X-MEDIA-SEQUENCE:\(first)\n#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuities)\n"
        for sequence in first...newest {
            let segment = segments[sequence % segments.count]
            if sequence % segments.count == 0 && sequence > first { text += "#EXT-X-DISCONTINUITY\n" }
            text += String(format: "#EXTINF:%.6f,\n", segment.duration) + segment.uri + "\n"
        }
        return text
    }
}
