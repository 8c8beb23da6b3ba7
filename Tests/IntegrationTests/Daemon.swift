import Foundation
import MarqueeClient
import TestMedia
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A real `marquee serve` process on 127.0.0.1 port 0 with fake sinks and its own data
/// directory, for one test. `stop()` sends SIGTERM and returns the exit status; `crash()`
/// sends SIGKILL.
///
/// A restart on the same data directory: make one with `makeDataDirectory()`, pass it as
/// `dataDirectory` to each daemon in turn and remove it yourself; a daemon given its
/// directory never removes it.
final class Daemon {
    let process = Process()
    let url: String
    let client: HTTPClient
    let dataDirectory: URL
    /// The daemon's stderr (its log). A file, not a pipe: nobody reads a pipe while a test
    /// runs, and a full pipe would block the daemon's logging.
    let logURL: URL
    /// False when the caller gave the data directory: it outlives this daemon.
    private let ownsDataDirectory: Bool
    private let stdoutPipe = Pipe()

    var pid: pid_t { process.processIdentifier }

    /// A fresh, empty data directory under the temporary folder, for daemons that share it
    /// (a restart). The caller removes it.
    static func makeDataDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Where SwiftPM put the `marquee` binary: next to the test bundle.
    static var binary: String {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent("marquee").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        // Fallback: the package's debug build folder.
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return package.appendingPathComponent(".build/debug/marquee").path
    }

    /// `dataDirectory`: reuse this folder (what an earlier daemon left there: the database,
    /// resume points, the analytics outbox) and keep it when this daemon stops; each daemon
    /// then logs to its own `daemon-XXXXXXXX.log` in it. Without it, a new folder that `stop()`
    /// removes.
    /// `environment`: variables added to the test's own (e.g. `GST_PLUGIN_FEATURE_RANK`).
    init(dataDirectory reused: URL? = nil, extraArguments: [String] = [], token: String? = nil,
         environment: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) throws {
        if let reused {
            dataDirectory = reused
            ownsDataDirectory = false
            try FileManager.default.createDirectory(at: reused, withIntermediateDirectories: true)
            logURL = reused.appendingPathComponent("daemon-\(UUID().uuidString.prefix(8)).log")
        } else {
            dataDirectory = try Self.makeDataDirectory()
            ownsDataDirectory = true
            logURL = dataDirectory.appendingPathComponent("daemon.log")
        }
        process.executableURL = URL(fileURLWithPath: Self.binary)
        var arguments = ["serve", "--listen", "127.0.0.1:0", "--video-sink", "fakevideosink", "--audio-sink", "fakeaudiosink",
                         "--data-dir", dataDirectory.path, "--log-level", "debug"]
        if let token { arguments += ["--token", token] }
        process.arguments = arguments + extraArguments
        // A crash (rare ones in GStreamer's streaming threads included) leaves its stack in
        // the daemon's log, which MARQUEE_TEST_KEEP_CRASH_LOGS keeps.
        // unwind=precise: GStreamer's and libsoup's frames have no frame pointers, and the
        // fast unwinder stopped at the first of them ("..." after frame 0 of a libsoup crash).
        let crashReports = ["SWIFT_BACKTRACE": "enable=yes,interactive=no,color=no,unwind=precise,threads=crashed"]
        process.environment = ProcessInfo.processInfo.environment
            .merging(crashReports) { mine, _ in mine }
            .merging(environment) { _, added in added }
        process.standardOutput = stdoutPipe
        FileManager.default.createFile(atPath: logURL.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: logURL)
        try process.run()
        let line = try Self.readLine(from: stdoutPipe.fileHandleForReading, timeout: 15)
        guard line.hasPrefix("listening on ") else {
            process.terminate()
            throw DaemonError.noListeningLine(line + "\n" + ((try? String(contentsOf: logURL, encoding: .utf8)) ?? ""))
        }
        url = String(line.dropFirst("listening on ".count))
        client = HTTPClient(baseURL: url, token: token, timeout: 20)
    }

    enum DaemonError: Error { case noListeningLine(String) }

    /// A test's tearDown: a daemon still running must exit 0 on SIGTERM; a failure shows the
    /// end of its log.
    func assertStopsCleanly(file: StaticString = #filePath, line: UInt = #line) {
        guard process.isRunning else { return }
        XCTAssertEqual(stop(), 0, "the daemon must exit 0 on SIGTERM; log:\n\(log.suffix(4000))", file: file, line: line)
    }

    /// Everything the daemon logged so far (after `stop()`, what it logged until it exited).
    var log: String { finalLog ?? (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }
    /// The log as it was when `stop()` removed the data directory.
    private var finalLog: String?

    /// Reads one line byte by byte (the daemon writes it unbuffered), with a deadline.
    static func readLine(from handle: FileHandle, timeout: Double) throws -> String {
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        let fd = handle.fileDescriptor
        while Date() < deadline {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 100) > 0 else { continue }
            var byte: UInt8 = 0
            guard read(fd, &byte, 1) == 1 else { break }
            if byte == 0x0A { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// SIGTERM, then waits up to `timeout` s. Returns the exit status, or nil if it hung
    /// (then it is killed). Once it has exited, removes `dataDirectory` (timeshift writes
    /// megabytes there) unless MARQUEE_KEEP_TEST_DATA=1; `log` still answers afterwards.
    @discardableResult
    func stop(timeout: Double = 10) -> Int32? {
        defer { removeDataDirectory() }
        guard process.isRunning else {
            // It ended on its own: a crash. The log (removed with the folder) says why; with
            // MARQUEE_TEST_KEEP_CRASH_LOGS=DIR the whole log is kept there too.
            print("daemon \(pid) had already exited (status \(process.terminationStatus)); its log ends:\n"
                  + log.split(separator: "\n", omittingEmptySubsequences: false).suffix(80).joined(separator: "\n"))
            if let keep = ProcessInfo.processInfo.environment["MARQUEE_TEST_KEEP_CRASH_LOGS"] {
                try? FileManager.default.copyItem(at: logURL, to: URL(fileURLWithPath: keep).appendingPathComponent("daemon-\(pid).log"))
            }
            return process.terminationStatus
        }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        if process.terminationStatus != 0 {
            // A crash on the way out: CI keeps only the test's output, so the stack goes there.
            print("daemon \(pid) exited with status \(process.terminationStatus) after SIGTERM; its log ends:\n"
                  + log.split(separator: "\n", omittingEmptySubsequences: false).suffix(120).joined(separator: "\n"))
            if let keep = ProcessInfo.processInfo.environment["MARQUEE_TEST_KEEP_CRASH_LOGS"] {
                try? FileManager.default.copyItem(at: logURL, to: URL(fileURLWithPath: keep).appendingPathComponent("daemon-\(pid).log"))
            }
        }
        return process.terminationStatus
    }

    /// SIGKILL (a crash: no clean-up, nothing flushed), then waits up to `timeout` s for the
    /// process to exit. True when it is gone and SIGKILL is what ended it; false when it had
    /// already exited on its own or did not go in time. Keeps the data directory.
    @discardableResult
    func crash(timeout: Double = 10) -> Bool {
        guard process.isRunning else { return false }
        let pid = process.processIdentifier
        kill(pid, SIGKILL)
        // waitid(WNOWAIT) sees the exit without reaping it (Foundation reaps it), and does not
        // depend on descendants closing what they inherited.
        let deadline = Date().addingTimeInterval(timeout)
        var exited = false
        while !exited && Date() < deadline {
            #if os(Linux)
            var info = siginfo_t()
            let rc = waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT | WNOHANG)
            if rc == 0, info._sifields._sigchld.si_pid == pid {
                exited = true
            } else if rc != 0, errno == ECHILD {
                exited = true  // already reaped
            } else {
                usleep(10_000)
            }
            #else
            exited = !process.isRunning
            if !exited { usleep(10_000) }
            #endif
        }
        while process.isRunning && Date() < deadline { usleep(10_000) }
        guard !process.isRunning else { return false }
        return process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
    }

    private func removeDataDirectory() {
        guard finalLog == nil else { return }
        finalLog = log
        guard ownsDataDirectory, ProcessInfo.processInfo.environment["MARQUEE_KEEP_TEST_DATA"] != "1" else { return }
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        if ownsDataDirectory { try? FileManager.default.removeItem(at: dataDirectory) }
    }

    // MARK: Helpers for tests

    /// POST with a JSON body, returning status and decoded JSON object.
    func post(_ path: String, _ body: [String: Any]? = nil) throws -> (Int, [String: Any]) {
        let r = try client.post(path, json: body)
        return (r.status, (try? r.json() as? [String: Any]) ?? [:])
    }

    /// After bad input: the daemon still serves and plays a good file (then stops it).
    func assertStillPlays(file: StaticString = #filePath, line: UInt = #line) throws {
        let clip = try MediaFixtures.mp4(seconds: 2)
        let (status, s) = try post("/v1/player/open?wait=playing", ["uri": clip.path])
        XCTAssertEqual(status, 200, "\(s)", file: file, line: line)
        XCTAssertEqual(s.state, "playing", file: file, line: line)
        _ = try post("/v1/player/stop")
    }

    func snapshot() throws -> [String: Any] {
        try client.get("/v1/player").json() as? [String: Any] ?? [:]
    }

    /// Polls the snapshot until `condition` holds or `timeout` passes.
    func waitFor(_ description: String, timeout: Double = 10, _ condition: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        var last: [String: Any] = [:]
        while Date() < deadline {
            last = try snapshot()
            if condition(last) { return last }
            usleep(50_000)
        }
        XCTFail("timed out waiting for \(description); last snapshot: \(last)")
        return last
    }
}

extension Dictionary where Key == String, Value == Any {
    var state: String? { self["state"] as? String }
    var position: Double? { self["position"] as? Double }
    var errorCode: String? { (self["error"] as? [String: Any])?["code"] as? String }
}

/// Collects events from a WebSocket until a predicate is met.
func collectEvents(_ ws: WebSocketClient, timeout: Double, until done: ([[String: Any]]) -> Bool) throws -> [[String: Any]] {
    var events: [[String: Any]] = []
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        guard let message = try? ws.receive(timeout: max(0.05, deadline.timeIntervalSinceNow)) else { continue }
        guard case .text(let text) = message,
              let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { continue }
        events.append(object)
        if done(events) { return events }
    }
    return events
}
