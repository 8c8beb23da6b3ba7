import ControlAPI
import FoundationEssentials
import HLS

/// What of an HLS item is kept: one variant, its chosen audio and subtitle renditions, and the
/// master playlist that refers to their local copies. Pure: no network, no disk. The caller
/// fetches the master text, calls `choose`, then fetches each of `media` and plans it with
/// `HLSOfflineMedia.plan(playlist:url:folder:importing:)`.
///
/// Local layout (paths relative to the item's folder): `master.m3u8` (whatever name the
/// caller gives `masterPlaylist`), and per media playlist `<folder>/index.m3u8` with its files
/// under `<folder>/`. The master refers to `<folder>/index.m3u8`, a media playlist to its files
/// by their names without the `<folder>/` prefix: every reference is relative, none contains
/// "..", so the copy plays from any loopback URL it is served under.
public struct HLSOfflineSelection: Sendable, Equatable {
    /// The media playlists to fetch: the video variant first, then audio, then subtitles.
    /// A rendition muxed into the variant (EXT-X-MEDIA without URI) has none.
    public var media: [HLSOfflineMediaRef]
    /// The rewritten master: only the chosen variant (its attributes as the origin gave them,
    /// less VIDEO, and AUDIO or SUBTITLES when none of that group is kept) and the chosen
    /// renditions, with URIs to the local `<folder>/index.m3u8`.
    public var masterPlaylist: String
    /// The chosen variant's id as the player names it (`HLSVariantIDs`): `variant: "v2"`
    /// keeps what `/v1/player/variant {"id": "v2"}` plays. "v1" when the item's URL is a media
    /// playlist.
    public var variantID: String
    /// The master's EXT-X-DEFINE variables: pass them to `HLSOfflineMedia.plan(…importing:)`
    /// for media playlists that IMPORT them.
    public var definitions: [String: String]

    public init(media: [HLSOfflineMediaRef], masterPlaylist: String, variantID: String, definitions: [String: String] = [:]) {
        self.media = media
        self.masterPlaylist = masterPlaylist
        self.variantID = variantID
        self.definitions = definitions
    }

    /// Chooses from the playlist text at `url` (absolute, http(s)).
    ///
    /// - A master playlist: the variant by `variant` (nil is `highest`), then, in that variant's
    ///   groups, audio by `audio` and subtitles by `subtitles` (see `HLSOfflineChoice`).
    /// - A media playlist (no variants): it is the one video variant, "v1", kept whole; a
    ///   `variant` id other than "v1" is `unknown_variant`, as the player would say.
    public static func choose(playlist text: String, url: String, variant: LibraryVariantChoice?,
                              audio: LibraryRenditionChoice?, subtitles: LibraryRenditionChoice?) throws(HLSOfflineError) -> HLSOfflineSelection {
        let base = try HLSOfflineSource.playlistURL(url)
        switch try HLSOfflineSource.parse(text, url: base) {
        case let .media(playlist):
            if let reason = HLSOfflineSource.unkeepableReason(playlist, url: base) { throw reason }
            if case let .id(id)? = variant, id != "v1" {
                throw .unknownVariant("no variant '\(id)'; \(url) is a media playlist, its one variant is v1")
            }
            let ref = HLSOfflineMediaRef(url: try HLSOfflineSource.fetchURL(base, uri: url, what: "playlist", in: base),
                                         folder: "v", role: .video)
            return HLSOfflineSelection(media: [ref], masterPlaylist: HLSMasterWriter.single(variantURI: ref.playlistName),
                                       variantID: "v1")
        case let .master(master):
            return try choose(master: master, text: text, base: base, variant: variant, audio: audio, subtitles: subtitles)
        }
    }

    private static func choose(master: MasterPlaylist, text: String, base: URL, variant: LibraryVariantChoice?,
                               audio: LibraryRenditionChoice?, subtitles: LibraryRenditionChoice?) throws(HLSOfflineError) -> HLSOfflineSelection {
        guard !master.variants.isEmpty else {
            let detail = master.iFrameVariants.isEmpty ? "" : " (only I-frame playlists, which play nothing on their own)"
            throw .invalidSource("\(base.absoluteString) lists no variants to keep\(detail)")
        }
        let chosen = try HLSOfflineChoice.variant(in: master, choice: variant)
        let stream = master.variants[chosen.index]

        var folders = FolderNames()
        let videoURL = try HLSOfflineSource.fetchURL(stream.resolvedURL, uri: stream.uri, what: "variant", in: base)
        var refs = [HLSOfflineMediaRef(url: videoURL, folder: folders.claim("v", url: videoURL), role: .video)]

        let audioGroup = stream.audio.map { master.renditions(inGroup: $0, type: .audio) } ?? []
        let subtitleGroup = stream.subtitles.map { master.renditions(inGroup: $0, type: .subtitles) } ?? []
        var kept: [HLSMasterWriter.KeptRendition] = []
        let chosenGroups: [(renditions: [Rendition], role: HLSOfflineMediaRef.Role, prefix: String)] = [
            (HLSOfflineChoice.audio(audioGroup, choice: audio), .audio, "a"),
            (HLSOfflineChoice.subtitles(subtitleGroup, choice: subtitles), .subtitles, "s"),
        ]
        for (group, role, prefix) in chosenGroups {
            for rendition in group {
                guard let uri = rendition.uri else {
                    kept.append(.init(rendition: rendition, localURI: nil))  // muxed into the variant
                    continue
                }
                let what = role == .audio ? "audio rendition" : "subtitles rendition"
                let renditionURL = try HLSOfflineSource.fetchURL(rendition.resolvedURL, uri: uri, what: what, in: base)
                if let folder = folders.existing(url: renditionURL) {
                    kept.append(.init(rendition: rendition, localURI: HLSOfflineMediaRef.playlistName(folder: folder)))
                    continue
                }
                let folder = folders.claim("\(prefix)-\(HLSLocalNames.languagePart(rendition.language))", url: renditionURL)
                let ref = HLSOfflineMediaRef(url: renditionURL, folder: folder, role: role)
                refs.append(ref)
                kept.append(.init(rendition: rendition, localURI: ref.playlistName))
            }
        }
        if case let .group(id)? = stream.closedCaptions {
            // In-band captions (CEA-608/708): no files, only the attributes that name them.
            kept += master.renditions(inGroup: id, type: .closedCaptions).map { .init(rendition: $0, localURI: nil) }
        }
        let masterText = HLSMasterWriter.master(original: text, master: master, variant: stream,
                                                variantURI: refs[0].playlistName, renditions: kept)
        return HLSOfflineSelection(media: refs, masterPlaylist: masterText, variantID: chosen.id, definitions: master.definitions)
    }
}

/// A media playlist to fetch and keep under `folder`.
public struct HLSOfflineMediaRef: Sendable, Equatable {
    public enum Role: String, Sendable, Equatable {
        case video, audio, subtitles
    }

    /// Absolute http(s) URL of the media playlist.
    public var url: String
    /// One path component: "v" for the variant, "a-<language>" for audio, "s-<language>" for
    /// subtitles, with "-2", "-3", … when a language comes twice ("a-en-2"); "und" stands for
    /// a rendition without LANGUAGE.
    public var folder: String
    public var role: Role

    public init(url: String, folder: String, role: Role) {
        self.url = url
        self.folder = folder
        self.role = role
    }

    /// Where the rewritten media playlist goes, and what the master calls it: "<folder>/index.m3u8".
    public var playlistName: String { Self.playlistName(folder: folder) }

    static func playlistName(folder: String) -> String { "\(folder)/index.m3u8" }
}

/// Folder names, one per distinct media playlist URL.
private struct FolderNames {
    private var byURL: [String: String] = [:]
    private var taken: Set<String> = []

    func existing(url: String) -> String? { byURL[url] }

    /// `base`, or `base-2`, `base-3`, … when taken.
    mutating func claim(_ base: String, url: String) -> String {
        var name = base
        var n = 1
        while taken.contains(name) {
            n += 1
            name = "\(base)-\(n)"
        }
        taken.insert(name)
        byURL[url] = name
        return name
    }
}
