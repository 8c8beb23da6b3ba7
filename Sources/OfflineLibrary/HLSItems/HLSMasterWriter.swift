import HLS

/// Writes the master playlist of a kept HLS item.
///
/// Written from the parsed master rather than edited line by line, since most of it goes:
/// other variants, I-frame playlists (nothing here fetches them), VIDEO renditions (the
/// variant's own stream is its picture), renditions not chosen, EXT-X-SESSION-KEY and
/// EXT-X-CONTENT-STEERING (they would send the player to the origin), EXT-X-SESSION-DATA with a
/// URI (the same), and EXT-X-DEFINE (every value is written substituted, so nothing refers to
/// a variable any more). Kept: EXT-X-VERSION, EXT-X-INDEPENDENT-SEGMENTS, EXT-X-START (as
/// written), EXT-X-SESSION-DATA with a VALUE, the chosen renditions and the variant with the
/// attributes the origin gave them.
enum HLSMasterWriter {
    struct KeptRendition {
        var rendition: Rendition
        /// "<folder>/index.m3u8"; nil when the rendition has no URI (muxed into the variant).
        var localURI: String?
    }

    static let variantOrder = [
        "BANDWIDTH", "AVERAGE-BANDWIDTH", "SCORE", "CODECS", "SUPPLEMENTAL-CODECS", "RESOLUTION", "FRAME-RATE",
        "HDCP-LEVEL", "ALLOWED-CPC", "VIDEO-RANGE", "REQ-VIDEO-LAYOUT", "STABLE-VARIANT-ID", "PROGRAM-ID",
        "AUDIO", "VIDEO", "SUBTITLES", "CLOSED-CAPTIONS", "PATHWAY-ID", "NAME",
    ]
    static let renditionOrder = [
        "TYPE", "GROUP-ID", "NAME", "LANGUAGE", "ASSOC-LANGUAGE", "STABLE-RENDITION-ID", "DEFAULT", "AUTOSELECT",
        "FORCED", "INSTREAM-ID", "BIT-DEPTH", "SAMPLE-RATE", "CHARACTERISTICS", "CHANNELS", "URI",
    ]

    static func master(original text: String, master: MasterPlaylist, variant: VariantStream, variantURI: String,
                       renditions: [KeptRendition]) -> String {
        var lines = ["#EXTM3U"]
        if let version = master.version { lines.append("#EXT-X-VERSION:\(version)") }
        if master.independentSegments { lines.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        // As written: rewriting its signed-decimal-float could only lose digits.
        if master.start != nil, let start = HLSPlaylistLines.split(text).last(where: { $0.kind == .tag("#EXT-X-START") }) {
            lines.append(start.text)
        }
        for data in master.sessionData where data.uri == nil {
            var attributes: [(name: String, value: HLSAttributeWriter.Value)] = [("DATA-ID", .quoted(data.dataID))]
            if let value = data.value { attributes.append(("VALUE", .quoted(value))) }
            if let language = data.language { attributes.append(("LANGUAGE", .quoted(language))) }
            lines.append("#EXT-X-SESSION-DATA:" + HLSAttributeWriter.write(attributes))
        }
        for kept in renditions {
            var raw = kept.rendition.attributes
            raw["URI"] = kept.localURI
            lines.append("#EXT-X-MEDIA:" + HLSAttributeWriter.write(HLSAttributeWriter.attributes(raw, order: renditionOrder)))
        }
        var raw = variant.attributes
        raw["VIDEO"] = nil
        if !renditions.contains(where: { $0.rendition.type == .audio }) { raw["AUDIO"] = nil }
        if !renditions.contains(where: { $0.rendition.type == .subtitles }) { raw["SUBTITLES"] = nil }
        var attributes = HLSAttributeWriter.attributes(raw, order: variantOrder)
        if variant.closedCaptions == ClosedCaptionsNone.value, let i = attributes.firstIndex(where: { $0.name == "CLOSED-CAPTIONS" }) {
            attributes[i].value = .plain("NONE")  // the enumerated NONE, not a group named "NONE"
        }
        lines.append("#EXT-X-STREAM-INF:" + HLSAttributeWriter.write(attributes))
        lines.append(variantURI)
        return lines.joined(separator: "\n") + "\n"
    }

    /// The master of an item whose URL is a media playlist: that playlist as the one variant.
    /// BANDWIDTH is REQUIRED (RFC 8216 s4.3.4.2) but the source gave none to copy; a single
    /// variant is never switched, so any value does, and 1 divides safely.
    static func single(variantURI: String) -> String {
        "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n\(variantURI)\n"
    }
}

/// `VariantStream.ClosedCaptions.none`, spelled so that it is not read as Optional's `.none`.
private enum ClosedCaptionsNone {
    static let value: VariantStream.ClosedCaptions? = VariantStream.ClosedCaptions.none
}
