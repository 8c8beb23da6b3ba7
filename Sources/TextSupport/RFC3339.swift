import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// RFC 3339 UTC times with milliseconds ("2026-12-01T20:40:08.579Z"), as the API writes
/// them. ISO8601DateFormatter is not in FoundationEssentials, and Date.ISO8601FormatStyle
/// truncates the milliseconds instead of rounding them.
public enum RFC3339 {
    public static func string(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        let seconds = (milliseconds / 1000).rounded(.down)
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(printf: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec, Int32(milliseconds - seconds * 1000))
    }
}
