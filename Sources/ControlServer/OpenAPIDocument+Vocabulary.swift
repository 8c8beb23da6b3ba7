import ControlAPI
import FoundationEssentials

/// The parts of the document derived from the vocabulary (ControlAPI's `CommandDescriptor.all`
/// and `PlayerSettings.descriptors`): the command routes' operations, the settings' schemas
/// (`SettingsPatch`, `SettingsUpdate`, the snapshot's setting keys) and `WebSocketCommand`.
/// A command or setting added there appears here without an edit.
extension OpenAPIDocument {
    /// Operations that are not commands but share a path with one, by path.
    static let otherOperations: [String: String] = [
        "/v1/player": getPlayerOperation,
        "/v1/queue": getQueueOperation,
    ]

    /// The members of `paths` for every command route, with `otherOperations` on the same paths.
    static let commandPaths: String = {
        var paths: [String] = []
        var operations: [String: [String]] = [:]
        for command in CommandDescriptor.all {
            if operations[command.path] == nil {
                paths.append(command.path)
                operations[command.path] = otherOperations[command.path].map { [$0] } ?? []
            }
            operations[command.path]?.append(operation(command))
        }
        return paths.map { "  \(jsonString($0)):{\n" + operations[$0, default: []].joined(separator: ",\n") + "\n  }" }
            .joined(separator: ",\n")
    }()

    /// One command's operation.
    static func operation(_ command: CommandDescriptor) -> String {
        var description = command.details + " WebSocket command `\(command.name.rawValue)`"
        if !command.events.isEmpty {
            description += "; events it may cause: " + command.events.map { "`\($0)`" }.joined(separator: ", ")
        }
        description += "."
        var members = [
            "\"operationId\":\(jsonString(command.operationID))",
            "\"summary\":\(jsonString(command.help))",
            "\"description\":\(jsonString(description))",
            "\"tags\":[\(jsonString(command.tag))]",
            ##""parameters":[{"$ref":"#/components/parameters/wait"},{"$ref":"#/components/parameters/timeout"}]"##,
        ]
        if let body = command.body {
            var content = ##"{"schema":{"$ref":"#/components/schemas/\##(body.schema)"}"##
            if !body.examples.isEmpty {
                content += ",\"examples\":{" + body.examples.map { example in
                    let summary = example.summary.map { "\"summary\":\(jsonString($0))," } ?? ""
                    return "\(jsonString(example.name)):{\(summary)\"value\":\(example.json)}"
                }.joined(separator: ",") + "}"
            }
            content += "}"
            let note = body.note.map { ",\"description\":\(jsonString($0))" } ?? ""
            members.append(##""requestBody":{"required":\##(body.required)\##(note),"content":{"application/json":\##(content)}}"##)
        }
        members.append("\"responses\":{" + responses(command).map { ##""\##($0.status)":{"$ref":"#/components/responses/\##($0.component)"}"## }
            .joined(separator: ",") + "}")
        return "   \(jsonString(command.method.lowercased())):{\n    " + members.joined(separator: ",\n    ") + "\n   }"
    }

    /// What every command may answer, and what its own errors add (by their status).
    static func responses(_ command: CommandDescriptor) -> [(status: String, component: String)] {
        var byStatus: [Int: String] = [200: "Snapshot", 400: "BadRequest", 401: "Unauthorized", 408: "Timeout", 413: "PayloadTooLarge",
                                       422: "Unprocessable"]
        let conflicts = command.errors.filter { $0.httpStatus == 409 }
        for error in command.errors {
            switch error.httpStatus {
            case 403: byStatus[403] = "Forbidden"
            case 404: byStatus[404] = "NotFound"
            case 409: byStatus[409] = conflicts.allSatisfy { $0 == .noPip } ? "NoPip" : "Conflict"
            default: break  // 400 and 422 are there for every command
            }
        }
        return byStatus.keys.sorted().map { (String($0), byStatus[$0]!) } + [("default", "Error")]
    }

    // MARK: Settings

    /// A setting's schema in the snapshot and the `settings` event.
    static func valueSchema(_ setting: SettingDescriptor) -> String {
        let help = "\"description\":\(jsonString(setting.help))"
        switch setting.kind {
        case .number(let range, _):
            return ##"{"type":"number","minimum":\##(number(range.lowerBound)),"maximum":\##(number(range.upperBound)),"default":\##(setting.defaultJSON),\##(help)}"##
        case .boolean:
            return ##"{"type":"boolean","default":\##(setting.defaultJSON),\##(help)}"##
        case .choice(let schema, _), .object(let schema, _):
            return ##"{"$ref":"#/components/schemas/\##(schema)",\##(help)}"##
        case .session(let schema):
            return ##"{"oneOf":[{"$ref":"#/components/schemas/\##(schema)"},{"type":"null"}],\##(help)}"##
        }
    }

    /// A setting's schema in a PATCH body: `null` leaves it as it is (ends the loop for `abLoop`).
    static func patchSchema(_ setting: SettingDescriptor) -> String {
        let help = "\"description\":\(jsonString(setting.help))"
        switch setting.kind {
        case .number(let range, _):
            return ##"{"type":["number","null"],"minimum":\##(number(range.lowerBound)),"maximum":\##(number(range.upperBound)),\##(help)}"##
        case .boolean:
            return ##"{"type":["boolean","null"],\##(help)}"##
        case .choice(let schema, _), .object(_, let schema), .session(let schema):
            return ##"{"oneOf":[{"$ref":"#/components/schemas/\##(schema)"},{"type":"null"}],\##(help)}"##
        }
    }

    static let snapshotSettingsRequired = PlayerSettings.descriptors.map { jsonString($0.name) }.joined(separator: ",")
    static let snapshotSettingsProperties = PlayerSettings.descriptors.map { "\(jsonString($0.name)):\(valueSchema($0))" }.joined(separator: ",")

    private static var wireSettings: [SettingDescriptor] { PlayerSettings.descriptors + [PlayerSettings.abLoop] }

    static let settingsPatchSchema = ##"""
           "SettingsPatch":{
            "type":"object",
            "additionalProperties":false,
            "description":"Any subset of the settings; unknown fields are `invalid_argument`. A field sent as `null` is left as it is, except `abLoop`, which `null` ends. An empty body changes nothing.",
            "properties":{\##(wireSettings.map { "\(jsonString($0.name)):\(patchSchema($0))" }.joined(separator: ","))}
           }
    """##

    static let settingsUpdateSchema = ##"""
           "SettingsUpdate":{
            "type":"object",
            "description":"The `settings` event: every setting, and the source's A-B loop.",
            "required":[\##(wireSettings.map { jsonString($0.name) }.joined(separator: ","))],
            "properties":{\##(wireSettings.map { "\(jsonString($0.name)):\(valueSchema($0))" }.joined(separator: ","))}
           }
    """##

    // MARK: WebSocket

    static let webSocketCommandSchema: String = {
        let routes = CommandDescriptor.all.map { "`\($0.name.rawValue)` (`\($0.method) \($0.path)`)" }.joined(separator: ", ")
        let description = "A command sent as a text frame on the `/v1/events` WebSocket. `args` is the body the HTTP route takes (omit it or send null for commands without one). The names and their routes: \(routes)."
        let conditions = CommandDescriptor.all.compactMap { command in
            command.body.map { ##"{"if":{"properties":{"command":{"const":\##(jsonString(command.name.rawValue))}},"required":["command"]},"then":{"properties":{"args":{"$ref":"#/components/schemas/\##($0.schema)"}}}}"## }
        }
        return ##"""
               "WebSocketCommand":{
                "type":"object",
                "required":["command"],
                "description":\##(jsonString(description)),
                "properties":{"id":{"$ref":"#/components/schemas/MessageID"},"command":{"type":"string","enum":[\##(Command.names.map(jsonString).joined(separator: ","))]},"args":{"type":["object","null"]}},
                "allOf":[\##(conditions.joined(separator: ","))]
               }
        """##
    }()

    // MARK: JSON text

    /// `text` as a JSON string.
    static func jsonString(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
    }

    /// A number as JSON (`1`, `0.1`, `-60`).
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
