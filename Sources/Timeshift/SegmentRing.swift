import FoundationEssentials
import TextSupport

/// One recorded MPEG-TS segment of the timeshift ring.
public struct RingSegment: Sendable, Equatable {
    /// The media sequence number: increases by one per segment for the whole recording.
    public let sequence: Int
    /// The file's name in the ring's folder.
    public let fileName: String
    /// Seconds since the recording started.
    public let start: Double
    public let duration: Double
    public let bytes: Int
    /// The first segment after a recorder restart: its timestamps do not follow on.
    public let discontinuity: Bool
    /// When the segment began, by the wall clock (for a segment that follows on, the one
    /// before's plus its duration).
    public let began: Date
    /// Its lines in the playlist (date, duration, name), made once: with an hour's window
    /// the playlist has 3600 entries and is rebuilt every second.
    let playlistEntry: String

    init(sequence: Int, fileName: String, start: Double, duration: Double, bytes: Int, discontinuity: Bool, began: Date) {
        self.sequence = sequence
        self.fileName = fileName
        self.start = start
        self.duration = duration
        self.bytes = bytes
        self.discontinuity = discontinuity
        self.began = began
        playlistEntry = "#EXT-X-PROGRAM-DATE-TIME:\(began.formatted(Self.dateFormat))\n"
            + String(printf: "#EXTINF:%.6f,\n", duration) + fileName + "\n"
    }

    private static let dateFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    public var end: Double { start + duration }
}

/// The index of the timeshift ring: which segments exist, where each lies in the recording
/// timeline (seconds since recording started), and the live playlist that plays them.
/// Bounded by `window`: it keeps the newest segments that cover the window, so disk use
/// stays about one window (plus one segment). Pure: the caller deletes the files.
public struct SegmentRing: Sendable {
    /// Seconds to keep.
    public let window: Double
    public private(set) var segments: [RingSegment] = []
    /// Segments recorded in all, including those dropped.
    public private(set) var recordedCount = 0
    private var droppedDiscontinuities = 0
    private var nextIsDiscontinuity = false
    private var longestDuration = 0.0
    private var recordedEnd = 0.0

    public init(window: Double) {
        self.window = window
    }

    /// The newest recorded moment (seconds since recording started).
    public var edge: Double { recordedEnd }
    /// The oldest moment still in the ring.
    public var start: Double { segments.first?.start ?? recordedEnd }
    /// Seconds that can be played back.
    public var available: Double { edge - start }
    public var totalBytes: Int { segments.reduce(0) { $0 + $1.bytes } }
    /// The window is full: each new segment now pushes the oldest out.
    public var isSliding: Bool { recordedCount > segments.count }

    /// The next segment follows a gap (the recorder restarted).
    public mutating func markDiscontinuity() {
        if recordedCount > 0 { nextIsDiscontinuity = true }
    }

    /// Adds a closed segment at the edge and drops the oldest ones the window no longer
    /// needs. Returns the dropped segments, whose files the caller deletes.
    @discardableResult
    public mutating func append(fileName: String, duration: Double, bytes: Int, began: Date) -> [RingSegment] {
        // Program date-times follow the durations exactly (hlsdemux2 lines playlists up by
        // them); the clock is read afresh only at the start and after a gap.
        let previous = segments.last
        let start = (nextIsDiscontinuity ? nil : previous).map { $0.began.addingTimeInterval($0.duration) } ?? began
        let segment = RingSegment(sequence: recordedCount, fileName: fileName, start: recordedEnd,
                                  duration: max(0, duration), bytes: bytes, discontinuity: nextIsDiscontinuity, began: start)
        segments.append(segment)
        recordedCount += 1
        recordedEnd = segment.end
        nextIsDiscontinuity = false
        longestDuration = max(longestDuration, segment.duration)
        var dropped: [RingSegment] = []
        // Keep the smallest run of newest segments that still covers the window.
        while segments.count > 1, edge - segments[1].start >= window {
            let old = segments.removeFirst()
            if old.discontinuity { droppedDiscontinuities += 1 }
            dropped.append(old)
        }
        return dropped
    }

    public func contains(fileName: String) -> Bool { segments.contains { $0.fileName == fileName } }

    /// The segment holding recording time `time`, clamped to the ring.
    public func segment(at time: Double) -> RingSegment? {
        segments.last { $0.start <= time } ?? segments.first
    }

    /// RFC 8216 target duration: the longest segment ever, rounded to the nearest second
    /// (RFC 8216 4.3.3.1 compares EXTINF rounded that way; rounding up would turn a
    /// 1.0000000000000004 s segment into 2 and double hlsdemux2's distance from the edge).
    /// It never shrinks while the playlist lives.
    public var targetDuration: Int { max(1, Int(longestDuration.rounded())) }

    /// A live media playlist (no EXT-X-ENDLIST) of the ring, segment URIs relative.
    public func playlist() -> String {
        let first = segments.first
        let discontinuitySequence = droppedDiscontinuities + (first?.discontinuity == true ? 1 : 0)
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:\(targetDuration)\n"
            + "#EXT-X-MEDIA-SEQUENCE:\(first?.sequence ?? recordedCount)\n"
            + "#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuitySequence)\n"
        text.reserveCapacity(text.utf8.count + segments.count * 80)
        for segment in segments {
            if segment.discontinuity && segment.sequence != first?.sequence { text += "#EXT-X-DISCONTINUITY\n" }
            text += segment.playlistEntry
        }
        return text
    }
}
