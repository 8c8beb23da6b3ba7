import ControlAPI

/// The player's commands: status, open, transport, seek, tracks, variants, events.
extension CLICommands {
    static let playback: [CLICommand] = [
        CLICommand(words: ["status"], syntax: "", positionals: 0...0,
                   target: .route(method: "GET", path: "/v1/player", help: "Show the player's state")),
        CLICommand(words: ["open"], syntax: "[URI|PATH]", positionals: 0...1, target: .command(.open),
                   options: [
                       .value("content-id", "ID", field: "contentId", "the content's id; alone, its offline copy plays"),
                       .value("user-id", "ID", field: "userId", "whose content it is"),
                       .flag("resolve", field: "resolve", "ask the daemon's --url-resolver for the URL of --content-id"),
                       .flag("paused", field: "autoplay", "open paused (autoplay false)"),
                       .value("start", "S", field: "start", "start at S seconds"),
                       .value("timeshift", "WINDOW_S", field: "timeshift", "record a live source for going back"),
                       .value("subtitle", "FILE|URL", field: "subtitle", "an SRT, SAMI or WebVTT file or http(s) URL to show", files: true),
                       .value("subtitle-language", "LANG", field: "subtitleLanguage", "the subtitle language to show (ko matches ko-KR)"),
                       .flag("protected", field: "protected", "protected content: no snapshots while it plays"),
                       .value("watermark", "TEXT", field: "watermark", "a text watermark for this item ({userId}, {contentId} filled in)"),
                       .value("key-service", "URL", field: "keyService", "POST for the HLS keys here (keyService.uri)"),
                   ],
                   completion: .files,
                   body: { input in
                       var body: [String: JSONValue] = [:]
                       if let uri = input.positionals.first { body["uri"] = CLIValue.uri(uri) }
                       if let contentId = input.value("content-id") { body["contentId"] = .string(contentId) }
                       if let userId = input.value("user-id") { body["userId"] = .string(userId) }
                       guard !body.isEmpty else { throw UsageError("open needs a URI or PATH, or --content-id ID") }
                       if input.flag("paused") { body["autoplay"] = .bool(false) }
                       if input.flag("resolve") { body["resolve"] = .bool(true) }
                       if let start = input.value("start") { body["start"] = try CLIValue.number(start, "--start") }
                       if let window = input.value("timeshift") {
                           body["timeshift"] = .object(["window": try CLIValue.number(window, "--timeshift")])
                       }
                       if let subtitle = input.value("subtitle") { body["subtitle"] = CLIValue.uri(subtitle) }
                       if let language = input.value("subtitle-language") { body["subtitleLanguage"] = .string(language) }
                       if input.flag("protected") { body["protected"] = .bool(true) }
                       if let text = input.value("watermark") { body["watermark"] = .object(["text": .string(text)]) }
                       if let keyService = input.value("key-service") { body["keyService"] = .object(["uri": .string(keyService)]) }
                       return .object(body)
                   }),
        CLICommand(words: ["play"], syntax: "", positionals: 0...0, target: .command(.play)),
        CLICommand(words: ["pause"], syntax: "", positionals: 0...0, target: .command(.pause)),
        CLICommand(words: ["stop"], syntax: "", positionals: 0...0, target: .command(.stop)),
        CLICommand(words: ["live"], syntax: "", positionals: 0...0, target: .command(.live)),
        CLICommand(words: ["seek"], syntax: "SECONDS|+S|-S", positionals: 1...1, target: .command(.seek),
                   options: [.flag("exact", field: "exact", "decode to the exact position, not the keyframe before")],
                   body: { input in
                       let relative = input[0].hasPrefix("+") || input[0].hasPrefix("-")
                       var body: [String: JSONValue] = [relative ? "offset" : "position": try CLIValue.number(input[0], "seek")]
                       if input.flag("exact") { body["exact"] = .bool(true) }
                       return .object(body)
                   }),
        CLICommand(words: ["variant"], syntax: "VARIANT_ID|auto", positionals: 1...1, target: .command(.variant),
                   completion: .words(["auto"]),
                   body: { input in .object(["id": .string(input[0])]) }),
        CLICommand(words: ["audio"], syntax: "TRACK_ID", positionals: 1...1, target: .command(.audio),
                   body: { input in .object(["id": .string(input[0])]) }),
        CLICommand(words: ["events"], syntax: "", positionals: 0...0,
                   target: .route(method: "GET", path: "/v1/events", help: "Follow the event stream (Server-Sent Events)"),
                   streams: true),
    ]
}
