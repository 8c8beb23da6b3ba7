import FoundationEssentials
import Glibc
import TextSupport
import Synchronization

/// Structured log lines on stderr, one per event: `ts=... level=info cat=player msg="state" state=playing`.
/// GStreamer's own debug log is separate and still works through GST_DEBUG.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case debug, info, warning, error

    public init?(name: String) {
        switch name.lowercased() {
        case "debug": self = .debug
        case "info": self = .info
        case "warning", "warn": self = .warning
        case "error": self = .error
        default: return nil
        }
    }

    var name: String { ["debug", "info", "warning", "error"][rawValue] }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

public struct Logger: Sendable {
    /// The process-wide threshold; `--log-level` sets it once at start.
    public static let threshold = Atomic<Int>(LogLevel.info.rawValue)

    public let category: String
    public init(category: String) { self.category = category }

    public func debug(_ message: String, _ fields: KeyValuePairs<String, String> = [:]) { write(.debug, message, fields) }
    public func info(_ message: String, _ fields: KeyValuePairs<String, String> = [:]) { write(.info, message, fields) }
    public func warning(_ message: String, _ fields: KeyValuePairs<String, String> = [:]) { write(.warning, message, fields) }
    public func error(_ message: String, _ fields: KeyValuePairs<String, String> = [:]) { write(.error, message, fields) }

    private func write(_ level: LogLevel, _ message: String, _ fields: KeyValuePairs<String, String>) {
        guard level.rawValue >= Self.threshold.load(ordering: .relaxed) else { return }
        var line = "ts=\(Self.timestamp()) level=\(level.name) cat=\(category) msg=\(Self.quote(message))"
        for (key, value) in fields { line += " \(key)=\(Self.quote(value))" }
        line += "\n"
        StandardStream.writeError(line)
    }

    private static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var t = time_t(now.tv_sec)
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(printf: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec, Int32(now.tv_nsec / 1_000_000))
    }

    /// logfmt quoting: bare when safe, otherwise quoted with escapes (user text stays one line).
    static func quote(_ value: String) -> String {
        let safe = !value.isEmpty && value.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7f && $0 != "\"" && $0 != "=" && $0 != "\\" }
        if safe { return value }
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
