import FoundationEssentials
import HLS

/// The checks every HLS planning step shares: the playlist's own URL, parsing through the
/// project's RFC 8216 parser (never a second one), and the URLs of what will be fetched.
enum HLSOfflineSource {
    /// The playlist's URL: absolute and http(s), since every relative URI in it resolves
    /// against it and everything it leads to is fetched with libsoup.
    static func playlistURL(_ text: String) throws(HLSOfflineError) -> URL {
        guard let url = URL(string: text), url.scheme != nil else {
            throw .invalidSource("'\(text)' is not an absolute URL")
        }
        guard isFetchable(url) else { throw .unsupported("only http(s) playlists can be kept, not '\(text)'") }
        return url
    }

    static func parse(_ text: String, url: URL, importing definitions: [String: String] = [:]) throws(HLSOfflineError) -> Playlist {
        do {
            return try Playlist.parse(text, url: url, importing: definitions)
        } catch let error as PlaylistError {
            throw .invalidSource("\(url.absoluteString) is not a playlist Marquee reads: \(error)")
        } catch {
            throw .invalidSource("\(url.absoluteString) is not a playlist Marquee reads: \(error)")
        }
    }

    static func isFetchable(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased()
        return (scheme == "http" || scheme == "https") && url.host != nil
    }

    /// What the downloader asks for: the resolved absolute URL, query kept, fragment dropped
    /// (a fragment never reaches the origin, and two URIs that differ only there are one
    /// resource). `what` names the reference in the error ("segment", "EXT-X-MAP", …).
    static func fetchURL(_ resolved: URL?, uri: String, what: String, in playlist: URL) throws(HLSOfflineError) -> String {
        guard let resolved else {
            throw .invalidSource("the \(what) URI '\(uri)' in \(playlist.absoluteString) does not resolve to a URL")
        }
        guard isFetchable(resolved) else {
            throw .unsupported("only http(s) resources can be kept; the \(what) URI '\(uri)' in \(playlist.absoluteString) is not one")
        }
        let text = resolved.absoluteString
        guard let hash = text.firstIndex(of: "#") else { return text }
        return String(text[..<hash])
    }

    /// Why a media playlist cannot be kept as a whole, or nil when it can: only a playlist that
    /// can no longer change (EXT-X-ENDLIST, or PLAYLIST-TYPE VOD, which RFC 8216 s4.3.3.5 says
    /// cannot change) gives a complete copy; an I-frame only playlist is for trick play and
    /// plays nothing on its own.
    static func unkeepableReason(_ media: MediaPlaylist, url: URL) -> HLSOfflineError? {
        if media.isLive {
            return .unsupported("only VOD can be kept: \(url.absoluteString) has no EXT-X-ENDLIST, so it is a live or event playlist")
        }
        if media.iFramesOnly {
            return .unsupported("\(url.absoluteString) is an I-frame only playlist, which cannot be kept on its own")
        }
        if media.segments.isEmpty {
            return .invalidSource("\(url.absoluteString) has no segments")
        }
        return nil
    }
}
