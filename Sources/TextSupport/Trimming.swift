/// Trimming without Foundation's `trimmingCharacters(in:)`: the daemon links only
/// FoundationEssentials, which has neither that method nor `CharacterSet`.
///
/// Like Foundation, these work on Unicode scalars, not Characters, so a combining mark
/// after a trimmed space stays (Character-based trimming would drop the whole cluster).
extension StringProtocol {
    /// Drops leading and trailing scalars for which `shouldTrim` is true.
    public func trimmingScalars(where shouldTrim: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !shouldTrim($0) }),
              let last = scalars.lastIndex(where: { !shouldTrim($0) }) else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }

    /// `trimmingCharacters(in: .whitespacesAndNewlines)`: both sets below.
    public func trimmingWhitespace() -> String {
        trimmingScalars(where: { $0.isHorizontalWhitespace || $0.isNewline })
    }

    /// `trimmingCharacters(in: .whitespaces)`: tab, the Zs spaces and U+200B, not line breaks.
    public func trimmingHorizontalWhitespace() -> String {
        trimmingScalars(where: \.isHorizontalWhitespace)
    }

    /// `trimmingCharacters(in: .newlines)`: LF, VT, FF, CR, NEL, U+2028 and U+2029.
    public func trimmingNewlines() -> String {
        trimmingScalars(where: \.isNewline)
    }
}

extension Unicode.Scalar {
    /// Foundation's `CharacterSet.whitespaces`: tab, the Zs spaces and also U+200B ZERO WIDTH
    /// SPACE (Foundation counts it; Unicode's White_Space property does not, so
    /// `properties.isWhitespace` would differ). Listed to match Foundation on Linux exactly.
    public var isHorizontalWhitespace: Bool {
        switch value {
        case 0x09, 0x20, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }

    /// Foundation's `CharacterSet.newlines`: U+000A–U+000D, U+0085, U+2028, U+2029.
    public var isNewline: Bool {
        switch value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
        default: false
        }
    }
}
