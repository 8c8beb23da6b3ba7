import ControlAPI
import FoundationEssentials
import GLibRuntime
import GStreamerKit
import HLS
import HTTPFetch
import Logging

/// HLS for one session: Marquee's own read of the master playlist (the quality ladder and
/// the alternate renditions, which playbin3 does not expose), the variant pin hlsdemux2 is
/// configured with, and which variant is downloading now. Owns the master and liveness
/// fetches, cancelled by `close()` (the session's). Variant commands and the default
/// rendition are the player's (`Player+HLS.swift`); they read and set this state.
/// GLib thread.
@GLibActor
final class HLSController {
    /// The session that owns this controller (it outlives it: a closed controller does nothing).
    private unowned let session: PlaybackSession
    private weak var host: (any SessionHost)?
    private let fetcher: HTTPFetcher
    private let log = Logger(category: "player")

    /// The ladder from our own parse of the master: nil until fetched, or not HLS.
    private(set) var ladder: HLSLadder?
    /// The pin hlsdemux2 is configured with, and the quality in force.
    let variantPin = VariantPin()
    var variantState = VariantState()
    /// Marquee read the source's HLS playlist: the URL the user gave works, so a failing
    /// segment or variant is an origin fault to ride out, even before the first frame.
    private(set) var playlistLoaded = false
    /// The master's DEFAULT=YES renditions were selected (once, after preroll).
    var defaultRenditionApplied = false

    /// Sees hlsdemux2 as playbin3 creates it, to pin a variant before its first segment.
    private var setupHook: ElementSetupHook?
    private var masterFetch: FetchHandle?
    /// The first variant's media playlist, read to tell live HLS from VOD.
    private var livenessFetch: FetchHandle?
    private var closed = false

    static let demuxerFactory = "hlsdemux2"

    /// Hooks hlsdemux2's creation now, before the pipeline starts.
    init(session: PlaybackSession, host: any SessionHost, fetcher: HTTPFetcher) {
        self.session = session
        self.host = host
        self.fetcher = fetcher
        let pin = variantPin
        setupHook = ElementSetupHook(playbin: session.playbin, factories: [Self.demuxerFactory]) { _, demuxer in pin.configure(demuxer) }
    }

    /// The running hlsdemux2, once playbin3 created one.
    var demuxer: Element? { setupHook?.element(factory: Self.demuxerFactory) }

    func close() {
        closed = true
        masterFetch?.cancel()
        masterFetch = nil
        livenessFetch?.cancel()
        livenessFetch = nil
        setupHook?.disconnect()
        setupHook = nil
    }

    /// Fetches the source's URL alongside playbin3 (which fetches it too, a few hundred
    /// bytes twice) and, when it is an HLS playlist, lists its variants. A source is HLS by
    /// its response (`#EXTM3U` or an mpegurl content type), not by its suffix. Any other
    /// body is dropped after its first bytes: a progressive file is not downloaded (whole
    /// into memory, up to the 64 MiB cap) only to be told apart.
    func fetchMaster() {
        masterFetch = fetcher.getIfPlaylist(session.source.sourceURI, headers: session.requestHeaders) { [weak self] result in
            // A cancelled fetch still completes (with an error): a closed controller ignores it.
            guard let self, !self.closed, let host = self.host else { return }
            self.masterFetch = nil
            switch result {
            case .success(let resource):
                if Self.looksLikeHLS(resource) { self.adoptPlaylist(resource) }
            case .failure(let failure):
                // The server's own answer is clearer than what the pipeline reports for it
                // ("Not Found" without a status), so an HTTP error fails the open at once.
                guard let status = failure.status, status >= 400, !host.machine.prerolled else { return }
                let uri = self.session.source.info.uri
                self.log.warning("source request failed", ["uri": uri, "status": "\(status)"])
                host.feed(.failed(APIError(.networkError, "HTTP \(status) for \(uri)")))
            }
        }
    }

    static func looksLikeHLS(_ resource: FetchedResource) -> Bool {
        let type = resource.contentType?.lowercased() ?? ""
        return type.contains("mpegurl") || resource.body.starts(with: Array("#EXTM3U".utf8))
            || resource.body.starts(with: [0xEF, 0xBB, 0xBF] + Array("#EXTM3U".utf8))
    }

    private func adoptPlaylist(_ resource: FetchedResource) {
        guard let host else { return }
        let playlist: Playlist
        do {
            playlist = try Playlist.parse(data: resource.body, url: URL(string: resource.finalURL))
        } catch {
            // playbin3 reads the playlist itself and reports what it cannot play.
            log.warning("cannot parse the HLS playlist", ["uri": resource.finalURL, "error": "\(error)"])
            return
        }
        playlistLoaded = true
        if session.source.info.kind != .hls {
            session.source.info.kind = .hls
            host.sourceInfoChanged(in: session)
        }
        let master: MasterPlaylist
        switch playlist {
        case .media(let media):
            markLive(media.isLive)
            return
        case .master(let parsed):
            master = parsed
            if let first = master.variants.first?.resolvedURL { fetchLiveness(of: first.absoluteString) }
        }
        let ladder = HLSLadder(master: master)
        self.ladder = ladder
        // hlsdemux2 starts on the first variant listed unless pinned, and reports switches
        // only: until the first report, that is what it downloads.
        if variantState.current == nil {
            variantState.current = variantState.selected ?? ladder.firstListedID
        }
        session.streams = session.streams.map { ladder.describe($0) }
        log.info("hls ladder", ["variants": ladder.variants.map { "\($0.id)=\($0.bandwidth)" }.joined(separator: ",")])
        host.publish(.variants(ladder.variants))
        host.publish(.variant(variantState))
    }

    /// A master playlist does not say whether the stream is live; its first variant's media
    /// playlist does (no EXT-X-ENDLIST). One more small request, with the session's headers.
    private func fetchLiveness(of mediaPlaylistURL: String) {
        livenessFetch = fetcher.get(mediaPlaylistURL, headers: session.requestHeaders) { [weak self] result in
            guard let self, !self.closed else { return }
            self.livenessFetch = nil
            guard case .success(let resource) = result,
                  case .media(let media)? = try? Playlist.parse(data: resource.body, url: URL(string: resource.finalURL))
            else { return }  // playbin3 reports what it cannot read itself.
            self.markLive(media.isLive)
        }
    }

    private func markLive(_ live: Bool) {
        guard live, !session.source.info.live, let host else { return }
        session.source.info.live = true
        log.info("live hls", ["uri": session.source.info.uri])
        host.sourceInfoChanged(in: session)
    }

    /// hlsdemux2 reports each download (`uri`, as it asked for it: `origin` maps a proxied
    /// URL back); the URL tells which variant it came from. True when the variant changed.
    func noteDownload(_ uri: String) -> Bool {
        guard let ladder, let entry = ladder.entry(forDownloaded: uri), entry.variant.id != variantState.current else { return false }
        variantState.current = entry.variant.id
        return true
    }
}
