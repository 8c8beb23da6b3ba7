import TextSupport

/// What a request's `Range` header asks of a file of a known size (RFC 9110 §14).
///
/// Only one range is served. A header this server does not understand (another unit, several
/// ranges, a malformed spec) is ignored and the whole file is sent with 200, as RFC 9110
/// §14.2 allows: souphttpsrc and hlsdemux2 only ever send one `bytes=` range, so no
/// multipart/byteranges body is worth building for the few clients that ask for more.
enum ByteRangeRequest: Equatable {
    /// No usable Range header: 200 with the whole file.
    case whole
    /// 206 with bytes `first...last` (inclusive, both within the file).
    case partial(first: Int64, last: Int64)
    /// 416 with `Content-Range: bytes */size`.
    case unsatisfiable

    /// Reads `header` (the Range header's value, nil when absent) against a file of `size` bytes.
    init(header: String?, size: Int64) {
        guard let header else {
            self = .whole
            return
        }
        let trimmed = header.trimmingHorizontalWhitespace()
        guard let equals = trimmed.firstIndex(of: "="),
              trimmed[..<equals].trimmingHorizontalWhitespace().lowercased() == "bytes" else {
            self = .whole
            return
        }
        let spec = trimmed[trimmed.index(after: equals)...].trimmingHorizontalWhitespace()
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else {
            self = .whole
            return
        }
        let firstText = spec[..<dash].trimmingHorizontalWhitespace()
        let lastText = spec[spec.index(after: dash)...].trimmingHorizontalWhitespace()
        switch (Self.number(firstText), Self.number(lastText)) {
        case (nil, let suffix?) where firstText.isEmpty:
            // bytes=-n: the last n bytes (all of them when the file is shorter).
            self = suffix == 0 || size == 0 ? .unsatisfiable : .partial(first: max(0, size - suffix), last: size - 1)
        case (let first?, nil) where lastText.isEmpty:
            // bytes=a-: from a to the end.
            self = first >= size ? .unsatisfiable : .partial(first: first, last: size - 1)
        case (let first?, let last?) where first <= last:
            // bytes=a-b: b past the end means the end.
            self = first >= size ? .unsatisfiable : .partial(first: first, last: min(last, size - 1))
        default:
            self = .whole  // "bytes=-", "bytes=5-2", signs or letters: not a range we can read
        }
    }

    /// A non-negative decimal; nil otherwise (empty, signs, letters). One too large for an
    /// Int64 is Int64.max: past the end of any file, which the cases above already handle.
    private static func number(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(text) ?? .max
    }
}
