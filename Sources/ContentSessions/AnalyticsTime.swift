import FoundationEssentials
import Glibc
import TextSupport

/// The `time` of an analytics event.
enum AnalyticsTime {
    static func timestamp(_ date: Date = Date()) -> String {
        // ISO8601DateFormatter, which FoundationEssentials lacks, rounded to the millisecond;
        // Date.ISO8601FormatStyle would truncate instead.
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        let seconds = (milliseconds / 1000).rounded(.down)
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(printf: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec, Int32(milliseconds - seconds * 1000))
    }
}
