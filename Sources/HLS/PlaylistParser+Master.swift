import FoundationEssentials

extension PlaylistParser {
    /// The master playlist loop: every EXT-X-STREAM-INF takes the next URI line (comments,
    /// blank lines and other tags may come between); a URI line with no EXT-X-STREAM-INF
    /// before it, and an EXT-X-STREAM-INF with no URI after it, are errors.
    mutating func parseMaster(_ lines: [PlaylistLine]) throws -> MasterPlaylist {
        var playlist = MasterPlaylist()
        var pendingStreamInf: AttributeList?

        for line in lines {
            switch line.kind {
            case .comment:
                continue
            case let .uri(text):
                guard let streamInf = pendingStreamInf else {
                    throw PlaylistError(line: line.number, reason: .unexpectedURI(text))
                }
                let uri = try uriLine(text, line: line.number)
                playlist.variants.append(try VariantStream(streamInf, uri: uri, base: url))
                pendingStreamInf = nil
            case let .tag(name, value):
                if let common = try commonTag(name, value, line: line.number) {
                    common.apply(to: &playlist)
                    continue
                }
                switch name {
                case Tag.streamInf:
                    if let previous = pendingStreamInf {
                        throw PlaylistError(line: previous.line, reason: .missingURI(tag: Tag.streamInf))
                    }
                    pendingStreamInf = try attributes(value, tag: name, line: line.number)
                case Tag.iFrameStreamInf:
                    let a = try attributes(value, tag: name, line: line.number)
                    let uri = try a.require("URI") { a.quotedString($0) }
                    playlist.iFrameVariants.append(try VariantStream(a, uri: uri, base: url))
                case Tag.media:
                    playlist.renditions.append(try Rendition(try attributes(value, tag: name, line: line.number), base: url))
                case Tag.sessionData:
                    playlist.sessionData.append(try SessionData(try attributes(value, tag: name, line: line.number), base: url))
                case Tag.sessionKey:
                    playlist.sessionKeys.append(try Key(try attributes(value, tag: name, line: line.number), base: url))
                default:
                    continue  // unknown tags are ignored (RFC 8216 s4.1)
                }
            }
        }
        if let pending = pendingStreamInf {
            throw PlaylistError(line: pending.line, reason: .missingURI(tag: Tag.streamInf))
        }
        playlist.definitions = variables.values
        return playlist
    }
}
