import FoundationEssentials
import Glibc
import TextSupport
import MarqueeClient

/// The client subcommands: each is one request to a running daemon. Human output by
/// default, the daemon's JSON with `--json`.
enum ClientCommands {
    static func run(_ subcommand: String, _ arguments: [String]) throws -> Int32 {
        let args = try ParsedArguments(arguments, valueOptions: ["url", "token", "start", "wait", "timeout", "timeshift"],
                                       flagOptions: ["json", "paused", "exact"])
        let environment = ProcessInfo.processInfo.environment
        let client = HTTPClient(baseURL: args.value("url") ?? environment["MARQUEE_URL"] ?? "http://127.0.0.1:8080",
                                token: args.value("token") ?? environment["MARQUEE_TOKEN"], timeout: 30)
        let json = args.flags.contains("json")
        let p = args.positionals
        do {
            switch subcommand {
            case "status":
                return show(try client.get("/v1/player"), json: json)
            case "open":
                guard p.count == 1 else {
                    throw UsageError("usage: marquee open URI|PATH [--paused] [--start S] [--timeshift WINDOW_S] [--wait STATE]")
                }
                var body: [String: Any] = ["uri": absoluteIfLocalPath(p[0])]
                if args.flags.contains("paused") { body["autoplay"] = false }
                if let start = args.value("start") {
                    guard let s = Double(start) else { throw UsageError("--start takes seconds") }
                    body["start"] = s
                }
                if let window = args.value("timeshift") {
                    guard let seconds = Double(window) else { throw UsageError("--timeshift takes the window in seconds") }
                    body["timeshift"] = ["window": seconds]
                }
                return show(try client.post("/v1/player/open" + waitQuery(args), json: body), json: json)
            case "play", "pause", "stop", "live":
                guard p.isEmpty else { throw UsageError("\(subcommand) takes no arguments") }
                return show(try client.post("/v1/player/\(subcommand)" + waitQuery(args), json: nil), json: json)
            case "seek":
                guard p.count == 1, let value = Double(p[0]) else { throw UsageError("usage: marquee seek SECONDS|+S|-S [--exact]") }
                let relative = p[0].hasPrefix("+") || p[0].hasPrefix("-")
                var body: [String: Any] = relative ? ["offset": value] : ["position": value]
                if args.flags.contains("exact") { body["exact"] = true }
                return show(try client.post("/v1/player/seek" + waitQuery(args), json: body), json: json)
            case "set":
                guard !p.isEmpty else { throw UsageError("usage: marquee set rate=2 volume=0.5 muted=true audioDelay=0.2 repeat=one") }
                return show(try client.patch("/v1/player", json: try settings(p)), json: json)
            case "audio":
                guard p.count == 1 else { throw UsageError("usage: marquee audio TRACK_ID") }
                return show(try client.post("/v1/player/tracks/audio", json: ["id": p[0]]), json: json)
            case "subtitle":
                guard p.count == 1 else { throw UsageError("usage: marquee subtitle TRACK_ID|off") }
                let id: Any = p[0] == "off" ? JSONNull() : p[0]
                return show(try client.post("/v1/player/tracks/subtitle", json: ["id": id]), json: json)
            case "events":
                return try follow(client: client, args: args, json: json)
            default:
                throw UsageError("unknown command '\(subcommand)'")
            }
        } catch ClientError.connectFailed {
            StandardStream.writeError("marquee: cannot reach the daemon at \(client.baseURL) (is 'marquee serve' running? --url picks another)\n")
            return 2
        }
    }

    /// A relative path means a file here; the daemon's working directory may be elsewhere.
    static func absoluteIfLocalPath(_ text: String) -> String {
        if text.contains("://") || text.hasPrefix("/") || text == "demo" { return text }
        return URL(fileURLWithPath: text).standardizedFileURL.path
    }

    private static func waitQuery(_ args: ParsedArguments) -> String {
        guard let wait = args.value("wait") else { return "" }
        var q = "?wait=" + encodeAlphanumerics(wait)
        if let t = args.value("timeout") { q += "&timeout=" + encodeAlphanumerics(t) }
        return q
    }

    /// `addingPercentEncoding(withAllowedCharacters: .alphanumerics)`, which FoundationEssentials
    /// lacks. Foundation on Linux keeps only the ASCII letters and digits of that set (a URL
    /// must be ASCII) and writes every other UTF-8 byte as uppercase %XX; so does this.
    static func encodeAlphanumerics(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += String(printf: "%%%02X", byte)
            }
        }
        return out
    }

    private static func settings(_ pairs: [String]) throws -> [String: Any] {
        var body: [String: Any] = [:]
        for pair in pairs {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw UsageError("settings are key=value, got '\(pair)'") }
            switch parts[0] {
            case "rate", "volume", "audioDelay":
                guard let n = Double(parts[1]) else { throw UsageError("\(parts[0]) takes a number") }
                body[parts[0]] = n
            case "muted":
                guard let b = Bool(parts[1]) else { throw UsageError("muted takes true or false") }
                body["muted"] = b
            case "repeat":
                body["repeat"] = parts[1]
            default:
                throw UsageError("unknown setting '\(parts[0])'")
            }
        }
        return body
    }

    /// Prints a reply; returns the exit status (1 for an API error).
    private static func show(_ response: HTTPResponse, json: Bool) -> Int32 {
        if json {
            print(response.text.trimmingNewlines())
            return response.isSuccess ? 0 : 1
        }
        guard let object = try? response.jsonTree() as? [String: Any] else {
            print(response.text)
            return response.isSuccess ? 0 : 1
        }
        if let error = object["error"] as? [String: Any], !response.isSuccess {
            StandardStream.writeError("error: \(error["code"] ?? "?"): \(error["message"] ?? "")\n")
            return 1
        }
        print(HumanFormat.snapshot(object))
        return 0
    }

    private static func follow(client: HTTPClient, args: ParsedArguments, json: Bool) throws -> Int32 {
        let stream = SSEClient(baseURL: client.baseURL, token: client.token)
        try stream.connect(timeout: 10)
        defer { stream.close() }
        while true {
            let event: SSEEvent?
            do {
                event = try stream.next(timeout: 3600)
            } catch ClientError.timeout {
                continue
            }
            guard let event else { return 0 }
            if json {
                print(event.data)
            } else if let object = try? event.jsonTree() as? [String: Any] {
                print(HumanFormat.event(object))
            }
            // Each event goes out at once, also into a pipe (`marquee events | grep state`).
            fflush(nil)
        }
    }
}
