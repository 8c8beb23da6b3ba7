/// What the header proxy does with an origin's body: an HLS playlist is read whole and its
/// URIs rewritten (`PlaylistRewriter`); anything else (segments, keys, progressive files)
/// is streamed through as it arrives (`ProxyExchange`).
enum ProxiedBody: Equatable {
    case playlist
    case passThrough
    /// The type does not say, and too few bytes are in to tell: read on.
    case undecided

    /// Leading whitespace (and a byte-order mark) past this, with no tag yet, is not a playlist.
    static let sniffLimit = 4096
    private static let tag = Array("#EXTM3U".utf8)

    /// Decides by the Content-Type's media type (lowercased, no parameters) and, when that
    /// is missing or generic (application/octet-stream, text/plain: origins serve
    /// playlists as both), by the first bytes of the body: a playlist starts with
    /// `#EXTM3U`. `complete`: `prefix` is the whole body.
    static func kind(mediaType: String?, prefix: [UInt8], complete: Bool) -> ProxiedBody {
        if let type = mediaType {
            // application/vnd.apple.mpegurl, application/x-mpegurl, audio/mpegurl, audio/x-mpegurl
            if type.contains("mpegurl") { return .playlist }
            // Media types that are never a playlist: streamed without waiting for a byte.
            if type.hasPrefix("video/") || type.hasPrefix("audio/") || type.hasPrefix("image/") || type == "application/mp4" {
                return .passThrough
            }
        }
        var start = prefix.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < prefix.count, [0x20, 0x09, 0x0D, 0x0A].contains(prefix[start]) { start += 1 }
        let rest = prefix[start...]
        if rest.count >= tag.count { return rest.starts(with: tag) ? .playlist : .passThrough }
        // A shorter prefix that is not the tag's beginning settles it too.
        if !tag.starts(with: rest) || complete || start > sniffLimit { return .passThrough }
        return .undecided
    }
}

/// Flow control of one streamed body: the next chunk is read from the origin only while
/// fewer than `window` chunks wait to be written to the client. souphttpsrc reads a
/// progressive file at playback speed, so without this the proxy would read a fast
/// origin to the end and hold the file in memory; with it, the origin is held back by TCP
/// and the proxy holds at most `window` chunks per stream. Pure: inputs in, actions out.
struct StreamFlow: Equatable {
    enum Action: Equatable {
        /// Read the next chunk from the origin.
        case read
        /// Append the chunk just read to the client's response.
        case append
        /// The body is all in: end the response.
        case complete
        /// The origin broke off: end the response so that the client sees a short body.
        case abort
    }

    enum ReadOutcome: Equatable { case chunk, end, failure }

    let window: Int
    /// Chunks appended to the response and not yet written to the client.
    private(set) var unwritten = 0
    private(set) var reading = false
    private(set) var ended = false

    init(window: Int) { self.window = window }

    /// The response starts with `prefilled` chunks (read while deciding what the body is);
    /// `ended`: they are the whole body.
    mutating func start(prefilled: Int, ended: Bool) -> [Action] {
        unwritten = prefilled
        if ended {
            self.ended = true
            return [.complete]
        }
        return readIfRoom()
    }

    mutating func readFinished(_ outcome: ReadOutcome) -> [Action] {
        reading = false
        switch outcome {
        case .chunk:
            unwritten += 1
            return [.append] + readIfRoom()
        case .end:
            ended = true
            return [.complete]
        case .failure:
            ended = true
            return [.abort]
        }
    }

    /// The server wrote one chunk to the client's socket.
    mutating func wroteChunk() -> [Action] {
        unwritten = max(0, unwritten - 1)
        return readIfRoom()
    }

    private mutating func readIfRoom() -> [Action] {
        guard !reading, !ended, unwritten < window else { return [] }
        reading = true
        return [.read]
    }
}
