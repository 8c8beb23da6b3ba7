import TextSupport

/// The tables of docs/API.md that are derived from the descriptors. A test
/// (Tests/ControlServerTests/DocsDriftTests.swift) fails when docs/API.md's copy differs, and
/// rewrites it when run with `MARQUEE_UPDATE_DOCS=1`.
public enum VocabularyTables {
    /// Every command: its WebSocket name, HTTP request, body fields, events and help.
    public static var commands: String {
        var lines = ["| WebSocket command | HTTP request | body fields | events | what it does |", "|---|---|---|---|---|"]
        for command in CommandDescriptor.all {
            let fields = command.fields.isEmpty ? "none" : command.fields.map { "`\($0)`" }.joined(separator: ", ")
            let events = command.events.map { "`\($0)`" }.joined(separator: ", ")
            lines.append("| `\(command.name.rawValue)` | `\(command.method) \(command.path)` | \(fields) | \(events) | \(command.help) |")
        }
        return lines.joined(separator: "\n")
    }

    /// Every setting of `PATCH /v1/player` (WebSocket `set`): type, range, default, event, help.
    public static var settings: String {
        var lines = ["| setting | type | range | default | event | what it does |", "|---|---|---|---|---|---|"]
        for setting in PlayerSettings.descriptors + [PlayerSettings.abLoop] {
            let type: String, range: String
            switch setting.kind {
            case .number(let r, let unit):
                type = unit.isEmpty ? "number" : "number (\(unit.trimmingCharacters(in: " ")))"
                range = "\(r.lowerBound.decimalText) to \(r.upperBound.decimalText)"
            case .boolean: (type, range) = ("boolean", "")
            case .choice(_, let values): (type, range) = ("string", values.map { "`\($0)`" }.joined(separator: ", "))
            case .object(let schema, _): (type, range) = ("object (`\(schema)`)", "")
            case .session(let schema): (type, range) = ("object (`\(schema)`) or null", "")
            }
            lines.append("| `\(setting.name)` | \(type) | \(range) | `\(setting.defaultJSON)` | `\(setting.event)` | \(setting.help) |")
        }
        return lines.joined(separator: "\n")
    }
}

private extension String {
    func trimmingCharacters(in set: Character) -> String {
        String(drop { $0 == set }.reversed().drop { $0 == set }.reversed())
    }
}
