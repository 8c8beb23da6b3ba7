import ControlAPI
import Foundation
import HLS

/// What Marquee knows of an HLS master playlist: the variants in bandwidth order with short
/// stable ids ("v1" is the lowest), and the alternate audio renditions.
struct HLSLadder: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        var variant: Variant
        /// The variant's media playlist, resolved against the master's URL.
        var url: String
    }

    struct AudioRendition: Sendable, Equatable {
        var name: String
        var language: String?
        var isDefault: Bool
    }

    /// In bandwidth order, lowest first.
    var entries: [Entry]
    var audio: [AudioRendition]
    /// The variant listed first in the master: where the demuxer starts in automatic mode.
    var firstListedID: String?

    init(master: MasterPlaylist) {
        let sorted = master.variants.enumerated().sorted {
            ($0.element.bandwidth, $0.offset) < ($1.element.bandwidth, $1.offset)
        }
        var ids: [Int: String] = [:]
        entries = sorted.enumerated().map { rank, item in
            let v = item.element
            let id = "v\(rank + 1)"
            ids[item.offset] = id
            return Entry(variant: Variant(id: id, bandwidth: v.bandwidth, averageBandwidth: v.averageBandwidth,
                                          width: v.resolution?.width, height: v.resolution?.height, frameRate: v.frameRate,
                                          codecs: v.codecs, audio: v.audio),
                         url: v.resolvedURL?.absoluteString ?? v.uri)
        }
        firstListedID = ids[0]
        audio = master.renditions.filter { $0.type == .audio }.map {
            AudioRendition(name: $0.name, language: $0.language, isDefault: $0.isDefault)
        }
    }

    var variants: [Variant] { entries.map(\.variant) }

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
