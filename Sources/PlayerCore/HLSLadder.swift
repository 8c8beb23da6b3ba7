import ControlAPI
import FoundationEssentials
import GStreamerKit
import HLS

/// What Marquee knows of an HLS master playlist: the variants in bandwidth order with short
/// stable ids ("v1" is the lowest; see `HLSVariantIDs`), and the alternate audio and subtitle
/// renditions.
struct HLSLadder: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        var variant: Variant
        /// The variant's media playlist, resolved against the master's URL.
        var url: String
    }

    /// An EXT-X-MEDIA rendition that playbin3 shows as a stream of its own.
    struct AlternateRendition: Sendable, Equatable {
        /// `.audio` for TYPE=AUDIO, `.text` for TYPE=SUBTITLES.
        var kind: MediaStream.Kind
        var name: String
        var language: String?
        var isDefault: Bool
    }

    /// In bandwidth order, lowest first.
    var entries: [Entry]
    /// Audio and subtitle renditions, in playlist order.
    var renditions: [AlternateRendition]
    /// The variant listed first in the master: where the demuxer starts in automatic mode.
    var firstListedID: String?

    init(master: MasterPlaylist) {
        let ranked = HLSVariantIDs.ranked(master)
        entries = ranked.map { item in
            let v = master.variants[item.index]
            return Entry(variant: Variant(id: item.id, bandwidth: v.bandwidth, averageBandwidth: v.averageBandwidth,
                                          width: v.resolution?.width, height: v.resolution?.height, frameRate: v.frameRate,
                                          codecs: v.codecs, audio: v.audio),
                         url: v.resolvedURL?.absoluteString ?? v.uri)
        }
        firstListedID = ranked.first { $0.index == 0 }?.id
        renditions = master.renditions.compactMap { rendition in
            let kind: MediaStream.Kind
            switch rendition.type {
            case .audio: kind = .audio
            case .subtitles: kind = .text
            default: return nil  // VIDEO renditions and CLOSED-CAPTIONS are not listed as tracks.
            }
            return AlternateRendition(kind: kind, name: rendition.name, language: rendition.language,
                                      isDefault: rendition.isDefault)
        }
    }

    var variants: [Variant] { entries.map(\.variant) }

    func renditions(_ kind: MediaStream.Kind) -> [AlternateRendition] { renditions.filter { $0.kind == kind } }

    /// The rendition behind one of hlsdemux2's streams: it names them "<type>-<NAME>"
    /// ("audio-French") and gives a language tag only sometimes.
    func rendition(of stream: MediaStream) -> AlternateRendition? {
        renditions.first { $0.kind == stream.kind && stream.id.hasSuffix("-\($0.name)") }
    }

    func entry(id: String) -> Entry? { entries.first { $0.variant.id == id } }

    /// The variant a downloaded URL belongs to: its media playlist, or a segment under the
    /// playlist's folder (the longest matching folder wins, so "v1/" never claims "v10/").
    func entry(forDownloaded url: String) -> Entry? {
        if let exact = entries.first(where: { $0.url == url }) { return exact }
        let candidates = entries.compactMap { entry -> (Entry, Int)? in
            guard let slash = entry.url.lastIndex(of: "/") else { return nil }
            let folder = String(entry.url[...slash])
            return url.hasPrefix(folder) ? (entry, folder.count) : nil
        }
        // Variants sharing one folder cannot be told apart by URL.
        let best = candidates.max { $0.1 < $1.1 }
        guard let best, candidates.filter({ $0.1 == best.1 }).count == 1 else { return nil }
        return best.0
    }
}
