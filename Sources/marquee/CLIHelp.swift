import ControlAPI
import FoundationEssentials
import TextSupport

/// `marquee help`, `marquee help COMMAND` and `marquee help --json`, from `CLICommands.all`
/// and the API's descriptors.
enum CLIHelp {
    static let serveUsage = """
      marquee serve [--listen HOST:PORT] [--token TOKEN] [--demo] [--data-dir DIR]
                    [--viewer-token TOKEN]   (read-only: GET and events, no commands)
                    [--cors-origin https://HOST[:PORT]]...   (web pages allowed to call the API)
                    [--video-sink NAME] [--audio-sink NAME] [--media-root DIR]...
                    [--allow-scheme file|http|https|udp|rtsp|rtsps|demo]...   (default: all)
                    [--request-timeout SECONDS] [--max-event-clients N]   (defaults 30, 256)
                    [--reconnect-timeout SECONDS]   (ride out http(s) origin faults this long; default 120, 0: off)
                    [--log-level debug|info|warning|error] [--preload-plugins]
                    [--timeshift-window SECONDS]   (record live sources for going back; 0: off)
                    [--analytics-url URL] [--analytics-interval SECONDS]   (playback events, default every 180 s)
                    [--analytics-header "NAME: VALUE"]...   (sent to the collector, an Authorization for example)
                    [--library-quota BYTES] [--download-rate BYTES_PER_S]   (the offline library's downloads)
                    [--key-file PATH]   (the device key; default DATA_DIR/device.key, made at first start)
                    [--license-url URL]   (asked for a new licence before a spent copy is refused)
                    [--url-resolver URL]   (asked for the URL of open --content-id ID --resolve)
                    [--key-service URL]   (HLS keys are POSTed for here, for opens without keyService)
                    [--session-url URL] [--session-interval SECONDS] [--session-grace SECONDS]
                        (concurrent-session control: heartbeats every 30 s; an unreachable server is tolerated 120 s)
    """

    static let exitCodes = """
    Exit status: 0 ok; 1 the daemon answered an error (printed on stderr); 64 usage error
    (nothing was sent); 69 the daemon cannot be reached (EX_UNAVAILABLE).
    """

    static var overview: String {
        let width = CLICommands.all.map { short($0).count }.max() ?? 0
        let lines = CLICommands.all.map { "  " + pad(short($0), width) + "  " + $0.help }
        let options = CLICommand.globalOptions + CLICommand.waitOptions
        return """
        marquee: a headless media player daemon on GStreamer

        Daemon:
        \(serveUsage)

        Client (talks to a running daemon):
        \(lines.joined(separator: "\n"))

        Options of every client command:
        \(options.map { "  " + pad($0.usage, 16) + "  " + $0.help }.joined(separator: "\n"))
          (--wait and --timeout: commands only, not status, queue show, analytics or events)

        marquee help COMMAND        usage, options and the route a command calls
        marquee completion bash     the bash completion script
        marquee version

        \(exitCodes)
        """
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        if arguments == ["--json"] {
            print(json)
            return ExitCode.ok
        }
        guard !arguments.isEmpty else {
            print(overview)
            return ExitCode.ok
        }
        if arguments == ["serve"] {
            print("usage:\n" + serveUsage)
            return ExitCode.ok
        }
        let commands = CLICommands.group(arguments)
        guard !commands.isEmpty else { throw UsageError("no command '\(arguments.joined(separator: " "))'") }
        print(commands.map(detail).joined(separator: "\n\n"))
        return ExitCode.ok
    }

    /// `marquee pip move [x,y,w,h]`
    static func short(_ command: CLICommand) -> String {
        (["marquee", command.name] + (command.syntax.isEmpty ? [] : [command.syntax])).joined(separator: " ")
    }

    static func detail(_ command: CLICommand) -> String {
        var lines = ["usage: " + command.usage, "  " + command.help]
        if let descriptor = command.descriptor {
            lines.append("  calls: \(descriptor.method) \(descriptor.path)  (WebSocket command '\(descriptor.name.rawValue)')")
            if !descriptor.fields.isEmpty { lines.append("  body fields: " + descriptor.fields.joined(separator: ", ")) }
            if !descriptor.events.isEmpty { lines.append("  events: " + descriptor.events.joined(separator: ", ")) }
        } else {
            lines.append("  calls: \(command.method) \(command.path)")
        }
        if let setting = command.setting.flatMap(PlayerSettings.descriptor(named:)) {
            lines.append("  \(setting.name) (\(SettingArguments.syntax(setting)), default \(setting.defaultJSON)): \(setting.help)")
        }
        if !command.options.isEmpty {
            lines.append("  options:")
            for option in command.options {
                lines.append("    " + pad(option.usage, 22) + "  " + option.help + (option.field.map { " (field \($0))" } ?? ""))
            }
        }
        if command.words == ["set"] {
            lines.append("  settings (NAME=VALUE):")
            for setting in SettingArguments.descriptors {
                lines.append("    \(setting.name)=\(SettingArguments.syntax(setting))  (default \(setting.defaultJSON))")
                lines.append("      " + setting.help)
            }
        }
        if command.words == ["subtitle", "style"] {
            lines.append("  fields (FIELD=VALUE): " + SettingArguments.styleFields.map { "\($0.name) (default \(jsonText($0.defaultValue)))" }
                .joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }

    /// The table as JSON, for scripts and tests: each command's words, usage, route, the
    /// descriptor it uses and its options' body fields.
    static var json: String {
        let commands: [JSONValue] = CLICommands.all.map { command in
            .object([
                "command": .string(command.name),
                "usage": .string(command.usage),
                "help": .string(command.help),
                "method": .string(command.method),
                "path": .string(command.path),
                "descriptor": command.descriptor.map { .string($0.name.rawValue) } ?? .null,
                "options": .array(command.allOptions.map { option in
                    .object(["name": .string(option.name), "field": option.field.map(JSONValue.string) ?? .null])
                }),
            ])
        }
        return jsonText(.array(commands))
    }

    static func jsonText(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }
}
