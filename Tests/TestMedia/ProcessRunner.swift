import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public enum ProcessRunnerError: Error, CustomStringConvertible {
    case executableNotFound(name: String, searchPath: String)
    case launchFailed(executable: String, reason: String)
    case timedOut(executable: String, arguments: [String], timeout: Double, stdout: String, stderr: String)

    public var description: String {
        switch self {
        case let .executableNotFound(name, searchPath):
            return "executable '\(name)' not found on PATH (\(searchPath))"
        case let .launchFailed(executable, reason):
            return "could not launch \(executable): \(reason)"
        case let .timedOut(executable, arguments, timeout, _, stderr):
            let command = ([executable] + arguments).joined(separator: " ")
            return "timed out after \(timeout) s and was killed: \(command)\nstderr:\n\(stderr)"
        }
    }
}

/// Returns the absolute path `runProcess` would run, or nil; tests use it to skip
/// cleanly on machines without a tool instead of failing.
public func findExecutable(_ name: String) -> String? {
    let fileManager = FileManager.default
    func isRunnableFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return fileManager.fileExists(atPath: path, isDirectory: &isDirectory)
            && !isDirectory.boolValue
            && fileManager.isExecutableFile(atPath: path)
    }
    if name.contains("/") {
        return isRunnableFile(name) ? name : nil
    }
    for directory in searchPath().split(separator: ":", omittingEmptySubsequences: true) {
        let candidate = "\(directory)/\(name)"
        if isRunnableFile(candidate) { return candidate }
    }
    return nil
}

private func searchPath() -> String {
    // Process does not search PATH itself; fall back to the usual system dirs so a
    // test runner started with a scrubbed environment still finds gst-launch-1.0.
    ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
}

/// Runs `executable` (resolved on PATH) with `args` as a plain argument vector — no
/// shell, so paths and pipeline fragments never need quoting.
///
/// `status` is the exit code, or 128 + signal number when the child died from a
/// signal (the shell convention, so a crash never looks like success).
/// Returns when the child exits, even if background processes it started still run.
/// Throws `ProcessRunnerError.timedOut` if the child outlives `timeout` seconds; it and
/// its descendants get SIGTERM, then SIGKILL two seconds later.
public func runProcess(_ executable: String, _ args: [String], timeout: Double) throws
    -> (status: Int32, stdout: String, stderr: String)
{
    guard let path = findExecutable(executable) else {
        throw ProcessRunnerError.executableNotFound(name: executable, searchPath: searchPath())
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = args
    // A child that reads stdin (gst-play's keyboard handling, for one) would otherwise
    // share the test runner's terminal or block forever.
    process.standardInput = FileHandle.nullDevice
    let stdoutPipe = Pipe()
    let stderrPipe = Pipe()
    process.standardOutput = stdoutPipe
    process.standardError = stderrPipe

    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }

    do {
        try process.run()
    } catch {
        throw ProcessRunnerError.launchFailed(executable: path, reason: "\(error)")
    }
    let pid = process.processIdentifier
    // Drain both pipes while the child runs: a child that fills a pipe buffer (64 KiB)
    // blocks on write and would look like a hang.
    let stdoutCollector = PipeCollector(stdoutPipe.fileHandleForReading)
    let stderrCollector = PipeCollector(stderrPipe.fileHandleForReading)

    let status = awaitExit(process, pid: pid, exited: exited, until: deadline(after: timeout))
    if status == nil {
        // Collected before signalling: once the child dies its children are reparented
        // and can no longer be found, yet they may hold the output pipes open.
        let family = descendants(of: pid)
        for member in [pid] + family { kill(member, SIGTERM) }
        let diedOnTerm = awaitExit(process, pid: pid, exited: exited, until: deadline(after: 2)) != nil
        for member in (diedOnTerm ? [] : [pid]) + family { kill(member, SIGKILL) }
        _ = awaitExit(process, pid: pid, exited: exited, until: deadline(after: 2))
    }

    // A grandchild that inherited the pipes can keep them open after the child exits;
    // don't let it hold the caller hostage, just return what arrived so far.
    let drainDeadline = deadline(after: 2)
    let stdout = stdoutCollector.text(waitingUntil: drainDeadline)
    let stderr = stderrCollector.text(waitingUntil: drainDeadline)

    guard let status else {
        throw ProcessRunnerError.timedOut(
            executable: path, arguments: args, timeout: timeout, stdout: stdout, stderr: stderr)
    }
    return (status, stdout, stderr)
}

/// Waits for the child to exit and returns its status, or nil at `deadline`.
///
/// Foundation's termination handler alone is not enough on Linux: corelibs-foundation
/// notices the exit through a socket the child's own children inherit, so it fires
/// only when every descendant has exited. waitid(WNOWAIT) sees the child's exit
/// without reaping it, leaving the zombie for Foundation to collect later.
private func awaitExit(
    _ process: Process, pid: pid_t, exited: DispatchSemaphore, until deadline: DispatchTime
) -> Int32? {
    while true {
        if exited.wait(timeout: min(deadline, .now() + 0.05)) == .success {
            exited.signal()  // later waits in this run must see it too
            return process.terminationReason == .uncaughtSignal
                ? 128 + process.terminationStatus
                : process.terminationStatus
        }
        if let status = exitStatusWithoutReaping(pid) { return status }
        if DispatchTime.now() >= deadline { return nil }
    }
}

private func exitStatusWithoutReaping(_ pid: pid_t) -> Int32? {
    var info = siginfo_t()
    guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return nil }
    #if os(Linux)
    let (reportedPid, code) = (info._sifields._sigchld.si_pid, info._sifields._sigchld.si_status)
    #else
    let (reportedPid, code) = (info.si_pid, info.si_status)
    #endif
    // With WNOHANG, a still-running child leaves the struct zeroed.
    guard reportedPid == pid else { return nil }
    return info.si_code == CLD_EXITED ? code : 128 + code
}

/// All live descendants of `pid` (Linux /proc walk; empty elsewhere).
private func descendants(of pid: pid_t) -> [pid_t] {
    #if os(Linux)
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
    var children: [pid_t: [pid_t]] = [:]
    for entry in entries {
        guard let candidate = pid_t(entry),
              let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
              let commandEnd = stat.lastIndex(of: ")")
        else { continue }
        // Fields after the command name, which may itself contain spaces or ')': state, ppid.
        let fields = stat[stat.index(after: commandEnd)...].split(separator: " ")
        if fields.count > 1, let parent = pid_t(fields[1]) {
            children[parent, default: []].append(candidate)
        }
    }
    var result: [pid_t] = []
    var queue = children[pid] ?? []
    while let next = queue.popLast() {
        result.append(next)
        queue += children[next] ?? []
    }
    return result
    #else
    return []
    #endif
}

private func deadline(after seconds: Double) -> DispatchTime {
    // DispatchTime arithmetic traps on values that overflow nanoseconds.
    guard seconds.isFinite, seconds < 1_000_000 else { return .distantFuture }
    return .now() + max(0, seconds)
}

/// Reads a pipe to EOF on its own thread. A dedicated thread rather than a dispatch
/// queue, because the read blocks for as long as the child runs and parallel tests
/// could otherwise starve the shared pool. With `keepingLast`, only that many of the
/// newest bytes are kept (for children that run for a long time).
final class PipeCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private let finished = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle, keepingLast limit: Int = .max) {
        Thread.detachNewThread { [self] in
            // read(2) rather than FileHandle.read(upToCount:), which on Linux waits for
            // the full count or EOF, so output from a child whose pipe never closes
            // would be lost.
            withExtendedLifetime(handle) {
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = buffer.withUnsafeMutableBytes {
                        read(handle.fileDescriptor, $0.baseAddress, $0.count)
                    }
                    if count > 0 {
                        lock.lock()
                        data.append(contentsOf: buffer[..<count])
                        if data.count > limit { data = Data(data.suffix(limit)) }
                        lock.unlock()
                    } else if count < 0, errno == EINTR {
                        continue
                    } else {
                        break
                    }
                }
            }
            finished.signal()
        }
    }

    /// What was read so far.
    var text: String { text(waitingUntil: .now()) }

    func text(waitingUntil deadline: DispatchTime) -> String {
        _ = finished.wait(timeout: deadline)
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }
}
