import ControlAPI
import FoundationEssentials
import TextSupport

/// A mistake in the command line: exit status 64 (EX_USAGE).
struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// A small option parser: `--name value`, `--name=value`, `--flag`, positionals in order;
/// `--` ends the options (`marquee watermark -- --LIVE--`).
struct ParsedArguments {
    var options: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []

    init(_ arguments: [String], valueOptions: Set<String>, flagOptions: Set<String>) throws {
        var i = 0
        var optionsEnded = false
        while i < arguments.count {
            let arg = arguments[i]
            if !optionsEnded && arg == "--" {
                optionsEnded = true
            } else if !optionsEnded && arg.hasPrefix("--") && arg.count > 2 {
                var name = String(arg.dropFirst(2))
                var value: String?
                if let eq = name.firstIndex(of: "=") {
                    value = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                }
                if flagOptions.contains(name) {
                    guard value == nil else { throw UsageError("--\(name) takes no value") }
                    flags.insert(name)
                } else if valueOptions.contains(name) {
                    if value == nil {
                        i += 1
                        guard i < arguments.count else { throw UsageError("--\(name) needs a value") }
                        value = arguments[i]
                    }
                    options[name, default: []].append(value!)
                } else {
                    throw UsageError("unknown option --\(name)")
                }
            } else {
                positionals.append(arg)
            }
            i += 1
        }
    }

    func value(_ name: String) -> String? { options[name]?.last }
    func values(_ name: String) -> [String] { options[name] ?? [] }
}

/// How the CLI reads a value from a word of the command line into JSON.
enum CLIValue {
    /// A finite number, optionally in `range`.
    static func number(_ text: String, _ what: String, in range: ClosedRange<Double>? = nil, unit: String = "") throws -> JSONValue {
        guard let value = Double(text), value.isFinite else { throw UsageError("\(what) takes a number, got '\(text)'") }
        if let range, !range.contains(value) {
            throw UsageError("\(what) must be between \(range.lowerBound.decimalText) and \(range.upperBound.decimalText)\(unit), got \(text)")
        }
        return .number(value)
    }

    static func boolean(_ text: String, _ what: String) throws -> JSONValue {
        switch text.lowercased() {
        case "true", "on", "yes", "1": return .bool(true)
        case "false", "off", "no", "0": return .bool(false)
        default: throw UsageError("\(what) takes true or false, got '\(text)'")
        }
    }

    static func choice(_ text: String, _ what: String, _ values: [String]) throws -> JSONValue {
        guard values.contains(text) else { throw UsageError("\(what) is one of \(values.joined(separator: ", ")), got '\(text)'") }
        return .string(text)
    }

    /// `x,y,w,h` in fractions of the frame, as a `Rect` object.
    static func rect(_ text: String, _ what: String) throws -> JSONValue {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingWhitespace()) }
        guard parts.count == 4, let x = parts[0], let y = parts[1], let w = parts[2], let h = parts[3],
              [x, y, w, h].allSatisfy(\.isFinite) else {
            throw UsageError("\(what) is x,y,width,height in fractions of the frame (e.g. 0.65,0.65,0.3,0.3), got '\(text)'")
        }
        return .object(["x": .number(x), "y": .number(y), "width": .number(w), "height": .number(h)])
    }

    /// A JSON text (`{"fontSize":0.06}`).
    static func json(_ text: String, _ what: String) throws -> JSONValue {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
            throw UsageError("\(what) takes JSON, got '\(text)'")
        }
        return value
    }

    /// A relative path means a file here; the daemon's working directory may be elsewhere.
    static func uri(_ text: String) -> JSONValue {
        .string(absoluteIfLocalPath(text))
    }

    static func absoluteIfLocalPath(_ text: String) -> String {
        if text.contains("://") || text.hasPrefix("/") || text == "demo" { return text }
        return URL(fileURLWithPath: text).standardizedFileURL.path
    }

    /// `NAME=VALUE` split at the first `=`.
    static func pair(_ text: String) throws -> (name: String, value: String) {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
            throw UsageError("settings are NAME=VALUE, got '\(text)'")
        }
        return (String(text[..<eq]), String(text[text.index(after: eq)...]))
    }
}
