/// Tag names of RFC 8216 (and the few rfc8216bis tags Marquee reads), and the split of a
/// playlist's text into classified lines.
enum Tag {
    static let header = "#EXTM3U"

    // Basic tags (s4.3.1)
    static let version = "#EXT-X-VERSION"

    // Media segment tags (s4.3.2)
    static let inf = "#EXTINF"
    static let byteRange = "#EXT-X-BYTERANGE"
    static let discontinuity = "#EXT-X-DISCONTINUITY"
    static let key = "#EXT-X-KEY"
    static let map = "#EXT-X-MAP"
    static let programDateTime = "#EXT-X-PROGRAM-DATE-TIME"
    static let dateRange = "#EXT-X-DATERANGE"
    static let gap = "#EXT-X-GAP"
    static let bitrate = "#EXT-X-BITRATE"

    // Media playlist tags (s4.3.3)
    static let targetDuration = "#EXT-X-TARGETDURATION"
    static let mediaSequence = "#EXT-X-MEDIA-SEQUENCE"
    static let discontinuitySequence = "#EXT-X-DISCONTINUITY-SEQUENCE"
    static let endList = "#EXT-X-ENDLIST"
    static let playlistType = "#EXT-X-PLAYLIST-TYPE"
    static let iFramesOnly = "#EXT-X-I-FRAMES-ONLY"

    // Master playlist tags (s4.3.4)
    static let media = "#EXT-X-MEDIA"
    static let streamInf = "#EXT-X-STREAM-INF"
    static let iFrameStreamInf = "#EXT-X-I-FRAME-STREAM-INF"
    static let sessionData = "#EXT-X-SESSION-DATA"
    static let sessionKey = "#EXT-X-SESSION-KEY"

    // Media or master playlist tags (s4.3.5, rfc8216bis s4.4.2.3)
    static let independentSegments = "#EXT-X-INDEPENDENT-SEGMENTS"
    static let start = "#EXT-X-START"
    static let define = "#EXT-X-DEFINE"

    /// Tags that may only appear in a media playlist.
    static let mediaOnly: Set<String> = [
        inf, byteRange, discontinuity, key, map, programDateTime, dateRange, gap, bitrate,
        targetDuration, mediaSequence, discontinuitySequence, endList, playlistType, iFramesOnly,
    ]
    /// Tags that may only appear in a master playlist. EXT-X-SESSION-KEY is left out on
    /// purpose: some packagers put it in media playlists and players accept it there.
    static let masterOnly: Set<String> = [media, streamInf, iFrameStreamInf, sessionData]
}

/// One non-blank line of a playlist.
struct PlaylistLine: Sendable {
    enum Kind: Sendable, Equatable {
        /// `#EXT...`: a tag, with the text after the first `:` (nil when there is no `:`).
        case tag(name: String, value: String?)
        /// Any other line starting with `#`.
        case comment
        /// Anything else: a URI.
        case uri(String)
    }

    let number: Int
    let kind: Kind
}

enum PlaylistLines {
    /// Splits text into lines (LF or CRLF), drops a leading BOM, trims surrounding blanks,
    /// skips blank lines and checks that the first line is `#EXTM3U`.
    static func split(_ text: String) throws -> [PlaylistLine] {
        var body = Substring(text)
        if body.first == "\u{FEFF}" { body = body.dropFirst() }
        var result: [PlaylistLine] = []
        var number = 0
        // Split on LF only; "\r\n" is one Character in Swift, so split on unicode scalars.
        for raw in body.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            let line = trim(Substring(raw))
            if number == 1 {
                guard line == Tag.header else { throw PlaylistError(line: 1, reason: .missingHeader) }
                continue
            }
            if line.isEmpty { continue }
            result.append(PlaylistLine(number: number, kind: classify(line)))
        }
        if number == 0 { throw PlaylistError(line: 1, reason: .missingHeader) }
        return result
    }

    static func classify(_ line: Substring) -> PlaylistLine.Kind {
        guard line.hasPrefix("#") else { return .uri(String(line)) }
        guard line.hasPrefix("#EXT") else { return .comment }
        if let colon = line.firstIndex(of: ":") {
            let name = String(line[..<colon])
            let value = String(line[line.index(after: colon)...])
            return .tag(name: name, value: value)
        }
        return .tag(name: String(line), value: nil)
    }

    static func trim(_ s: Substring) -> Substring {
        var s = s
        while let c = s.unicodeScalars.first, isBlank(c) { s = Substring(s.unicodeScalars.dropFirst()) }
        while let c = s.unicodeScalars.last, isBlank(c) { s = Substring(s.unicodeScalars.dropLast()) }
        return s
    }

    static func isBlank(_ c: Unicode.Scalar) -> Bool {
        c == " " || c == "\t" || c == "\r"
    }
}
