import FoundationEssentials
import TextSupport

/// The `time` of an analytics event.
enum AnalyticsTime {
    static func timestamp(_ date: Date = Date()) -> String { RFC3339.string(date) }
}
