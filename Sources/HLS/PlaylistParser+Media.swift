import FoundationEssentials

extension PlaylistParser {
    /// What the tags before a segment's URI line have said about it so far.
    private struct PendingSegment {
        var infLine: Int?
        var duration = 0.0
        var title: String?
        var byteRange: (length: Int, offset: Int?, line: Int)?
        var discontinuity = false
        var programDateTime: Date?
        var gap = false
    }

    /// The media playlist loop: EXTINF and the other media segment tags collect into a pending
    /// segment that the next URI line completes. EXT-X-KEY and EXT-X-MAP apply to every
    /// segment after them until the next one.
    mutating func parseMedia(_ lines: [PlaylistLine]) throws -> MediaPlaylist {
        var playlist = MediaPlaylist()
        var pending = PendingSegment()
        var keys: [Key] = []
        var segmentSinceKey = false
        var map: MapInfo?
        var segmentLines: [Int] = []

        for line in lines {
            let number = line.number
            switch line.kind {
            case .comment:
                continue
            case let .uri(text):
                guard pending.infLine != nil else {
                    throw PlaylistError(line: number, reason: .unexpectedURI(text))
                }
                let uri = try uriLine(text, line: number)
                var segment = Segment(uri: uri, resolvedURL: URLResolution.resolve(uri, against: url),
                                      duration: pending.duration)
                segment.title = pending.title
                segment.discontinuity = pending.discontinuity
                segment.programDateTime = pending.programDateTime
                segment.gap = pending.gap
                segment.keys = keys
                segment.key = keys.last
                segment.map = map
                if let range = pending.byteRange {
                    segment.byteRange = try resolveByteRange(range, uri: uri, previous: playlist.segments.last)
                }
                playlist.segments.append(segment)
                segmentLines.append(number)
                segmentSinceKey = true
                pending = PendingSegment()
            case let .tag(name, value):
                if let common = try commonTag(name, value, line: number) {
                    common.apply(to: &playlist)
                    continue
                }
                switch name {
                case Tag.inf:
                    if let previous = pending.infLine {
                        throw PlaylistError(line: previous, reason: .missingURI(tag: Tag.inf))
                    }
                    let (duration, title) = try extinf(value, line: number)
                    pending.infLine = number
                    pending.duration = duration
                    pending.title = title
                case Tag.byteRange:
                    let (length, offset) = try byteRange(value ?? "", tag: name, line: number)
                    pending.byteRange = (length, offset, number)
                case Tag.discontinuity:
                    pending.discontinuity = true
                case Tag.programDateTime:
                    let text = String(PlaylistLines.trim(Substring(value ?? "")))
                    guard let date = DateTime.parse(text) else {
                        throw PlaylistError(line: number, reason: .malformedTag(tag: name, detail: "invalid date-time '\(text)'"))
                    }
                    pending.programDateTime = date
                case Tag.gap:
                    pending.gap = true
                case Tag.key:
                    let key = try Key(try attributes(value, tag: name, line: number), base: url)
                    if segmentSinceKey { keys = [] }
                    segmentSinceKey = false
                    keys.removeAll { $0.keyFormat == key.keyFormat }
                    keys.append(key)
                case Tag.map:
                    let a = try attributes(value, tag: name, line: number)
                    let uri = try a.require("URI") { a.quotedString($0) }
                    var range: ByteRange?
                    if let text = a.quotedString("BYTERANGE") {
                        let (length, offset) = try byteRange(text, tag: name, line: number)
                        range = ByteRange(length: length, offset: offset ?? 0)
                        guard range?.end != nil else { throw PlaylistError(line: number, reason: .overflow(text)) }
                    }
                    map = MapInfo(uri: uri, resolvedURL: URLResolution.resolve(uri, against: url), byteRange: range)
                case Tag.targetDuration:
                    playlist.targetDuration = try targetDuration(value, line: number)
                case Tag.mediaSequence:
                    playlist.mediaSequence = try integerValue(value, tag: name, line: number)
                case Tag.discontinuitySequence:
                    playlist.discontinuitySequence = try integerValue(value, tag: name, line: number)
                case Tag.endList:
                    playlist.endList = true
                case Tag.playlistType:
                    let text = String(PlaylistLines.trim(Substring(value ?? "")))
                    guard let type = MediaPlaylist.PlaylistType(rawValue: text) else {
                        throw PlaylistError(line: number, reason: .malformedTag(tag: name, detail: "expected EVENT or VOD, got '\(text)'"))
                    }
                    playlist.playlistType = type
                case Tag.iFramesOnly:
                    playlist.iFramesOnly = true
                case Tag.sessionKey:
                    playlist.sessionKeys.append(try Key(try attributes(value, tag: name, line: number), base: url))
                default:
                    continue  // EXT-X-DATERANGE, EXT-X-BITRATE and unknown tags are ignored
                }
            }
        }
        if let infLine = pending.infLine {
            throw PlaylistError(line: infLine, reason: .missingURI(tag: Tag.inf))
        }
        try numberSegments(&playlist, lines: segmentLines)
        playlist.definitions = variables.values
        return playlist
    }

    /// `#EXTINF:<duration>,[<title>]`; the comma is tolerated when missing.
    private func extinf(_ value: String?, line: Int) throws -> (Double, String?) {
        let text = value ?? ""
        let parts = text.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
        let durationText = String(PlaylistLines.trim(parts.first ?? ""))
        guard let duration = NumberParsing.decimalFloat(durationText) else {
            throw PlaylistError(line: line, reason: .malformedTag(tag: Tag.inf, detail: "invalid duration '\(durationText)'"))
        }
        var title: String?
        if parts.count > 1 {
            let t = PlaylistLines.trim(parts[1])
            if !t.isEmpty { title = String(t) }
        }
        return (duration, title)
    }

    /// `<n>[@<o>]`.
    private func byteRange(_ text: String, tag: String, line: Int) throws -> (Int, Int?) {
        let trimmed = PlaylistLines.trim(Substring(text))
        let parts = trimmed.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard let length = try NumberParsing.decimalInteger(String(parts.first ?? ""), line: line) else {
            throw PlaylistError(line: line, reason: .malformedTag(tag: tag, detail: "invalid byte range '\(trimmed)'"))
        }
        guard parts.count == 2 else { return (length, nil) }
        guard let offset = try NumberParsing.decimalInteger(String(parts[1]), line: line) else {
            throw PlaylistError(line: line, reason: .malformedTag(tag: tag, detail: "invalid byte range '\(trimmed)'"))
        }
        return (length, offset)
    }

    /// Makes an EXT-X-BYTERANGE offset explicit: when absent, the range starts where the
    /// previous segment's range ended, and that segment must be a sub-range of the same resource.
    private func resolveByteRange(_ range: (length: Int, offset: Int?, line: Int), uri: String,
                                  previous: Segment?) throws -> ByteRange {
        let offset: Int
        if let explicit = range.offset {
            offset = explicit
        } else {
            guard let previous, previous.uri == uri, let previousRange = previous.byteRange,
                  let end = previousRange.end else {
                throw PlaylistError(line: range.line, reason: .malformedTag(
                    tag: Tag.byteRange,
                    detail: "no offset, and the previous segment is not a sub-range of the same resource"))
            }
            offset = end
        }
        let result = ByteRange(length: range.length, offset: offset)
        guard result.end != nil else { throw PlaylistError(line: range.line, reason: .overflow("\(range.length)@\(offset)")) }
        return result
    }

    /// EXT-X-TARGETDURATION is a decimal-integer; a decimal-float is tolerated and rounded up.
    private func targetDuration(_ value: String?, line: Int) throws -> Int {
        let text = String(PlaylistLines.trim(Substring(value ?? "")))
        if let n = try NumberParsing.decimalInteger(text, line: line) { return n }
        guard let d = NumberParsing.decimalFloat(text) else {
            throw PlaylistError(line: line, reason: .malformedTag(tag: Tag.targetDuration, detail: "invalid duration '\(text)'"))
        }
        guard let n = Int(exactly: d.rounded(.up)) else { throw PlaylistError(line: line, reason: .overflow(text)) }
        return n
    }

    /// Gives each segment its media sequence and discontinuity sequence numbers.
    private func numberSegments(_ playlist: inout MediaPlaylist, lines: [Int]) throws {
        var discontinuities = playlist.discontinuitySequence
        for index in playlist.segments.indices {
            let line = index < lines.count ? lines[index] : 0
            let (sequence, overflow) = playlist.mediaSequence.addingReportingOverflow(index)
            if overflow { throw PlaylistError(line: line, reason: .overflow("media sequence \(playlist.mediaSequence) + \(index)")) }
            playlist.segments[index].sequence = sequence
            if playlist.segments[index].discontinuity {
                let (next, overflow) = discontinuities.addingReportingOverflow(1)
                if overflow { throw PlaylistError(line: line, reason: .overflow("discontinuity sequence")) }
                discontinuities = next
            }
            playlist.segments[index].discontinuitySequence = discontinuities
        }
    }
}
