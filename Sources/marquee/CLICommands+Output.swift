import ControlAPI

/// The output stage: picture-in-picture, the watermark, subtitles.
extension CLICommands {
    static let output: [CLICommand] = [
        CLICommand(words: ["pip"], syntax: "URI|PATH", positionals: 1...1, target: .command(.pipStart),
                   options: [
                       .value("rect", "x,y,w,h", field: "rect", "where, in fractions of the frame (default 0.65,0.65,0.3,0.3)"),
                       .value("muted", "true|false", field: "muted", "mute its audio (default true)", choices: ["true", "false"]),
                   ],
                   completion: .files,
                   body: { input in
                       var body: [String: JSONValue] = ["uri": CLIValue.uri(input[0])]
                       try pipFields(input, into: &body)
                       return .object(body)
                   }),
        CLICommand(words: ["pip", "move"], syntax: "[x,y,w,h]", positionals: 0...1, target: .command(.pipUpdate),
                   options: [.value("muted", "true|false", field: "muted", "mute or unmute it", choices: ["true", "false"])],
                   body: { input in
                       var body: [String: JSONValue] = [:]
                       if !input.positionals.isEmpty { body["rect"] = try CLIValue.rect(input[0], "the rect") }
                       try pipFields(input, into: &body)
                       guard !body.isEmpty else { throw UsageError("give x,y,w,h or --muted true|false") }
                       return .object(body)
                   }),
        CLICommand(words: ["pip", "swap"], syntax: "", positionals: 0...0, target: .command(.pipSwap)),
        CLICommand(words: ["pip", "stop"], syntax: "", positionals: 0...0, target: .command(.pipStop)),
        CLICommand(words: ["watermark"], syntax: "TEXT", positionals: 0...1, target: .command(.watermark),
                   options: [
                       .value("image", "PNG", field: "image", "a PNG image instead of a text", files: true),
                       .value("position", "P", field: "position", "where (default bottom-right); random jumps every --interval",
                              choices: WatermarkPosition.allCases.map(\.rawValue)),
                       .value("size", "F", field: "size", "height as a fraction of the frame (0.01 to 0.5, default 0.05)"),
                       .value("color", "#RRGGBBAA", field: "color", "the text's colour"),
                       .value("interval", "S", field: "interval", "seconds between jumps with --position random"),
                       .value("opacity", "O", field: "opacity", "the image's opacity, 0 to 1"),
                   ],
                   body: { input in
                       var body: [String: JSONValue] = [:]
                       switch (input.positionals.first, input.value("image")) {
                       case (let text?, nil): body["text"] = .string(text)
                       case (nil, let image?): body["image"] = CLIValue.uri(image)
                       default: throw UsageError("give a TEXT or --image PNG (one of them)")
                       }
                       if let position = input.value("position") { body["position"] = .string(position) }
                       if let color = input.value("color") { body["color"] = .string(color) }
                       for name in ["size", "interval", "opacity"] {
                           if let value = input.value(name) { body[name] = try CLIValue.number(value, "--\(name)") }
                       }
                       return .object(body)
                   }),
        CLICommand(words: ["watermark", "off"], syntax: "", positionals: 0...0, target: .command(.watermarkRemove)),
        CLICommand(words: ["subtitle"], syntax: "TRACK_ID|off", positionals: 1...1, target: .command(.subtitle), note: "a track",
                   completion: .words(["off"]),
                   body: { input in .object(["id": input[0] == "off" ? .null : .string(input[0])]) }),
        CLICommand(words: ["subtitle", "add"], syntax: "FILE|URL", positionals: 1...1, target: .command(.subtitle), note: "a file",
                   completion: .files,
                   body: { input in .object(["uri": CLIValue.uri(input[0])]) }),
        CLICommand(words: ["subtitle", "style"], syntax: "FIELD=VALUE...", positionals: 1...Int.max, target: .command(.set),
                   setting: "subtitleStyle", completion: .settings(SettingArguments.styleFields.map(\.name)),
                   body: { input in try SettingArguments.subtitleStyle(input.positionals) }),
    ]

    private static func pipFields(_ input: CLIInput, into body: inout [String: JSONValue]) throws {
        if let rect = input.value("rect") { body["rect"] = try CLIValue.rect(rect, "--rect") }
        if let muted = input.value("muted") { body["muted"] = try CLIValue.boolean(muted, "--muted") }
    }
}
