import ControlAPI

/// Settings, repeat modes, the queue and analytics.
extension CLICommands {
    static let content: [CLICommand] = [
        CLICommand(words: ["set"], syntax: "NAME=VALUE...", positionals: 1...Int.max, target: .command(.set),
                   completion: .settings(SettingArguments.descriptors.map(\.name)),
                   body: { input in try SettingArguments.settings(input.positionals) }),
        CLICommand(words: ["repeat"], syntax: repeatValues.joined(separator: "|"), positionals: 1...1, target: .command(.set),
                   setting: "repeat", note: "off is none", completion: .words(repeatValues + ["off"]),
                   body: { input in
                       // `off` is the CLI's word for the API's `none`.
                       let mode = input[0] == "off" ? "none" : input[0]
                       return try SettingArguments.settings(["repeat=" + mode])
                   }),
        CLICommand(words: ["ab"], syntax: "A B", positionals: 2...2, target: .command(.set), setting: "abLoop",
                   body: { input in
                       try SettingArguments.checked(["abLoop": .object(["a": try CLIValue.number(input[0], "A"),
                                                                        "b": try CLIValue.number(input[1], "B")])])
                   }),
        CLICommand(words: ["ab", "off"], syntax: "", positionals: 0...0, target: .command(.set), setting: "abLoop", note: "null ends it",
                   body: { _ in try SettingArguments.checked(["abLoop": .null]) }),
        CLICommand(words: ["queue"], syntax: "URI|PATH...", positionals: 1...Int.max, target: .command(.queueSet),
                   options: [.flag("loop", field: "loop", "start again after the last")],
                   completion: .files,
                   body: { input in
                       var body: [String: JSONValue] = ["items": .array(input.positionals.map { .object(["uri": CLIValue.uri($0)]) })]
                       if input.flag("loop") { body["loop"] = .bool(true) }
                       return .object(body)
                   }),
        CLICommand(words: ["queue", "loop"], syntax: "on|off", positionals: 1...1, target: .command(.queueUpdate),
                   completion: .words(["on", "off"]),
                   body: { input in
                       guard input[0] == "on" || input[0] == "off" else { throw UsageError("queue loop takes on or off") }
                       return .object(["loop": .bool(input[0] == "on")])
                   }),
        CLICommand(words: ["queue", "next"], syntax: "", positionals: 0...0, target: .command(.queueNext)),
        CLICommand(words: ["queue", "previous"], syntax: "", positionals: 0...0, target: .command(.queuePrevious)),
        CLICommand(words: ["queue", "clear"], syntax: "", positionals: 0...0, target: .command(.queueSet), note: "an empty one: clears the queue",
                   body: { _ in .object(["items": .array([])]) }),
        CLICommand(words: ["queue", "show"], syntax: "", positionals: 0...0,
                   target: .route(method: "GET", path: "/v1/queue", help: "Show the queue"), output: .queue),
        CLICommand(words: ["analytics"], syntax: "", positionals: 0...0,
                   target: .route(method: "GET", path: "/v1/analytics", help: "Show the analytics outbox's counters"),
                   output: .analytics),
        CLICommand(words: ["analytics", "clear"], syntax: "", positionals: 0...0,
                   target: .route(method: "DELETE", path: "/v1/analytics", help: "Drop the analytics events not yet sent"),
                   output: .analytics),
        CLICommand(words: ["analytics", "on"], syntax: "", positionals: 0...0,
                   target: .route(method: "PATCH", path: "/v1/analytics", help: "Record analytics events again"),
                   output: .analytics, body: { _ in .object(["enabled": .bool(true)]) }),
        CLICommand(words: ["analytics", "off"], syntax: "", positionals: 0...0,
                   target: .route(method: "PATCH", path: "/v1/analytics", help: "Record no new analytics events (pending ones still go)"),
                   output: .analytics, body: { _ in .object(["enabled": .bool(false)]) }),
        CLICommand(words: ["analytics", "interval"], syntax: "SECONDS", positionals: 1...1,
                   target: .route(method: "PATCH", path: "/v1/analytics", help: "Seconds between playing events"),
                   output: .analytics, body: { input in .object(["interval": try CLIValue.number(input[0], "SECONDS")]) }),
        CLICommand(words: ["analytics", "flush"], syntax: "", positionals: 0...0,
                   target: .route(method: "POST", path: "/v1/analytics/flush", help: "Send the pending events now; answers when none is left"),
                   output: .analytics),
    ]

    /// The API's repeat modes, from the `repeat` setting's descriptor.
    static var repeatValues: [String] {
        if case .choice(_, let values)? = PlayerSettings.descriptor(named: "repeat")?.kind { return values }
        return []
    }
}
