import FoundationEssentials
import TextSupport

/// The exit statuses of every `marquee` command (sysexits.h where one fits).
enum ExitCode {
    static let ok: Int32 = 0
    /// The daemon answered an error (`{"error": {...}}`), or the command failed otherwise.
    static let apiError: Int32 = 1
    /// EX_USAGE: the command line is wrong; nothing was sent.
    static let usage: Int32 = 64
    /// EX_UNAVAILABLE: the daemon could not be reached.
    static let unavailable: Int32 = 69
}

/// Dispatches `marquee <subcommand>`: the daemon, the local commands (help, completion,
/// version) and the client commands of `CLICommands.all`.
enum CommandLineTool {
    static func run(_ arguments: [String]) -> Int32 {
        guard let subcommand = arguments.first else {
            print(CLIHelp.overview)
            return ExitCode.ok
        }
        let rest = Array(arguments.dropFirst())
        do {
            switch subcommand {
            case "serve": return try ServeCommand.run(rest)
            case "help", "--help", "-h": return try CLIHelp.run(rest)
            case "version", "--version": print("marquee \(versionString)"); return ExitCode.ok
            case "completion": return try Completion.run(rest)
            default:
                guard let command = CLICommands.match(arguments) else {
                    throw UsageError("unknown command '\(subcommand)'")
                }
                let options = Array(arguments.dropFirst(command.words.count))
                if let end = options.firstIndex(of: "--") ?? Optional(options.endIndex),
                   options[..<end].contains(where: { $0 == "--help" || $0 == "-h" }) {
                    return try CLIHelp.run(command.words)
                }
                return try ClientCommands.run(command, options)
            }
        } catch let error as UsageError {
            StandardStream.writeError("marquee: \(error.message)\nrun 'marquee help' for usage\n")
            return ExitCode.usage
        } catch {
            StandardStream.writeError("marquee: \(error)\n")
            return ExitCode.apiError
        }
    }
}
