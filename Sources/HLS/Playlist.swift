import FoundationEssentials

/// A parsed HLS playlist (RFC 8216): either a master (multivariant) playlist or a media playlist.
public enum Playlist: Sendable, Equatable {
    case master(MasterPlaylist)
    case media(MediaPlaylist)

    /// Parses playlist text.
    ///
    /// - Parameters:
    ///   - url: where the playlist came from; relative URIs are resolved against it and
    ///     `EXT-X-DEFINE:QUERYPARAM=` reads its query. Without it, only absolute URIs get a
    ///     `resolvedURL`.
    ///   - parentDefinitions: the variables of the master playlist that led to this media
    ///     playlist, for `EXT-X-DEFINE:IMPORT=` (pass `master.definitions`).
    /// - Throws: `PlaylistError` for any malformed input; never traps.
    public static func parse(_ text: String, url: URL?,
                             importing parentDefinitions: [String: String] = [:]) throws -> Playlist {
        var parser = PlaylistParser(url: url, imports: parentDefinitions)
        return try parser.parse(text)
    }

    /// Parses UTF-8 bytes, with or without a byte order mark.
    public static func parse(data: Data, url: URL?,
                             importing parentDefinitions: [String: String] = [:]) throws -> Playlist {
        guard let text = String(data: data, encoding: .utf8) else {
            throw PlaylistError(line: 0, reason: .invalidEncoding)
        }
        return try parse(text, url: url, importing: parentDefinitions)
    }

    public var master: MasterPlaylist? {
        if case let .master(m) = self { return m }
        return nil
    }

    public var media: MediaPlaylist? {
        if case let .media(m) = self { return m }
        return nil
    }
}

/// EXT-X-START: where playback should start.
public struct StartOffset: Sendable, Equatable {
    /// Seconds from the start of the playlist; negative values count from its end.
    public var timeOffset: Double
    public var precise: Bool

    public init(timeOffset: Double, precise: Bool = false) {
        self.timeOffset = timeOffset
        self.precise = precise
    }
}
