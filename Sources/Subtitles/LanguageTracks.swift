import FoundationEssentials
import TextSupport

/// One language of a subtitle file: a SAMI file holds one `<P Class=...>` per language in
/// each `<SYNC>` (the StarPlayer manual picks the language by class), and drawing them all
/// at once put Korean and English on top of each other.
public struct LanguageTrack: Sendable, Equatable {
    /// The class's `lang:` (as written, e.g. "ko-KR"); nil for a file with one language
    /// or none named.
    public var language: String?
    /// What the file calls the language (a SAMI class's `Name:`, "Korean"), if it does.
    public var name: String?
    public var cues: [Cue]
}

extension SubtitleDocument {
    /// The file split by language: one track per language its cues name, in the order
    /// they first appear; cues naming none (no class, or a class without `lang:`) belong to
    /// every track, as they are drawn whichever language is chosen. A file with fewer than
    /// two languages is one track holding all its cues.
    public var languageTracks: [LanguageTrack] {
        var order: [String] = []
        var written: [String: String] = [:]  // lowercased → as first written
        for cue in cues {
            guard let language = cue.language, !language.isEmpty else { continue }
            let key = language.lowercased()
            if written[key] == nil {
                written[key] = language
                order.append(key)
            }
        }
        guard order.count > 1 else {
            return [LanguageTrack(language: order.first.flatMap { written[$0] }, name: order.first.flatMap { languageNames[$0] }, cues: cues)]
        }
        return order.map { key in
            LanguageTrack(language: written[key], name: languageNames[key], cues: cues.filter { cue in
                guard let language = cue.language, !language.isEmpty else { return true }
                return language.lowercased() == key
            })
        }
    }
}

/// Language tags as a viewer asks for them ("ko") and as files write them ("ko-KR", "KO").
public enum LanguageTag {
    /// Whether `tag` is the language `wanted` names, case-insensitively: the same tag, or a
    /// more specific one (`ko` matches `ko-KR` and `ko_KR`; `ko-KR` does not match `ko-KP`).
    public static func matches(_ wanted: String, _ tag: String?) -> Bool {
        guard let tag else { return false }
        let want = normalised(wanted), have = normalised(tag)
        guard !want.isEmpty else { return false }
        return have == want || have.hasPrefix(want + "-")
    }

    /// The first of `tags` that `wanted` matches (its index).
    public static func firstMatch(_ wanted: String, in tags: [String?]) -> Int? {
        tags.firstIndex { matches(wanted, $0) }
    }

    private static func normalised(_ tag: String) -> String {
        tag.trimmingWhitespace().lowercased().replacing("_", with: "-")
    }
}
