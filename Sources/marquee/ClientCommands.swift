import ControlAPI
import FoundationEssentials
import Glibc
import MarqueeClient
import TextSupport

/// Runs a CLI command of `CLICommands.all`: one request to a running daemon (or the event
/// stream). Human output by default, the daemon's JSON with `--json`.
enum ClientCommands {
    static func run(_ command: CLICommand, _ arguments: [String]) throws -> Int32 {
        let options = command.allOptions
        let args = try ParsedArguments(arguments, valueOptions: Set(options.filter { $0.value != nil }.map(\.name)),
                                       flagOptions: Set(options.filter { $0.value == nil }.map(\.name)))
        guard command.positionals.contains(args.positionals.count) else { throw UsageError("usage: \(command.usage)") }
        let environment = ProcessInfo.processInfo.environment
        let url = args.value("url") ?? environment["MARQUEE_URL"] ?? "http://127.0.0.1:8080"
        let client = HTTPClient(baseURL: url, token: args.value("token") ?? environment["MARQUEE_TOKEN"], timeout: 30)
        let json = args.flags.contains("json")
        let body = try checkedBody(command, CLIInput(positionals: args.positionals, arguments: args))
        do {
            if command.streams { return try follow(client: client, json: json) }
            var client = client
            let query = try waitQuery(args)
            if let seconds = args.value("timeout").flatMap(Double.init) { client.timeout = max(client.timeout, seconds + 10) }
            let data = try body.map { try JSONEncoder().encode($0) }
            let response = try client.request(command.method, command.path(for: args.positionals) + query, body: data,
                                              headers: data == nil ? [:] : ["Content-Type": "application/json"])
            return show(response, as: command.output, json: json)
        } catch ClientError.http(let status, let body) {
            // The event stream's refusal (401, 429).
            return show(HTTPResponse(status: status, body: body), as: command.output, json: json)
        } catch let error as ClientError {
            // Refused, unreachable, no answer in time, a bad --url, or not a Marquee daemon.
            StandardStream.writeError("marquee: cannot reach the daemon at \(client.baseURL): \(error) (is 'marquee serve' running? --url picks another)\n")
            return ExitCode.unavailable
        }
    }

    /// The body, checked here as the daemon decodes it: a body the daemon would refuse as
    /// `invalid_argument` is a usage error, with the daemon's own message.
    private static func checkedBody(_ command: CLICommand, _ input: CLIInput) throws -> JSONValue? {
        guard let body = try command.body(input) else { return nil }
        if let descriptor = command.descriptor {
            let data = try JSONEncoder().encode(body)
            do throws(APIError) {
                _ = try Command.decode(name: descriptor.name.rawValue, arguments: data)
            } catch {
                throw UsageError(error.message)
            }
        }
        return body
    }

    /// `?wait=STATE&timeout=S`, percent-encoded.
    private static func waitQuery(_ args: ParsedArguments) throws -> String {
        guard let wait = args.value("wait") else {
            if args.value("timeout") != nil { throw UsageError("--timeout goes with --wait") }
            return ""
        }
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

    /// Prints a reply; returns the exit status (1 for an API error).
    private static func show(_ response: HTTPResponse, as kind: HumanFormat.Kind, json: Bool) -> Int32 {
        let status = response.isSuccess ? ExitCode.ok : ExitCode.apiError
        if json {
            print(response.text.trimmingNewlines())
            return status
        }
        guard let object = try? response.jsonTree() as? [String: Any] else {
            print(response.text)
            return status
        }
        if !response.isSuccess {
            let error = object["error"] as? [String: Any] ?? [:]
            StandardStream.writeError("error: \(error["code"] ?? response.status): \(error["message"] ?? response.text)\n")
            return status
        }
        print(HumanFormat.render(object, as: kind))
        return status
    }

    private static func follow(client: HTTPClient, json: Bool) throws -> Int32 {
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
            guard let event else { return ExitCode.ok }
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
