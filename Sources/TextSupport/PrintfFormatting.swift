#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `String(format:)` for numeric conversions, without Foundation: the daemon links only
/// FoundationEssentials, which lacks it.
///
/// It calls C's `vsnprintf`, which is what CoreFoundation itself calls for `%d`, `%x`,
/// `%f` and `%g`, so the text is the same byte for byte (rounding of the exact binary
/// value included, which re-implementing `%.1f` in Swift would not get right in every
/// case). Only C conversions work: there is no `%@`.
extension String {
    public init(printf format: String, _ arguments: CVarArg...) {
        self = Self.printf(format, arguments)
    }

    private static func printf(_ format: String, _ arguments: [CVarArg]) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        // A va_list is good for one pass, so a text too long for the first buffer is
        // formatted again, from a fresh list, into one of the measured size.
        var length = Int(withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) })
        if length >= buffer.count {
            buffer = [CChar](repeating: 0, count: length + 1)
            length = Int(withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) })
        }
        return String(decoding: buffer.prefix(Swift.max(0, length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
