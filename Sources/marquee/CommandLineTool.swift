import FoundationEssentials
import TextSupport

/// Dispatches `marquee <subcommand>`.
enum CommandLineTool {
    static let usage = """
    marquee: a headless media player daemon on GStreamer

    Daemon:
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

    Client (talks to a running daemon; --url URL or MARQUEE_URL, default http://127.0.0.1:8080):
      marquee status                    the player's state
      marquee open URI|PATH [--paused] [--start S] [--timeshift WINDOW_S] [--wait STATE]
      marquee play | pause | stop | live    (live: back to the live edge)
      marquee seek SECONDS|+S|-S [--exact]
      marquee set rate=2 volume=0.5 muted=true audioDelay=0.2 repeat=one
      marquee audio TRACK_ID | marquee subtitle TRACK_ID|off
      marquee events                    follow the event stream
      Options: --json (machine output), --url URL, --token TOKEN (or MARQUEE_TOKEN)

    marquee version | help
    """

    static func run(_ arguments: [String]) -> Int32 {
        guard let subcommand = arguments.first else {
            print(usage)
            return 0
        }
        let rest = Array(arguments.dropFirst())
        do {
            switch subcommand {
            case "serve": return try ServeCommand.run(rest)
            case "help", "--help", "-h": print(usage); return 0
            case "version", "--version": print("marquee \(versionString)"); return 0
            default: return try ClientCommands.run(subcommand, rest)
            }
        } catch let error as UsageError {
            StandardStream.writeError("marquee: \(error.message)\nrun 'marquee help' for usage\n")
            return 64  // EX_USAGE
        } catch {
            StandardStream.writeError("marquee: \(error)\n")
            return 1
        }
    }
}

struct UsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// A small option parser: `--name value`, `--name=value`, `--flag`, positionals in order.
struct ParsedArguments {
    var options: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []

    init(_ arguments: [String], valueOptions: Set<String>, flagOptions: Set<String>) throws {
        var i = 0
        while i < arguments.count {
            let arg = arguments[i]
            if arg.hasPrefix("--") && arg.count > 2 {
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
