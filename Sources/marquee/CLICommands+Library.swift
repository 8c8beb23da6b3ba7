import ControlAPI

/// The offline library (`/v1/library`): list, add, show, pause, resume, remove, licence.
extension CLICommands {
    static let library: [CLICommand] = [
        CLICommand(words: ["library"], syntax: "", positionals: 0...0,
                   target: .route(method: "GET", path: "/v1/library", help: "List the offline library"), output: .library),
        CLICommand(words: ["library", "add"], syntax: "URI", positionals: 1...1,
                   target: .route(method: "POST", path: "/v1/library", help: "Download a copy for offline play"),
                   options: [.value("content-id", "ID", field: "contentId", "the content's id (required)"),
                             .value("user-id", "ID", field: "userId", "whose copy it is"),
                             .value("title", "TEXT", field: "title", "a title to show"),
                             .value("variant", "V", field: "variant", "HLS: highest, lowest or a variant id", choices: ["highest", "lowest"]),
                             .value("max-height", "N", field: "variant", "HLS: the best variant at most N lines tall"),
                             .value("audio", "all|LANG,...", field: "audio", "HLS: audio renditions to keep"),
                             .value("subtitles", "all|LANG,...", field: "subtitles", "HLS: subtitle renditions to keep")]
                       + licenseOptions.map { CLIOption(name: $0.name, value: $0.value, field: "license", help: $0.help) },
                   output: .libraryItem,
                   body: { input in
                       guard let contentId = input.value("content-id") else { throw UsageError("library add needs --content-id ID") }
                       var body: [String: JSONValue] = ["uri": .string(input[0]), "contentId": .string(contentId)]
                       for (option, field) in [("user-id", "userId"), ("title", "title"), ("variant", "variant")] {
                           if let value = input.value(option) { body[field] = .string(value) }
                       }
                       if let height = input.value("max-height") {
                           guard let lines = Int(height), lines > 0 else { throw UsageError("--max-height must be a number of lines > 0") }
                           body["variant"] = .object(["maxHeight": .number(Double(lines))])
                       }
                       for option in ["audio", "subtitles"] {
                           guard let value = input.value(option) else { continue }
                           body[option] = value == "all" ? .string("all")
                               : .array(value.split(separator: ",").map { .string(String($0)) })
                       }
                       if let license = try licenseBody(input) { body["license"] = license }
                       return .object(body)
                   }),
        CLICommand(words: ["library", "show"], syntax: "ID", positionals: 1...1,
                   target: .route(method: "GET", path: "/v1/library/{id}", help: "Show one library item"), output: .libraryItem),
        CLICommand(words: ["library", "pause"], syntax: "ID", positionals: 1...1,
                   target: .route(method: "POST", path: "/v1/library/{id}/pause", help: "Pause a download"), output: .libraryItem),
        CLICommand(words: ["library", "resume"], syntax: "ID", positionals: 1...1,
                   target: .route(method: "POST", path: "/v1/library/{id}/resume", help: "Resume a paused or failed download"),
                   output: .libraryItem),
        CLICommand(words: ["library", "rm"], syntax: "ID", positionals: 1...1,
                   target: .route(method: "DELETE", path: "/v1/library/{id}", help: "Remove an item and its files"), output: .libraryItem),
        CLICommand(words: ["library", "license"], syntax: "ID", positionals: 1...1,
                   target: .route(method: "PUT", path: "/v1/library/{id}/license", help: "Renew an item's licence (usage starts again)"),
                   options: licenseOptions, output: .libraryItem,
                   body: { input in try licenseBody(input) ?? .object([:]) }),
    ]

    static let licenseOptions: [CLIOption] = [
        .value("expires", "TIME", field: "expires", "licence: RFC 3339 time it ends"),
        .value("max-plays", "N", field: "maxPlays", "licence: plays allowed"),
        .value("max-play-time", "S", field: "maxPlayTime", "licence: seconds of playing allowed"),
    ]

    /// The licence options as a LICENSE object; nil when none was given.
    static func licenseBody(_ input: CLIInput) throws -> JSONValue? {
        var license: [String: JSONValue] = [:]
        if let expires = input.value("expires") { license["expires"] = .string(expires) }
        if let plays = input.value("max-plays") {
            guard let count = Int(plays), count >= 0 else { throw UsageError("--max-plays must be a whole number >= 0") }
            license["maxPlays"] = .number(Double(count))
        }
        if let time = input.value("max-play-time") { license["maxPlayTime"] = try CLIValue.number(time, "--max-play-time") }
        return license.isEmpty ? nil : .object(license)
    }
}
