import FoundationEssentials

/// Local names of a kept HLS item. They are paths relative to the item's folder, made only of
/// [A-Za-z0-9._-] components, never "." or "..", never a query: whatever the origin's URIs
/// look like, a name can neither leave the item's folder nor mean two things to the loopback
/// server that serves it.
enum HLSLocalNames {
    /// Extensions kept from the remote path. The loopback server and GStreamer's typefinding
    /// read them; anything else (`.php`, `.m3u8?x`, no extension at all) gives a name without
    /// one, and the content is sniffed as it would be from the origin.
    static let safeExtensions: Set<String> = [
        "ts", "aac", "m4s", "mp4", "m4a", "m4v", "mp3", "ac3", "ec3", "cmfv", "cmfa", "cmft", "vtt", "webvtt", "key",
    ]

    /// The remote path's extension, lower-cased and with its dot, when it is a safe one; else "".
    static func safeExtension(of url: String) -> String {
        guard let path = URL(string: url)?.path, let last = path.split(separator: "/").last,
              let dot = last.lastIndex(of: ".") else { return "" }
        let ext = last[last.index(after: dot)...].lowercased()
        return safeExtensions.contains(ext) ? "." + ext : ""
    }

    static func isSafeComponent(_ text: Substring) -> Bool {
        !text.isEmpty && text != "." && text != ".."
            && text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0)
                || ("0"..."9").contains($0) || $0 == "." || $0 == "_" || $0 == "-" }
    }

    /// A relative path of safe components.
    static func isSafeName(_ text: String) -> Bool {
        text.split(separator: "/", omittingEmptySubsequences: false).allSatisfy(isSafeComponent)
    }

    /// A language for a folder name: lower-cased, [a-z0-9-] only (other characters become
    /// "-"), at most 35 characters (the longest BCP 47 tag in common use); "und" (BCP 47's
    /// "undetermined") when there is none.
    static func languagePart(_ language: String?) -> String {
        let cleaned = String((language ?? "").lowercased().unicodeScalars.prefix(35).map { c -> Character in
            ("a"..."z").contains(c) || ("0"..."9").contains(c) ? Character(c) : "-"
        })
        let trimmed = cleaned.split(separator: "-").joined(separator: "-")
        return trimmed.isEmpty ? "und" : trimmed
    }

    /// A segment's number, at least five digits ("00001"), so that names sort in playback order.
    static func segmentNumber(_ n: Int) -> String {
        let digits = String(n)
        return String(repeating: "0", count: max(0, 5 - digits.count)) + digits
    }
}
