import FoundationEssentials

/// Resolves a URI from a playlist against the playlist's own URL (RFC 8216 s4.1: relative
/// URIs are relative to the playlist that contains them; RFC 3986 s5 does the rest).
enum URLResolution {
    /// The absolute URL for `uri`, or nil when it cannot be made into one (a relative URI
    /// with no playlist URL, or text that no URL can hold).
    static func resolve(_ uri: String, against base: URL?) -> URL? {
        guard !uri.isEmpty else { return nil }
        if let base {
            return URL(string: uri, relativeTo: base)?.absoluteURL
        }
        guard let url = URL(string: uri), url.scheme != nil else { return nil }
        return url
    }
}
