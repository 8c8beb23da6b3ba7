import FoundationEssentials
import HLS

/// The files of one kept media playlist and its rewritten text. Pure: no network, no disk.
///
/// Names, all under `<folder>/`: segments "00001.ts", "00002.ts", … in playback order, maps
/// "init.mp4", "init-2.mp4", …, keys "keys/0.key", "keys/1.key", …; the remote extension is
/// kept when it is a safe one, else there is none. The rewrite changes only the references
/// (segment URI lines, EXT-X-KEY and EXT-X-MAP URIs) and what would reach the origin or no
/// longer applies; everything else stays as written (`HLSOfflineMediaPlanner` has the details).
public struct HLSOfflineMedia: Sendable, Equatable {
    /// In playback order (each segment's keys, then its EXT-X-MAP, then the segment), each
    /// remote resource once: segments that are byte ranges of one resource share one file,
    /// and the rewritten playlist keeps their EXT-X-BYTERANGE against its local name.
    public var files: [HLSOfflineFile]
    /// The rewritten playlist, to store as "<folder>/index.m3u8". It refers to the files by
    /// their names less the "<folder>/" prefix, and always ends with EXT-X-ENDLIST.
    public var playlist: String

    public init(files: [HLSOfflineFile], playlist: String) {
        self.files = files
        self.playlist = playlist
    }

    /// Plans the media playlist `text` fetched from `url` (absolute, http(s)) for keeping
    /// under `folder` (one path component, as `HLSOfflineMediaRef.folder`).
    ///
    /// - Parameter definitions: the master's EXT-X-DEFINE variables
    ///   (`HLSOfflineSelection.definitions`), for a playlist that IMPORTs them.
    /// - Throws: `unsupported` for a live or event playlist (only VOD can be kept), an I-frame
    ///   only playlist, a key that is not fetched over http(s) or a method other than AES-128
    ///   and SAMPLE-AES; `invalid_source` for text the parser rejects, a master playlist, no
    ///   segments, or a URI that does not resolve.
    /// `keysFromService`: the item's keys come from a key service (API-2 §2), so a key URI of
    /// any scheme (`skd://…`) is kept: it is what the key service is asked for.
    public static func plan(playlist text: String, url: String, folder: String,
                            importing definitions: [String: String] = [:], keysFromService: Bool = false) throws(HLSOfflineError) -> HLSOfflineMedia {
        guard !folder.contains("/"), HLSLocalNames.isSafeComponent(Substring(folder)) else {
            throw .invalidArgument("the folder '\(folder)' is not one path component of [A-Za-z0-9._-]")
        }
        let base = try HLSOfflineSource.playlistURL(url)
        guard case let .media(playlist) = try HLSOfflineSource.parse(text, url: base, importing: definitions) else {
            throw .invalidSource("\(url) is a master playlist where a media playlist was expected")
        }
        if let reason = HLSOfflineSource.unkeepableReason(playlist, url: base) { throw reason }
        let plan = try HLSOfflineMediaPlanner.files(for: playlist, base: base, folder: folder, keysFromService: keysFromService)
        let rewritten = try HLSOfflineMediaPlanner.rewrite(text, playlist: playlist, plan: plan)
        return HLSOfflineMedia(files: plan.files, playlist: rewritten)
    }
}

/// One file to fetch for a kept media playlist.
public struct HLSOfflineFile: Sendable, Equatable {
    public enum Role: String, Sendable, Equatable {
        /// Media segments.
        case segment
        /// An EXT-X-MAP media initialization section. A resource that is both (one fMP4 file
        /// addressed by byte ranges, its first range the map) is one file, named and typed by
        /// its first use: the map.
        case initSegment
        /// An AES-128 or SAMPLE-AES key, fetched with the item's `keyHeaders`.
        case key
    }

    /// Relative to the item's folder: "v/00001.ts", "v/init.mp4", "v/keys/0.key".
    public var name: String
    /// Absolute http(s) URL, query kept, fragment dropped.
    public var url: String
    public var role: Role

    public init(name: String, url: String, role: Role) {
        self.name = name
        self.url = url
        self.role = role
    }
}
