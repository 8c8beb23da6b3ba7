import FoundationEssentials
import TextSupport

/// Rewrites every URI of an HLS playlist (URI lines and `URI="..."` attributes) through
/// `map(absoluteURL, isKey)`, resolving relative URIs against `base` first. Pure text work:
/// the playlist's meaning is untouched.
enum PlaylistRewriter {
    static func rewrite(_ text: String, base: URL, map: (String, Bool) -> String) -> String {
        var out: [String] = []
        // Split on Character newlines: "\r\n" is one Character in Swift, so splitting on "\n"
        // alone would leave CRLF playlists in one piece.
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let line = String(rawLine)
            let trimmed = line.trimmingHorizontalWhitespace()
            if trimmed.isEmpty {
                out.append(line)
            } else if trimmed.hasPrefix("#") {
                let isKey = trimmed.hasPrefix("#EXT-X-KEY") || trimmed.hasPrefix("#EXT-X-SESSION-KEY")
                out.append(rewriteAttributeURI(line, base: base, isKey: isKey, map: map))
            } else {
                out.append(map(resolve(trimmed, base: base), false))
            }
        }
        return out.joined(separator: "\n")
    }

    private static func rewriteAttributeURI(_ line: String, base: URL, isKey: Bool, map: (String, Bool) -> String) -> String {
        guard let start = line.firstRange(of: "URI=\"") else { return line }
        let rest = line[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return line }
        let uri = String(rest[..<end])
        // A data URI carries its key in the playlist: left alone.
        guard !uri.hasPrefix("data:") else { return line }
        // A key URI with a scheme (skd://…) is what a key service is asked for: kept exactly
        // as written; only a relative one is resolved.
        let target = isKey && URL(string: uri)?.scheme != nil ? uri : resolve(uri, base: base)
        return String(line[..<start.upperBound]) + map(target, isKey) + String(rest[end...])
    }

    static func resolve(_ uri: String, base: URL) -> String {
        URL(string: uri, relativeTo: base)?.absoluteURL.absoluteString ?? uri
    }
}
