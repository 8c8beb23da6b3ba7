import ControlAPI
import FoundationEssentials
import Glibc
import TextSupport

/// What an `open` request resolved to: the URI GStreamer gets and what the API reports.
public struct ResolvedSource: Sendable, Equatable {
    /// The URI set on playbin3's `uri` property: a property value, never pipeline text.
    public var playbackURI: String
    /// The source's own URL when `playbackURI` goes through the header proxy.
    public var originURI: String?
    public var info: SourceInfo
    /// The built-in demo paints a clock over the test pattern.
    public var isDemo: Bool

    /// A file on this machine: never live, and it opens in well under a second. The offline
    /// library's file copies (`marquee-copy://`, read in-process by marqueecopysrc) count as
    /// local files too: no live check, no HLS demuxer, no master fetch, the short watchdogs.
    public var isLocalFile: Bool { playbackURI.hasPrefix("file:") || isLocalCopy }

    /// The offline library's file copy, read in-process (`marquee-copy://TOKEN`).
    public var isLocalCopy: Bool { playbackURI.hasPrefix(Self.localCopyScheme + "://") }

    /// The scheme of the offline library's file copies; never accepted from a request (it is
    /// not among `SourceResolver.supportedSchemes`).
    public static let localCopyScheme = "marquee-copy"

    /// Where the source really is (for the daemon's own requests).
    public var sourceURI: String { originURI ?? playbackURI }
}

/// Turns a user's `uri` (a URI or a plain path) into a playable source, or a clear error.
/// Local files are checked here so a missing file is a 404 at once rather than a pipeline
/// error a moment later.
public struct SourceResolver: Sendable {
    /// The URI that names the built-in demo source.
    public static let demoURI = "demo://"
    /// testsrcbin's URI handler: a live test pattern and a tone, no media files needed.
    static let demoPlaybackURI = "testbin://video,is-live=true,pattern=smpte+audio,is-live=true,wave=sine,volume=0.1"

    /// Every scheme a source may have (a plain path counts as `file`).
    public static let supportedSchemes: Set<String> = ["file", "http", "https", "udp", "rtsp", "rtsps", "demo"]

    /// When non-empty, local files must lie under one of these folders.
    public var mediaRoots: [String]
    /// The schemes sources may have (`--allow-scheme`); nil: all supported ones. Applies to
    /// what plays (open, queue items, picture-in-picture) and to http(s) subtitle URLs;
    /// local subtitle files and watermark images are governed by the media roots.
    public var allowedSchemes: Set<String>?

    public init(mediaRoots: [String] = [], allowedSchemes: Set<String>? = nil) {
        self.mediaRoots = mediaRoots.map { URL(fileURLWithPath: $0).standardizedFileURL.resolvingSymlinksInPath().path }
        self.allowedSchemes = allowedSchemes
    }

    public func resolve(_ request: OpenRequest) throws(APIError) -> ResolvedSource {
        let text = request.uri.trimmingHorizontalWhitespace()
        let isDemo = text == "demo" || text == "demo:" || text == Self.demoURI
        let scheme = isDemo ? "demo" : Self.scheme(of: text) ?? "file"
        if let allowedSchemes, Self.supportedSchemes.contains(scheme), !allowedSchemes.contains(scheme) {
            throw APIError(.forbidden, "'\(scheme)' sources are not allowed on this player (allowed: \(allowedSchemes.sorted().joined(separator: ", ")))")
        }
        if isDemo {
            return ResolvedSource(playbackURI: Self.demoPlaybackURI,
                                  info: SourceInfo(uri: Self.demoURI, kind: .live, contentId: request.contentId), isDemo: true)
        }
        guard let scheme = Self.scheme(of: text) else {
            return try resolveFile(path: text, request: request)
        }
        switch scheme {
        case "file":
            guard let url = URL(string: text), url.isFileURL, !url.path.isEmpty else {
                throw APIError(.invalidArgument, "'\(text)' is not a valid file URI")
            }
            return try resolveFile(path: url.path, request: request)
        case "http", "https":
            guard let url = URL(string: text), url.host != nil else {
                throw APIError(.invalidArgument, "'\(text)' is not a valid \(scheme) URI")
            }
            let looksHLS = url.path.lowercased().hasSuffix(".m3u8") || request.kind == .hls
            return ResolvedSource(playbackURI: url.absoluteString,
                                  info: SourceInfo(uri: url.absoluteString, kind: looksHLS ? .hls : .file, contentId: request.contentId),
                                  isDemo: false)
        case "udp", "rtsp", "rtsps":
            // Live network sources: urisourcebin (in playbin3 or the timeshift recorder)
            // opens them from the URI property. udp://HOST:PORT, multicast groups too.
            guard let url = URL(string: text), url.host != nil, scheme != "udp" || url.port != nil else {
                throw APIError(.invalidArgument, "'\(text)' is not a valid \(scheme) URI (udp://HOST:PORT, rtsp://HOST/PATH)")
            }
            return ResolvedSource(playbackURI: text,
                                  info: SourceInfo(uri: text, kind: .live, contentId: request.contentId), isDemo: false)
        default:
            throw APIError(.unsupportedURI, "the '\(scheme)' scheme is not supported (use a path, file://, http(s)://, udp://, rtsp:// or demo://)")
        }
    }

    /// The scheme of `text` when it has one (RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":").
    static func scheme(of text: String) -> String? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let candidate = text[..<colon]
        guard let first = candidate.first, first.isLetter, first.isASCII,
              candidate.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else { return nil }
        return candidate.lowercased()
    }

    private func resolveFile(path: String, request: OpenRequest) throws(APIError) -> ResolvedSource {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let real = try checkedFile(path: path)
        return ResolvedSource(playbackURI: real.absoluteString,
                              info: SourceInfo(uri: url.absoluteString, kind: .file, contentId: request.contentId),
                              isDemo: false)
    }

    /// Whether a subtitle is fetched over the network (an http(s) URL) rather than read from a file.
    public static func isRemoteSubtitle(_ text: String) -> Bool {
        let scheme = Self.scheme(of: text.trimmingHorizontalWhitespace())
        return scheme == "http" || scheme == "https"
    }

    /// An http(s) subtitle URL, checked: a valid URL with a host, its scheme allowed by
    /// `--allow-scheme` (as a source's would be).
    public func remoteSubtitleURL(_ text: String) throws(APIError) -> String {
        let trimmed = text.trimmingHorizontalWhitespace()
        let scheme = Self.scheme(of: trimmed) ?? ""
        if let allowedSchemes, !allowedSchemes.contains(scheme) {
            throw APIError(.forbidden, "'\(scheme)' subtitles are not allowed on this player (allowed: \(allowedSchemes.sorted().joined(separator: ", ")))")
        }
        guard scheme == "http" || scheme == "https", let url = URL(string: trimmed), url.host != nil else {
            throw APIError(.invalidArgument, "'\(trimmed)' is not a valid http(s) URL")
        }
        return url.absoluteString
    }

    /// A local file named by a path or `file://` URI (subtitle files, watermark images),
    /// checked as media files are: inside the media roots, a readable regular file. Returns
    /// its real path.
    public func localFile(_ text: String) throws(APIError) -> URL {
        let trimmed = text.trimmingHorizontalWhitespace()
        guard let scheme = Self.scheme(of: trimmed) else { return try checkedFile(path: trimmed) }
        guard scheme == "file", let url = URL(string: trimmed), url.isFileURL, !url.path.isEmpty else {
            throw APIError(.unsupportedURI, "'\(trimmed)' must be a local file: a path or a file:// URI")
        }
        return try checkedFile(path: url.path)
    }

    private func checkedFile(path: String) throws(APIError) -> URL {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        // The real path is both what the root check sees and what plays, so a symlink swapped
        // after the check cannot lead elsewhere.
        let real = url.resolvingSymlinksInPath()
        // The root check comes first, so that nothing reveals which paths exist outside the roots.
        if !mediaRoots.isEmpty {
            guard mediaRoots.contains(where: { real.path == $0 || real.path.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }) else {
                throw APIError(.forbidden, "\(url.path) is outside the allowed media folders")
            }
        }
        var info = stat()
        guard stat(real.path, &info) == 0 else { throw APIError(.notFound, "no such file: \(url.path)") }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw APIError(.invalidArgument, "\(url.path) is a directory")
        // A FIFO, socket or device would block the open inside GStreamer's state change.
        default: throw APIError(.invalidArgument, "\(url.path) is not a regular file")
        }
        guard access(real.path, R_OK) == 0 else { throw APIError(.forbidden, "\(url.path) is not readable") }
        return real
    }
}
