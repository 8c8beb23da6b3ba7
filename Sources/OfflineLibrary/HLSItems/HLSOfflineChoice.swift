import ControlAPI
import HLS
import PlayerCore

/// The choices of an HLS item (`variant`, `audio`, `subtitles` of `POST /v1/library`), read as
/// wishes that always leave a playable copy: a copy smaller or in another language than asked
/// is worth more on a plane than a failed download, and the item says what was kept.
enum HLSOfflineChoice {
    struct ChosenVariant: Equatable {
        /// Index in `MasterPlaylist.variants`.
        var index: Int
        var id: String
    }

    /// The variant to keep, among the master's EXT-X-STREAM-INF entries (I-frame playlists are
    /// never candidates: they play nothing on their own).
    /// - `nil`, `highest`: the highest BANDWIDTH; `lowest`: the lowest.
    /// - an id: the variant the player names so (`HLSVariantIDs`); an id the ladder does not
    ///   have is `unknown_variant`, listing the ids.
    /// - `{"maxHeight": N}`: the highest BANDWIDTH whose RESOLUTION is at most N lines tall.
    ///   When none is (or no variant says its RESOLUTION), the lowest: the limit is there to
    ///   save space, and the smallest copy is the nearest to it, where an error would leave
    ///   nothing to watch.
    /// For `highest`, `lowest` and `maxHeight`, audio-only variants (CODECS with audio codecs
    /// only, no RESOLUTION) are passed over while the ladder has a variant with video: "lowest"
    /// means the smallest picture, not a film without one. An id still picks them.
    static func variant(in master: MasterPlaylist, choice: LibraryVariantChoice?) throws(HLSOfflineError) -> ChosenVariant {
        let ranked = HLSVariantIDs.ranked(master)  // lowest first
        if case let .id(id)? = choice {
            guard let match = ranked.first(where: { $0.id == id }) else {
                throw .unknownVariant("no variant '\(id)'; the ladder is \(ranked.map(\.id).joined(separator: ", "))")
            }
            return ChosenVariant(index: match.index, id: match.id)
        }
        let withVideo = ranked.filter { !isAudioOnly(master.variants[$0.index]) }
        let candidates = withVideo.isEmpty ? ranked : withVideo
        let picked: HLSVariantIDs.Ranked?
        switch choice ?? .highest {
        case .highest, .id:
            picked = candidates.last
        case .lowest:
            picked = candidates.first
        case let .maxHeight(limit):
            picked = candidates.last(where: { item in
                guard let height = master.variants[item.index].resolution?.height else { return false }
                return height <= limit
            }) ?? candidates.first
        }
        guard let picked else { throw .invalidSource("the master playlist lists no variants") }
        return ChosenVariant(index: picked.index, id: picked.id)
    }

    static func isAudioOnly(_ variant: VariantStream) -> Bool {
        variant.resolution == nil && variant.videoCodec == nil && variant.audioCodec != nil
    }

    /// Audio renditions to keep from the variant's AUDIO group (`group`, playlist order):
    /// - `all`: every one;
    /// - languages: those whose LANGUAGE matches one of them (`languageMatches`); when none
    ///   does, the default one, since a copy without sound plays nothing anyone wants;
    /// - `nil`: the DEFAULT=YES one, or else the first.
    static func audio(_ group: [Rendition], choice: LibraryRenditionChoice?) -> [Rendition] {
        let defaultOne = group.first(where: \.isDefault) ?? group.first
        switch choice {
        case .all?:
            return group
        case let .languages(wanted)?:
            let matching = group.filter { languageMatches($0.language, wanted) }
            return matching.isEmpty ? defaultOne.map { [$0] } ?? [] : matching
        case nil:
            return defaultOne.map { [$0] } ?? []
        }
    }

    /// Subtitle renditions to keep from the variant's SUBTITLES group: opt-in, so `nil` keeps
    /// none; `all` every one; languages those that match (possibly none).
    static func subtitles(_ group: [Rendition], choice: LibraryRenditionChoice?) -> [Rendition] {
        switch choice {
        case .all?: return group
        case let .languages(wanted)?: return group.filter { languageMatches($0.language, wanted) }
        case nil: return []
        }
    }

    /// A BCP 47 prefix match on whole subtags, either way, ignoring case and reading "_" as "-":
    /// "en" matches "en", "en-US" and "EN-gb"; "en-US" matches "en" (English is what was
    /// asked for); "en" does not match "eng" or "enm". A rendition without LANGUAGE matches
    /// nothing.
    static func languageMatches(_ language: String?, _ wanted: [String]) -> Bool {
        guard let language = language.map(normalized), !language.isEmpty else { return false }
        return wanted.map(normalized).contains { want in
            !want.isEmpty && (language == want || language.hasPrefix(want + "-") || want.hasPrefix(language + "-"))
        }
    }

    private static func normalized(_ tag: String) -> String {
        String(tag.lowercased().map { $0 == "_" ? "-" : $0 }).trimmingBlanks()
    }
}

private extension String {
    func trimmingBlanks() -> String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" { s = s.dropLast() }
        return String(s)
    }
}
