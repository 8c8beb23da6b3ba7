import ControlAPI
import FoundationEssentials
import GLibRuntime
import GStreamerKit
import HLS
import HTTPFetch

/// HLS commands: variant pinning and the default renditions. The ladder, the pin and the
/// fetches that find them are the session's `HLSController`.
extension Player {
    /// POST /v1/player/variant
    func selectVariant(_ request: VariantRequest) throws(APIError) {
        let session = try requireSource()
        guard let hls = session.hls, let ladder = hls.ladder else {
            // Only HLS masters have variants; "auto" is always the (already active) default.
            guard request.id == "auto" else { throw APIError(.unknownVariant, "no variant '\(request.id)' (this source lists none)") }
            return
        }
        if request.id == "auto" {
            hls.variantPin.pinned = nil
            hls.variantState.mode = .auto
            hls.variantState.selected = nil
        } else {
            guard let entry = ladder.entry(id: request.id) else {
                throw APIError(.unknownVariant, "no variant '\(request.id)'; the ladder is \(ladder.variants.map(\.id).joined(separator: ", "))")
            }
            hls.variantPin.pinned = VariantPin.limits(pinning: VariantPin.rate(of: entry.variant),
                                                          ladder: ladder.variants.map(VariantPin.rate(of:)))
            hls.variantState.mode = .manual
            hls.variantState.selected = entry.variant.id
        }
        let demuxer = hls.demuxer
        log.info("variant", ["mode": hls.variantState.mode.rawValue, "selected": hls.variantState.selected ?? "-",
                             "demuxer": demuxer == nil ? "not yet created" : "configured"])
        if let demuxer {
            hls.variantPin.configure(demuxer)
            // Flush what is buffered so the next segments come from the new choice (VOD;
            // a live playlist refreshes quickly on its own).
            if session.duration != nil { flushAtCurrentPosition() }
        }
        publish(.variant(hls.variantState))
    }

    /// hlsdemux2 reports each download; the URL tells which variant it came from.
    func noteDownload(_ fields: [String: String], in session: PlaybackSession) {
        guard let hls = session.hls, hls.ladder != nil, let reported = fields["uri"],
              hls.noteDownload(session.source.originURI == nil ? reported : proxy.origin(of: reported)) else { return }
        publish(.variant(hls.variantState))
    }

    /// hlsdemux2 lists alternate renditions in playlist order and decodebin3 picks the
    /// first of each kind; the HLS spec says the one marked DEFAULT=YES plays at start, and
    /// subtitles without a DEFAULT=YES rendition stay off (Marquee has no language
    /// preference to apply AUTOSELECT with). Once, after preroll.
    func applyDefaultRendition(in session: PlaybackSession) {
        guard let hls = session.hls, let ladder = hls.ladder, !hls.defaultRenditionApplied else { return }
        hls.defaultRenditionApplied = true
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
