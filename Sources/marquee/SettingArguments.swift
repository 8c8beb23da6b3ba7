import ControlAPI
import FoundationEssentials

/// `marquee set NAME=VALUE...` and `marquee subtitle style FIELD=VALUE...`: every setting of
/// `PlayerSettings.descriptors` (and `abLoop`), read by the descriptor's kind and range; the
/// result is then checked as the daemon checks a PATCH body (`SettingsPatch`).
enum SettingArguments {
    /// Every setting `set` takes, in the documented order.
    static var descriptors: [SettingDescriptor] { PlayerSettings.descriptors + [PlayerSettings.abLoop] }

    static func settings(_ pairs: [String]) throws -> JSONValue {
        var values: [String: JSONValue] = [:]
        for pair in pairs {
            let (name, text) = try CLIValue.pair(pair)
            guard let descriptor = PlayerSettings.descriptor(named: name) else {
                throw UsageError("unknown setting '\(name)'; the settings are \(PlayerSettings.wireNames.joined(separator: ", "))")
            }
            values[name] = try value(text, for: descriptor)
        }
        return try checked(values)
    }

    /// One setting's value, read by its kind.
    static func value(_ text: String, for descriptor: SettingDescriptor) throws -> JSONValue {
        let name = descriptor.name
        switch descriptor.kind {
        case .number(let range, let unit): return try CLIValue.number(text, name, in: range, unit: unit)
        case .boolean: return try CLIValue.boolean(text, name)
        case .choice(_, let values): return try CLIValue.choice(text, name, values)
        case .object: return try CLIValue.json(text, name)
        case .session:
            // `abLoop=12,15.5`, `abLoop=off` (or null), or JSON.
            if text == "off" || text == "null" { return .null }
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            if parts.count == 2 {
                return .object(["a": try CLIValue.number(String(parts[0]), "\(name)'s A"), "b": try CLIValue.number(String(parts[1]), "\(name)'s B")])
            }
            return try CLIValue.json(text, name)
        }
    }

    /// The value syntax of a setting, for help and usage.
    static func syntax(_ descriptor: SettingDescriptor) -> String {
        switch descriptor.kind {
        case .number(let range, let unit):
            return "\(range.lowerBound.decimalText) to \(range.upperBound.decimalText)\(unit)"
        case .boolean: return "true|false"
        case .choice(_, let values): return values.joined(separator: "|")
        case .object: return "JSON, e.g. " + descriptor.defaultJSON
        case .session: return "A,B|off (seconds)"
        }
    }

    /// The fields of `subtitleStyle` and their defaults, read from the setting's default
    /// (`{"align":"bottom","color":"#FFFFFFFF","fontSize":0.05}`).
    static var styleFields: [(name: String, defaultValue: JSONValue)] {
        guard let descriptor = PlayerSettings.descriptor(named: "subtitleStyle"),
              case .object(let members)? = try? JSONDecoder().decode(JSONValue.self, from: Data(descriptor.defaultJSON.utf8)) else { return [] }
        return members.keys.sorted().map { ($0, members[$0]!) }
    }

    /// `subtitle style fontSize=0.07 color=#FFFF00 align=top`: a `subtitleStyle` patch.
    static func subtitleStyle(_ pairs: [String]) throws -> JSONValue {
        let fields = styleFields
        var style: [String: JSONValue] = [:]
        for pair in pairs {
            let (name, text) = try CLIValue.pair(pair)
            guard let field = fields.first(where: { $0.name == name }) else {
                throw UsageError("unknown subtitle style field '\(name)'; the fields are \(fields.map(\.name).joined(separator: ", "))")
            }
            switch field.defaultValue {
            case .number, .integer: style[name] = try CLIValue.number(text, name)
            case .bool: style[name] = try CLIValue.boolean(text, name)
            default: style[name] = .string(text)
            }
        }
        return try checked(["subtitleStyle": .object(style)])
    }

    /// The settings as a PATCH body, refused here (exit 64) with the daemon's own message
    /// when the daemon would refuse them.
    static func checked(_ values: [String: JSONValue]) throws -> JSONValue {
        do throws(APIError) {
            _ = try SettingsPatch(values)
        } catch {
            throw UsageError(error.message)
        }
        return .object(values)
    }
}
