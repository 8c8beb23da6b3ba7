import ControlAPI

/// One option of a CLI command: `--name VALUE` or `--name`. `field` is the body field it
/// fills, one of its descriptor's `fields` (a test checks it through `marquee help --json`).
struct CLIOption: Sendable {
    let name: String
    /// The value's placeholder (`x,y,w,h`); nil for a flag.
    let value: String?
    let field: String?
    let help: String
    /// Words the completion offers for the value.
    var choices: [String] = []
    /// The completion offers file names for the value.
    var files = false

    static func flag(_ name: String, field: String? = nil, _ help: String) -> CLIOption {
        CLIOption(name: name, value: nil, field: field, help: help)
    }

    static func value(_ name: String, _ placeholder: String, field: String? = nil, _ help: String,
                      choices: [String] = [], files: Bool = false) -> CLIOption {
        CLIOption(name: name, value: placeholder, field: field, help: help, choices: choices, files: files)
    }

    var usage: String { "--\(name)" + (value.map { " " + $0 } ?? "") }
}

/// What a command line gave a CLI command: its positionals (after the command's words) and
/// options.
struct CLIInput {
    let positionals: [String]
    let arguments: ParsedArguments

    subscript(_ index: Int) -> String { positionals[index] }
    func value(_ option: String) -> String? { arguments.value(option) }
    func flag(_ option: String) -> Bool { arguments.flags.contains(option) }
}

/// One CLI command. Its route, method, help, body fields and events come from the API's
/// vocabulary (a `CommandDescriptor`, or for the reads that are not commands a route of
/// `Routes.others`); the CLI adds only its argument syntax: the words, the positionals, the
/// options and how they become the JSON body.
struct CLICommand: Sendable {
    enum Target: Sendable {
        /// A command of `CommandDescriptor.all`.
        case command(CommandName)
        /// A read or other route of `Routes.others` (not a command); `help` is the CLI's own.
        case route(method: String, path: String, help: String)
    }

    /// What the completion offers for positionals.
    enum Completion: Sendable, Equatable {
        case none, files
        case words([String])
        /// `NAME=` of each setting.
        case settings([String])
    }

    /// `["pip", "move"]`.
    let words: [String]
    /// The positionals' syntax (`URI|PATH`), empty when none.
    let syntax: String
    let positionals: ClosedRange<Int>
    let target: Target
    var options: [CLIOption] = []
    /// The setting it changes, for a command of `set` (its help is the setting's).
    var setting: String? = nil
    /// The CLI's own words on what it sends, when the descriptor's help is about more.
    var note: String? = nil
    var completion: Completion = .none
    var output: HumanFormat.Kind = .snapshot
    /// Follows a stream instead of one request (`events`).
    var streams = false
    /// The JSON body (nil: none), from the positionals and options; a bad value is a `UsageError`.
    var body: @Sendable (CLIInput) throws -> JSONValue? = { _ in nil }

    var name: String { words.joined(separator: " ") }
    var usage: String {
        (["marquee", name] + (syntax.isEmpty ? [] : [syntax]) + options.map { "[\($0.usage)]" }).joined(separator: " ")
    }

    var descriptor: CommandDescriptor? {
        if case .command(let name) = target { return name.descriptor }
        return nil
    }

    var method: String {
        switch target {
        case .command(let name): return name.descriptor.method
        case .route(let method, _, _): return method
        }
    }

    /// The route's path: fixed, except an item's `{id}`, which is the first positional,
    /// percent-encoded (`path(for:)`).
    var path: String {
        switch target {
        case .command(let name): return name.descriptor.path
        case .route(_, let path, _): return path
        }
    }

    /// The path to request: `path` with `{id}` replaced by the first positional.
    func path(for positionals: [String]) -> String {
        guard path.contains("{id}"), let id = positionals.first else { return path }
        return path.replacing("{id}", with: ClientCommands.encodeAlphanumerics(id))
    }

    var help: String {
        var help: String
        switch target {
        case .command(let name): help = name.descriptor.help
        case .route(_, _, let text): help = text
        }
        if let setting { help += ": " + setting }
        if let note { help += " (" + note + ")" }
        return help
    }

    /// Options every command takes.
    static let globalOptions: [CLIOption] = [
        .flag("json", "print the daemon's JSON as it is"),
        .value("url", "URL", "the daemon (MARQUEE_URL; default http://127.0.0.1:8080)"),
        .value("token", "TOKEN", "the API token (MARQUEE_TOKEN)"),
    ]

    /// Options every command of the API takes: `?wait=STATE&timeout=S`.
    static let waitOptions: [CLIOption] = [
        .value("wait", "STATE", "answer once the player is in STATE", choices: PlaybackState.allCases.map(\.rawValue)),
        .value("timeout", "S", "how long --wait waits (default 10)"),
    ]

    var allOptions: [CLIOption] {
        options + (descriptor == nil ? [] : Self.waitOptions) + Self.globalOptions
    }
}

/// The CLI's commands: one table that dispatch, `marquee help`, the bash completion and the
/// tests read.
enum CLICommands {
    static let all: [CLICommand] = playback + output + content + library

    /// The command a command line names: the longest `words` it starts with.
    static func match(_ arguments: [String]) -> CLICommand? {
        all.filter { Array(arguments.prefix($0.words.count)) == $0.words }.max { $0.words.count < $1.words.count }
    }

    /// The commands whose words start with `words` (`help pip` shows the whole group).
    static func group(_ words: [String]) -> [CLICommand] {
        all.filter { Array($0.words.prefix(words.count)) == words }
    }

    /// The first words, in table order.
    static var topWords: [String] {
        var seen: [String] = []
        for command in all where !seen.contains(command.words[0]) { seen.append(command.words[0]) }
        return seen
    }
}
