import ControlAPI
import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// The `marquee` CLI against a real daemon: every group of commands once end to end, its
/// effect read back through the API; `--json`; the exit codes; `help`; the completion script;
/// and that the CLI reaches every command of the API's vocabulary.
final class CLITests: XCTestCase {
    typealias Result = (status: Int32, stdout: String, stderr: String)

    /// Runs `marquee ARGS --url DAEMON` (no `--url` without a daemon).
    private func marquee(_ args: [String], _ daemon: Daemon? = nil) throws -> Result {
        try runProcess(Daemon.binary, args + (daemon.map { ["--url", $0.url] } ?? []), timeout: 30)
    }

    /// Runs it and expects exit 0.
    @discardableResult
    private func ok(_ args: [String], _ daemon: Daemon? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> Result {
        let r = try marquee(args, daemon)
        XCTAssertEqual(r.status, 0, "marquee \(args.joined(separator: " ")): \(r.stderr)", file: file, line: line)
        return r
    }

    private func object(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text, file: file, line: line)
    }

    // MARK: The table

    /// Every command of `CommandDescriptor.all` is reachable from some CLI command, with its
    /// descriptor's route; every option that fills a body field names a field of it. A new
    /// command without a CLI command fails here.
    func testEveryDescriptorIsReachableFromTheCLI() throws {
        let r = try ok(["help", "--json"])
        let table = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        var reached: Set<String> = []
        var routes: Set<String> = []
        for command in table {
            let name = command["command"] as? String ?? "?"
            let method = try XCTUnwrap(command["method"] as? String), path = try XCTUnwrap(command["path"] as? String)
            routes.insert("\(method) \(path)")
            let options = command["options"] as? [[String: Any]] ?? []
            if let descriptorName = command["descriptor"] as? String {
                let descriptor = try XCTUnwrap(CommandDescriptor.named(descriptorName), name)
                reached.insert(descriptorName)
                XCTAssertEqual(method, descriptor.method, name)
                XCTAssertEqual(path, descriptor.path, name)
                XCTAssertEqual((command["help"] as? String)?.hasPrefix(descriptor.help), true, name)
                for option in options {
                    guard let field = option["field"] as? String else { continue }
                    XCTAssertTrue(descriptor.fields.contains(field), "\(name) --\(option["name"] ?? "?") fills '\(field)', not a field of \(descriptorName)")
                }
            } else {
                let route = Routes.others.first { $0.method == method && $0.path == path }
                XCTAssertNotNil(route, "\(name): \(method) \(path) is no route")
                for option in options {
                    guard let field = option["field"] as? String else { continue }
                    XCTAssertTrue(route?.bodyFields.contains(field) == true, "\(name) --\(option["name"] ?? "?") fills '\(field)', not a body field of \(method) \(path)")
                }
            }
        }
        XCTAssertEqual(reached, Set(CommandDescriptor.all.map(\.name.rawValue)), "every command of the API has a CLI command")
        for read in ["GET /v1/player", "GET /v1/queue", "GET /v1/analytics", "DELETE /v1/analytics", "GET /v1/events"] {
            XCTAssertTrue(routes.contains(read), read)
        }
    }

    func testHelp() throws {
        let overview = try ok(["help"]).stdout
        let table = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try ok(["help", "--json"]).stdout.utf8)) as? [[String: Any]])
        for command in table {
            XCTAssertTrue(overview.contains("marquee \(command["command"] as? String ?? "?")"), "\(command["command"] ?? "?")")
        }
        for code in ["0 ok", "1 the daemon answered an error", "64 usage", "69 the daemon cannot be reached"] {
            XCTAssertTrue(overview.contains(code), code)
        }
        let pipMove = try ok(["help", "pip", "move"]).stdout
        XCTAssertTrue(pipMove.contains("usage: marquee pip move"), pipMove)
        XCTAssertTrue(pipMove.contains(CommandName.pipUpdate.descriptor.help), pipMove)
        XCTAssertTrue(pipMove.contains("PATCH /v1/pip"), pipMove)
        XCTAssertFalse(pipMove.contains("pip swap"), "help pip move is that command only")
        let pip = try ok(["help", "pip"]).stdout
        XCTAssertTrue(pip.contains("POST /v1/pip/swap") && pip.contains("DELETE /v1/pip"), pip)
        let set = try ok(["help", "set"]).stdout
        for setting in PlayerSettings.wireNames { XCTAssertTrue(set.contains("\(setting)="), setting) }
        XCTAssertTrue(set.contains("-60 to 60 seconds"), set)
        XCTAssertEqual(try ok(["queue", "show", "--help"]).stdout, try ok(["help", "queue", "show"]).stdout)
        XCTAssertEqual(try marquee(["help", "frobnicate"]).status, 64)
    }

    /// docs/API.md's CLI section names every CLI command.
    func testDocsNameEveryCLICommand() throws {
        let docs = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/API.md"), encoding: .utf8)
        let section = try XCTUnwrap(docs.components(separatedBy: "## Command line: `marquee`").dropFirst().first?
            .components(separatedBy: "\n## ").first)
        let table = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try ok(["help", "--json"]).stdout.utf8)) as? [[String: Any]])
        for command in table {
            let words = (command["command"] as? String ?? "?").split(separator: " ")
            let named = section.contains("`marquee \(words.joined(separator: " "))") || (words.count > 1 && section.contains("`\(words.joined(separator: " "))"))
                || (words.count == 1 && section.contains("`\(words[0])`"))
            XCTAssertTrue(named, "docs/API.md's CLI section does not name `marquee \(words.joined(separator: " "))`")
        }
        for code in ["`0`", "`1`", "`64`", "`69`"] { XCTAssertTrue(section.contains(code), code) }
    }

    func testCompletionScriptCoversEveryCommandAndParses() throws {
        let script = try ok(["completion", "bash"]).stdout
        let table = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try ok(["help", "--json"]).stdout.utf8)) as? [[String: Any]])
        for command in table {
            for word in (command["command"] as? String ?? "").split(separator: " ") {
                XCTAssertTrue(script.contains(String(word)), "the completion does not offer '\(word)'")
            }
            for option in command["options"] as? [[String: Any]] ?? [] {
                XCTAssertTrue(script.contains("--\(option["name"] as? String ?? "?")"), "\(option)")
            }
        }
        for setting in PlayerSettings.wireNames { XCTAssertTrue(script.contains("\(setting)="), setting) }
        XCTAssertTrue(script.contains("complete -o default -F _marquee marquee"))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-completion-\(UUID().uuidString).bash")
        try script.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let check = try runProcess("bash", ["-n", file.path], timeout: 10)
        XCTAssertEqual(check.status, 0, check.stderr)
        // Sourced, it completes: the first word, a sub-command, a setting.
        func complete(_ words: [String]) throws -> [String] {
            let line = words.map { "'\($0)'" }.joined(separator: " ")
            let r = try runProcess("bash", ["-c", "source '\(file.path)'; COMP_WORDS=(\(line)); COMP_CWORD=\(words.count - 1); _marquee; printf '%s\\n' \"${COMPREPLY[@]}\""], timeout: 10)
            XCTAssertEqual(r.status, 0, r.stderr)
            return r.stdout.split(separator: "\n").map(String.init)
        }
        XCTAssertTrue(try complete(["marquee", "pi"]).contains("pip"))
        XCTAssertEqual(Set(try complete(["marquee", "pip", "s"])).intersection(["swap", "stop"]), ["swap", "stop"])
        XCTAssertTrue(try complete(["marquee", "set", "subtitleD"]).contains("subtitleDelay="))
        XCTAssertTrue(try complete(["marquee", "watermark", "--position", "top-"]).contains("top-right"))
        XCTAssertEqual(try marquee(["completion", "fish"]).status, 64)
    }

    // MARK: Exit codes

    func testExitCodes() throws {
        let daemon = try Daemon()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        // 64: the command line is wrong, checked by the setting's kind and range; nothing is sent.
        for args in [["frobnicate"], ["set", "subtitleDelay=61"], ["set", "rate=fast"], ["set", "nosuch=1"],
                     ["set", "repeat=sometimes"], ["repeat", "twice"], ["ab", "5", "2"], ["pip", "move"],
                     ["pip", "x.mp4", "--rect", "0.5,0.5"], ["watermark"], ["watermark", "X", "--size", "2"],
                     ["subtitle", "style", "fontSize=9"], ["seek"], ["open", "a", "b"], ["status", "--bogus"], ["play", "--wait"]] {
            let r = try marquee(args, daemon)
            XCTAssertEqual(r.status, 64, "marquee \(args.joined(separator: " ")): \(r.stdout) \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("marquee: "), r.stderr)
        }
        let s = try daemon.snapshot()
        XCTAssertEqual(s["subtitleDelay"] as? Double ?? -1, 0)
        XCTAssertEqual(s["repeat"] as? String, "none")
        // 1: the daemon's error, on stderr; with --json the error body on stdout.
        var r = try marquee(["pip", "stop"], daemon)
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("no_pip"), r.stderr)
        r = try marquee(["variant", "auto", "--json"], daemon)
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual((try object(r.stdout)["error"] as? [String: Any])?["code"] as? String, "no_source")
        r = try marquee(["open", "/nonexistent.mp4"], daemon)
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("not_found"), r.stderr)
        // 69: nothing answers.
        r = try marquee(["status", "--url", "http://127.0.0.1:1"])
        XCTAssertEqual(r.status, 69)
        XCTAssertTrue(r.stderr.contains("cannot reach"), r.stderr)
    }

    // MARK: Each group end to end

    func testSettingsRepeatABAndSubtitles() throws {
        let daemon = try Daemon()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let clip = try MediaFixtures.mp4()
        var r = try ok(["open", clip.path, "--wait", "playing"], daemon)
        XCTAssertTrue(r.stdout.hasPrefix("playing"), r.stdout)

        r = try ok(["set", "subtitleDelay=-1.5", "volume=0.5", "muted=true", "audioDelay=0.2", "--json"], daemon)
        let patched = try object(r.stdout)
        XCTAssertEqual(patched["subtitleDelay"] as? Double, -1.5)
        var s = try daemon.snapshot()
        XCTAssertEqual(s["subtitleDelay"] as? Double, -1.5)
        XCTAssertEqual(s["volume"] as? Double, 0.5)
        XCTAssertEqual(s["muted"] as? Bool, true)
        XCTAssertEqual(s["audioDelay"] as? Double, 0.2)
        try ok(["set", "subtitleStyle={\"fontSize\":0.08}", "abLoop=1,2.5"], daemon)
        s = try daemon.snapshot()
        XCTAssertEqual((s["subtitleStyle"] as? [String: Any])?["fontSize"] as? Double, 0.08)
        XCTAssertEqual((s["abLoop"] as? [String: Any])?["b"] as? Double, 2.5)

        r = try ok(["repeat", "all"], daemon)
        XCTAssertTrue(r.stdout.contains("repeat   all"), r.stdout)
        XCTAssertEqual(try daemon.snapshot()["repeat"] as? String, "all")
        try ok(["repeat", "off"], daemon)
        XCTAssertEqual(try daemon.snapshot()["repeat"] as? String, "none")

        r = try ok(["ab", "1", "3.5"], daemon)
        XCTAssertTrue(r.stdout.contains("ab loop"), r.stdout)
        let loop = try XCTUnwrap(try daemon.snapshot()["abLoop"] as? [String: Any])
        XCTAssertEqual(loop["a"] as? Double, 1)
        XCTAssertEqual(loop["b"] as? Double, 3.5)
        try ok(["ab", "off"], daemon)
        XCTAssertTrue(try daemon.snapshot()["abLoop"] is NSNull)

        try ok(["subtitle", "style", "fontSize=0.07", "color=#FFFF00", "align=top"], daemon)
        let style = try XCTUnwrap(try daemon.snapshot()["subtitleStyle"] as? [String: Any])
        XCTAssertEqual(style["fontSize"] as? Double, 0.07)
        XCTAssertEqual(style["color"] as? String, "#FFFF00FF")
        XCTAssertEqual(style["align"] as? String, "top")

        let subtitles = try OutputFixtures.shortCues(.srt)
        r = try ok(["subtitle", "add", subtitles.url.path], daemon)
        XCTAssertTrue(r.stdout.contains("*external-1"), r.stdout)
        func selectedSubtitle() throws -> String? {
            let tracks = try daemon.snapshot()["tracks"] as? [String: Any]
            return (tracks?["subtitle"] as? [[String: Any]])?.first { $0["selected"] as? Bool == true }?["id"] as? String
        }
        XCTAssertEqual(try selectedSubtitle(), "external-1")
        try ok(["subtitle", "off"], daemon)
        XCTAssertNil(try selectedSubtitle())
        try ok(["subtitle", "external-1"], daemon)
        XCTAssertEqual(try selectedSubtitle(), "external-1")

        // The existing commands keep working.
        try ok(["pause", "--wait", "paused"], daemon)
        try ok(["seek", "2", "--exact", "--wait", "paused"], daemon)
        XCTAssertEqual(try XCTUnwrap(try daemon.snapshot().position), 2, accuracy: 0.05)
        try ok(["play", "--wait", "playing"], daemon)
        // `auto` is always allowed with a source (a pinned id needs HLS: `unknown_variant`).
        try ok(["variant", "auto"], daemon)
        XCTAssertEqual((try daemon.snapshot()["variant"] as? [String: Any])?["mode"] as? String, "auto")
        let r2 = try marquee(["variant", "v9"], daemon)
        XCTAssertEqual(r2.status, 1)
        XCTAssertTrue(r2.stderr.contains("unknown_variant"), r2.stderr)
        try ok(["stop"], daemon)
        XCTAssertEqual(try daemon.snapshot().state, "idle")
    }

    func testPictureInPictureAndWatermark() throws {
        let daemon = try Daemon()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let clip = try MediaFixtures.mp4()
        try ok(["open", clip.path, "--wait", "playing"], daemon)

        var r = try ok(["pip", clip.path, "--rect", "0.6,0.6,0.3,0.3"], daemon)
        XCTAssertTrue(r.stdout.contains("pip      "), r.stdout)
        func pip() throws -> [String: Any] { try XCTUnwrap(try daemon.snapshot()["pip"] as? [String: Any]) }
        var rect = try XCTUnwrap(try pip()["rect"] as? [String: Any])
        XCTAssertEqual(rect["x"] as? Double, 0.6)
        XCTAssertEqual(rect["width"] as? Double, 0.3)
        XCTAssertEqual(try pip()["muted"] as? Bool, true)
        try ok(["pip", "move", "0.05,0.05,0.25,0.25", "--muted", "false"], daemon)
        rect = try XCTUnwrap(try pip()["rect"] as? [String: Any])
        XCTAssertEqual(rect["y"] as? Double, 0.05)
        XCTAssertEqual(rect["height"] as? Double, 0.25)
        XCTAssertEqual(try pip()["muted"] as? Bool, false)
        r = try ok(["pip", "swap", "--json"], daemon)
        XCTAssertEqual((try object(r.stdout)["pip"] as? [String: Any])?["swapped"] as? Bool, true)
        XCTAssertEqual(try pip()["swapped"] as? Bool, true)
        try ok(["pip", "stop"], daemon)
        XCTAssertTrue(try daemon.snapshot()["pip"] is NSNull)

        r = try ok(["watermark", "LIVE", "--position", "top-right", "--size", "0.04", "--color", "#FF0000CC"], daemon)
        XCTAssertTrue(r.stdout.contains("watermark \"LIVE\" at top-right"), r.stdout)
        var mark = try XCTUnwrap(try daemon.snapshot()["watermark"] as? [String: Any])
        XCTAssertEqual(mark["text"] as? String, "LIVE")
        XCTAssertEqual(mark["size"] as? Double, 0.04)
        XCTAssertEqual(mark["color"] as? String, "#FF0000CC")
        let png = try OutputFixtures.solidPNG(.green)
        try ok(["watermark", "--image", png.path, "--position", "random", "--interval", "30", "--opacity", "0.6"], daemon)
        mark = try XCTUnwrap(try daemon.snapshot()["watermark"] as? [String: Any])
        XCTAssertEqual(mark["position"] as? String, "random")
        XCTAssertTrue((mark["image"] as? String)?.hasSuffix(png.lastPathComponent) == true, "\(mark)")
        XCTAssertNil(mark["text"] as? String)
        try ok(["watermark", "off"], daemon)
        XCTAssertTrue(try daemon.snapshot()["watermark"] is NSNull)
    }

    func testQueueAndAnalytics() throws {
        let daemon = try Daemon()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let a = try MediaFixtures.mp4(), b = try MediaFixtures.mp4(seconds: 2)
        try ok(["queue", a.path, b.path, "--loop", "--wait", "playing"], daemon)
        func queue() throws -> [String: Any] { try XCTUnwrap(try daemon.client.get("/v1/queue").json() as? [String: Any]) }
        var q = try queue()
        XCTAssertEqual((q["items"] as? [Any])?.count, 2)
        XCTAssertEqual(q["loop"] as? Bool, true)
        XCTAssertEqual(q["index"] as? Int, 0)
        try ok(["queue", "next", "--wait", "playing"], daemon)
        XCTAssertEqual(try queue()["index"] as? Int, 1)
        try ok(["queue", "previous", "--wait", "playing"], daemon)
        XCTAssertEqual(try queue()["index"] as? Int, 0)
        var r = try ok(["queue", "show"], daemon)
        XCTAssertTrue(r.stdout.hasPrefix("*1  \(a.path)"), r.stdout)
        XCTAssertTrue(r.stdout.contains(" 2  \(b.path)"), r.stdout)
        r = try ok(["queue", "show", "--json"], daemon)
        XCTAssertEqual((try object(r.stdout)["items"] as? [Any])?.count, 2)
        try ok(["queue", "clear"], daemon)
        q = try queue()
        XCTAssertEqual((q["items"] as? [Any])?.count, 0)

        r = try ok(["analytics"], daemon)
        XCTAssertTrue(r.stdout.contains("analytics off"), r.stdout)
        r = try ok(["analytics", "--json"], daemon)
        let counters = try object(r.stdout)
        XCTAssertEqual(counters["enabled"] as? Bool, false)
        XCTAssertNotNil(counters["pending"])
        r = try ok(["analytics", "clear", "--json"], daemon)
        XCTAssertEqual(try object(r.stdout)["dropped"] as? Int, 0)
    }

    /// With a collector configured: `analytics` shows the counters, `analytics clear` drops what waits.
    func testAnalyticsCountersWithACollector() throws {
        // Nothing listens on port 1: events wait in the outbox.
        let daemon = try Daemon(extraArguments: ["--analytics-url", "http://127.0.0.1:1/events", "--analytics-interval", "60"])
        defer { XCTAssertEqual(daemon.stop(), 0) }
        try ok(["open", try MediaFixtures.mp4().path, "--wait", "playing"], daemon)
        try ok(["stop"], daemon)
        var r = try ok(["analytics"], daemon)
        XCTAssertTrue(r.stdout.contains("analytics to http://127.0.0.1:1/events"), r.stdout)
        XCTAssertTrue(r.stdout.contains("pending "), r.stdout)
        r = try ok(["analytics", "clear", "--json"], daemon)
        let counters = try object(r.stdout)
        XCTAssertEqual(counters["pending"] as? Int, 0)
    }
}
