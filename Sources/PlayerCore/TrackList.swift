import ControlAPI
import GStreamerKit
import Subtitles

/// Maps playbin3's streams to the API's tracks. Track ids are short and stable per source
/// ("audio-1", "audio-2", "subtitle-1": 1-based in collection order) so they are easy to type;
/// the full GStreamer stream id is accepted too.
enum TrackList {
    static func tracks(streams: [MediaStream], selected: Set<String>) -> Tracks {
        var result = Tracks()
        for kind in [MediaStream.Kind.audio, .video, .text] {
            let list = streams.filter { $0.kind == kind }.enumerated().map { index, s in
                Track(id: "\(prefix(kind))-\(index + 1)", language: s.language, title: s.title, codec: s.codec,
                      selected: selected.contains(s.id))
            }
            switch kind {
            case .audio: result.audio = list
            case .video: result.video = list
            default: result.subtitle = list
            }
        }
        return result
    }

    static func stream(for id: String, kind: MediaStream.Kind, in streams: [MediaStream]) -> MediaStream? {
        let ofKind = streams.filter { $0.kind == kind }
        if let exact = ofKind.first(where: { $0.id == id }) { return exact }
        let p = prefix(kind) + "-"
        guard id.hasPrefix(p), let n = Int(id.dropFirst(p.count)), n >= 1, n <= ofKind.count else { return nil }
        return ofKind[n - 1]
    }

    /// The first subtitle stream whose language `wanted` names (`LanguageTag.matches`).
    static func subtitleStream(language wanted: String, in streams: [MediaStream]) -> MediaStream? {
        streams.first { $0.kind == .text && LanguageTag.matches(wanted, $0.language) }
    }

    private static func prefix(_ kind: MediaStream.Kind) -> String {
        switch kind {
        case .audio: return "audio"
        case .video: return "video"
        default: return "subtitle"
        }
    }
}
