import FoundationEssentials

/// A media playlist: RFC 8216 s4.3.3.
public struct MediaPlaylist: Sendable, Equatable {
    public enum PlaylistType: String, Sendable, Equatable {
        case event = "EVENT"
        case vod = "VOD"
    }

    public var version: Int?
    /// EXT-X-TARGETDURATION. REQUIRED by the RFC; nil when a (non-conforming) playlist omits it.
    public var targetDuration: Int?
    /// EXT-X-MEDIA-SEQUENCE: the sequence number of the first segment (0 when absent).
    public var mediaSequence = 0
    /// EXT-X-DISCONTINUITY-SEQUENCE (0 when absent).
    public var discontinuitySequence = 0
    public var endList = false
    public var playlistType: PlaylistType?
    public var iFramesOnly = false
    public var independentSegments = false
    public var start: StartOffset?
    public var segments: [Segment] = []
    /// EXT-X-SESSION-KEY belongs in master playlists; kept here when a media playlist has it.
    public var sessionKeys: [Key] = []
    /// EXT-X-DEFINE variables in effect at the end of the playlist.
    public var definitions: [String: String] = [:]

    public init() {}

    /// The sum of the segment durations, in seconds.
    public var totalDuration: Double { segments.reduce(0) { $0 + $1.duration } }

    /// A live playlist may change: it has no EXT-X-ENDLIST and is not VOD.
    public var isLive: Bool { !endList && playlistType != .vod }
}

/// A byte range: `length` bytes starting at `offset` (EXT-X-BYTERANGE, RFC 8216 s4.3.2.2).
public struct ByteRange: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var length: Int
    public var offset: Int

    public init(length: Int, offset: Int) {
        self.length = length
        self.offset = offset
    }

    /// The offset just past the range (nil if it does not fit in an Int).
    public var end: Int? {
        let (sum, overflow) = offset.addingReportingOverflow(length)
        return overflow ? nil : sum
    }

    public var description: String { "\(length)@\(offset)" }
}

/// EXT-X-MAP: the media initialization section for the segments that follow it.
public struct MapInfo: Sendable, Equatable {
    public var uri: String
    public var resolvedURL: URL?
    public var byteRange: ByteRange?

    public init(uri: String, resolvedURL: URL? = nil, byteRange: ByteRange? = nil) {
        self.uri = uri
        self.resolvedURL = resolvedURL
        self.byteRange = byteRange
    }
}

/// One media segment: an EXTINF, the tags before it, and its URI line.
public struct Segment: Sendable, Equatable {
    public var uri: String
    public var resolvedURL: URL?
    /// EXTINF duration in seconds.
    public var duration: Double
    /// EXTINF title (the text after the comma); nil when empty.
    public var title: String?
    /// EXT-X-BYTERANGE with the offset made explicit (an absent offset continues the previous
    /// segment's range of the same resource).
    public var byteRange: ByteRange?
    /// EXT-X-DISCONTINUITY before this segment.
    public var discontinuity = false
    /// The EXT-X-KEY in effect (the last one before the segment); nil when no EXT-X-KEY came
    /// before, and `method == .none` after METHOD=NONE.
    public var key: Key?
    /// Every EXT-X-KEY in effect (several when they differ only in KEYFORMAT).
    public var keys: [Key] = []
    /// The EXT-X-MAP in effect.
    public var map: MapInfo?
    /// EXT-X-PROGRAM-DATE-TIME given for this segment.
    public var programDateTime: Date?
    /// EXT-X-GAP: the segment is absent and must not be loaded.
    public var gap = false
    /// The segment's media sequence number.
    public var sequence = 0
    /// The discontinuity sequence number of the segment.
    public var discontinuitySequence = 0

    public init(uri: String, resolvedURL: URL? = nil, duration: Double) {
        self.uri = uri
        self.resolvedURL = resolvedURL
        self.duration = duration
    }

    /// The IV to decrypt the segment with: the key's IV, or else the media sequence number
    /// (RFC 8216 s5.2). nil when the segment is not encrypted.
    public var initializationVector: [UInt8]? {
        guard let key, key.method != .none else { return nil }
        return key.iv ?? Key.implicitIV(sequence: sequence)
    }
}
