import ControlAPI
import FoundationEssentials
import GLibRuntime
import GStreamerKit
import HLS
import HTTPFetch

/// HLS: Marquee's own read of the master playlist (the quality ladder and the alternate
/// renditions, which playbin3 does not expose), variant pinning, and which variant is
/// downloading now.
extension Player {
    /// Fetches the source's URL alongside playbin3 (which fetches it too, a few hundred
    /// bytes twice) and, when it is an HLS playlist, lists its variants. A source is HLS by
    /// its response (`#EXTM3U` or an mpegurl content type), not by its suffix.
    func probeForHLS(_ session: PlaybackSession) {
        let id = session.id
        session.masterFetch = fetcher.get(session.source.sourceURI, headers: session.requestHeaders) { [weak self] result in
            guard let self, let session = self.session, session.id == id else { return }
            session.masterFetch = nil
            switch result {
            case .success(let resource):
                if Self.looksLikeHLS(resource) { self.adoptPlaylist(resource, in: session) }
            case .failure(let failure):
                // The server's own answer is clearer than what the pipeline reports for it
                // ("Not Found" without a status), so an HTTP error fails the open at once.
                guard let status = failure.status, status >= 400, !self.machine.prerolled else { return }
                self.log.warning("source request failed", ["uri": session.source.info.uri, "status": "\(status)"])
                self.feed(.failed(APIError(.networkError, "HTTP \(status) for \(session.source.info.uri)")))
            }
        }
    }

    static func looksLikeHLS(_ resource: FetchedResource) -> Bool {
        let type = resource.contentType?.lowercased() ?? ""
        return type.contains("mpegurl") || resource.body.starts(with: Array("#EXTM3U".utf8))
            || resource.body.starts(with: [0xEF, 0xBB, 0xBF] + Array("#EXTM3U".utf8))
    }

    private func adoptPlaylist(_ resource: FetchedResource, in session: PlaybackSession) {
        let playlist: Playlist
        do {
            playlist = try Playlist.parse(data: resource.body, url: URL(string: resource.finalURL))
        } catch {
            // playbin3 reads the playlist itself and reports what it cannot play.
            log.warning("cannot parse the HLS playlist", ["uri": resource.finalURL, "error": "\(error)"])
            return
        }
        session.playlistLoaded = true
        if var source = lastSource, source.kind != .hls {
            source.kind = .hls
            lastSource = source
            publish(.source(source))
        }
        let master: MasterPlaylist
        switch playlist {
        case .media(let media):
            markLive(media.isLive, in: session)
            return
        case .master(let parsed):
            master = parsed
            if let first = master.variants.first?.resolvedURL { probeLiveness(of: first.absoluteString, in: session) }
        }
        let ladder = HLSLadder(master: master)
        session.ladder = ladder
        // hlsdemux2 starts on the first variant listed unless pinned, and reports switches
        // only: until the first report, that is what it downloads.
        if session.variantState.current == nil {
            session.variantState.current = session.variantState.selected ?? ladder.firstListedID
        }
        session.streams = session.streams.map { ladder.describe($0) }
        log.info("hls ladder", ["variants": ladder.variants.map { "\($0.id)=\($0.bandwidth)" }.joined(separator: ",")])
        publish(.variants(ladder.variants))
        publish(.variant(session.variantState))
    }

    /// A master playlist does not say whether the stream is live; its first variant's media
    /// playlist does (no EXT-X-ENDLIST). One more small request, with the session's headers.
    private func probeLiveness(of mediaPlaylistURL: String, in session: PlaybackSession) {
        let id = session.id
        session.livenessFetch = fetcher.get(mediaPlaylistURL, headers: session.requestHeaders) { [weak self] result in
            guard let self, let session = self.session, session.id == id else { return }
            session.livenessFetch = nil
            guard case .success(let resource) = result,
                  case .media(let media)? = try? Playlist.parse(data: resource.body, url: URL(string: resource.finalURL))
            else { return }  // playbin3 reports what it cannot read itself.
            self.markLive(media.isLive, in: session)
        }
    }

    private func markLive(_ live: Bool, in session: PlaybackSession) {
        guard live, var source = lastSource, !source.live else { return }
        source.live = true
        lastSource = source
        log.info("live hls", ["uri": source.uri])
        publish(.source(source))
        updateLiveTimer()
    }

    /// POST /v1/player/variant
    func selectVariant(_ request: VariantRequest) throws(APIError) {
        let session = try requireSource()
        guard let ladder = session.ladder else {
            // Only HLS masters have variants; "auto" is always the (already active) default.
            guard request.id == "auto" else { throw APIError(.unknownVariant, "no variant '\(request.id)' (this source lists none)") }
            return
        }
        if request.id == "auto" {
            session.variantPin.pinned = nil
            session.variantState.mode = .auto
            session.variantState.selected = nil
        } else {
            guard let entry = ladder.entry(id: request.id) else {
                throw APIError(.unknownVariant, "no variant '\(request.id)'; the ladder is \(ladder.variants.map(\.id).joined(separator: ", "))")
            }
            session.variantPin.pinned = VariantPin.limits(pinning: VariantPin.rate(of: entry.variant),
                                                          ladder: ladder.variants.map(VariantPin.rate(of:)))
            session.variantState.mode = .manual
            session.variantState.selected = entry.variant.id
        }
        let demuxer = session.hlsDemuxer
        log.info("variant", ["mode": session.variantState.mode.rawValue, "selected": session.variantState.selected ?? "-",
                             "demuxer": demuxer == nil ? "not yet created" : "configured"])
        if let demuxer {
            session.variantPin.configure(demuxer)
            // Flush what is buffered so the next segments come from the new choice (VOD;
            // a live playlist refreshes quickly on its own).
            if session.duration != nil { flushAtCurrentPosition() }
        }
        publish(.variant(session.variantState))
    }

    /// hlsdemux2 reports each download; the URL tells which variant it came from.
    func noteDownload(_ fields: [String: String], in session: PlaybackSession) {
        guard let ladder = session.ladder, let reported = fields["uri"],
              case let uri = session.proxyToken == nil ? reported : proxy.origin(of: reported),
              let entry = ladder.entry(forDownloaded: uri), entry.variant.id != session.variantState.current else { return }
        session.variantState.current = entry.variant.id
        publish(.variant(session.variantState))
    }

    /// hlsdemux2 lists alternate renditions in playlist order and decodebin3 picks the
    /// first of each kind; the HLS spec says the one marked DEFAULT=YES plays at start, and
    /// subtitles without a DEFAULT=YES rendition stay off (Marquee has no language
    /// preference to apply AUTOSELECT with). Once, after preroll.
    func applyDefaultRendition(in session: PlaybackSession) {
        guard let ladder = session.ladder, !session.defaultRenditionApplied else { return }
        session.defaultRenditionApplied = true
        var selection = currentSelection()
        for kind in [MediaStream.Kind.audio, .text] where !ladder.renditions(kind).isEmpty {
            let ofKind = session.streams.filter { $0.kind == kind }
            let wanted = ofKind.first { ladder.rendition(of: $0)?.isDefault == true }
            // Audio with no DEFAULT=YES keeps decodebin3's pick: something must play.
            if wanted == nil && kind == .audio { continue }
            selection = selection.filter { id in !ofKind.contains { $0.id == id } } + (wanted.map { [$0.id] } ?? [])
        }
        if Set(selection) != Set(currentSelection()) { sendSelection(selection) }
    }
}

extension HLSLadder {
    /// Names an alternate rendition's stream after the master playlist.
    func describe(_ stream: MediaStream) -> MediaStream {
        guard let rendition = rendition(of: stream) else { return stream }
        var described = stream
        described.title = described.title ?? rendition.name
        described.language = described.language ?? rendition.language
        return described
    }
}
