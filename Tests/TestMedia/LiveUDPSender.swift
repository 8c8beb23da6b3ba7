import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A live MPEG-TS stream sent over UDP to 127.0.0.1 in real time by a gst-launch-1.0
/// child: H.264 320x180 at 30 fps (the "ball" pattern, a keyframe every second) and
/// AAC (a quiet sine), muxed with `alignment=7` (seven TS packets per datagram).
///
/// Why: the timeshift tests need a source that really is live — it never ends, it keeps
/// producing while the player is paused, and it can go away and come back on the same
/// port — and a file or an HLS origin is none of these.
///
/// `init` returns once the pipeline is PLAYING (datagrams are flowing). `stop()`, also
/// run by deinit, ends the child: SIGTERM, then SIGKILL two seconds later.
public final class LiveUDPSender: @unchecked Sendable {
    /// The UDP port the stream is sent to on 127.0.0.1.
    public let port: Int
    /// "udp://127.0.0.1:PORT", what a player opens to receive the stream.
    public var uri: String { "udp://127.0.0.1:\(port)" }

    private let process = Process()
    private let pid: pid_t
    private let stdoutCollector: PipeCollector
    private let stderrCollector: PipeCollector
    private let lock = NSLock()
    private var stopped = false

    /// Why a sender cannot run on this machine (a missing tool or element), or nil when it
    /// can. Tests use it to skip instead of failing. Checked once per process.
    public static let unavailableReason: String? = {
        guard findExecutable("gst-launch-1.0") != nil, findExecutable("gst-inspect-1.0") != nil else {
            return "gst-launch-1.0/gst-inspect-1.0 not on PATH; install gstreamer1.0-tools"
        }
        let missing = ["x264enc", "avenc_aac"].filter { !Pipelines.elementExists($0) }
        guard missing.isEmpty else {
            return "GStreamer element(s) \(missing.joined(separator: ", ")) missing; "
                + "install gstreamer1.0-plugins-ugly (x264enc) and gstreamer1.0-libav (avenc_aac)"
        }
        return nil
    }()

    /// Starts sending to `port` on 127.0.0.1, or to a free UDP port when nil. Throws
    /// `MediaFixtureError` (with gst-launch-1.0's output) if the pipeline does not start.
    public init(port: Int? = nil) throws {
        let fixture = "LiveUDPSender"
        guard let launcher = findExecutable("gst-launch-1.0") else {
            throw MediaFixtureError(
                fixture: fixture, message: "gst-launch-1.0 not on PATH; install gstreamer1.0-tools", stderr: "")
        }
        let chosenPort = try port ?? Self.freeUDPPort()
        self.port = chosenPort
        process.executableURL = URL(fileURLWithPath: launcher)
        process.arguments = Self.pipeline(port: chosenPort)
        process.standardInput = FileHandle.nullDevice
        let stdoutPipe = Pipe()
        let stderrPipe = Pipe()
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        do {
            try process.run()
        } catch {
            throw MediaFixtureError(fixture: fixture, message: "could not launch \(launcher): \(error)", stderr: "")
        }
        pid = process.processIdentifier
        // Drained all the time: a child that fills a pipe buffer blocks on write.
        stdoutCollector = PipeCollector(stdoutPipe.fileHandleForReading, keepingLast: 65_536)
        stderrCollector = PipeCollector(stderrPipe.fileHandleForReading, keepingLast: 65_536)

        // Generous: the first GStreamer run on a fresh machine rebuilds the plugin registry.
        let deadline = Date().addingTimeInterval(30)
        while !stdoutCollector.text.contains("Setting pipeline to PLAYING") {
            if Self.hasExited(pid) || Date() >= deadline {
                let reason = Self.hasExited(pid)
                    ? "gst-launch-1.0 exited before the pipeline was PLAYING"
                    : "the pipeline was not PLAYING within 30 s"
                stop()
                throw MediaFixtureError(
                    fixture: fixture,
                    message: "\(reason); pipeline: " + Self.pipeline(port: chosenPort).joined(separator: " "),
                    stderr: stderrCollector.text.isEmpty ? stdoutCollector.text : stderrCollector.text)
            }
            usleep(20_000)
        }
    }

    deinit { stop() }

    /// True while the gst-launch-1.0 child runs (false after `stop()` or if it died).
    public var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !stopped && !Self.hasExited(pid)
    }

    /// What gst-launch-1.0 printed so far (stdout, then stderr), for failure messages.
    public var output: String {
        let (out, err) = (stdoutCollector.text, stderrCollector.text)
        return err.isEmpty ? out : out + "\n" + err
    }

    /// Ends the child (SIGTERM, then SIGKILL after 2 s) and waits for it to exit.
    /// Idempotent; safe from any thread.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        guard !Self.hasExited(pid) else { return }
        kill(pid, SIGTERM)
        if !Self.awaitExit(pid, seconds: 2) {
            kill(pid, SIGKILL)
            _ = Self.awaitExit(pid, seconds: 5)
        }
    }

    /// The gst-launch-1.0 arguments (no shell: each element of the array is one argv entry).
    static func pipeline(port: Int) -> [String] {
        [
            "videotestsrc", "is-live=true", "pattern=ball",
            "!", "video/x-raw,format=I420,width=320,height=180,framerate=30/1",
            "!", "x264enc", "tune=zerolatency", "speed-preset=ultrafast", "key-int-max=30", "bitrate=300",
            "!", "h264parse", "!", "queue",
            "!", "mpegtsmux", "name=mux", "alignment=7",
            "!", "udpsink", "host=127.0.0.1", "port=\(port)", "sync=true",
            "audiotestsrc", "is-live=true", "wave=sine", "volume=0.1",
            "!", "audioconvert", "!", "avenc_aac", "!", "aacparse", "!", "queue", "!", "mux.",
        ]
    }

    /// A UDP port on 127.0.0.1 that was free a moment ago: bound to port 0, read back with
    /// getsockname, closed. (Also for tests that need a UDP URI nobody sends to.)
    public static func freeUDPPort() throws -> Int {
        #if os(Linux)
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_DGRAM, 0)
        #endif
        guard fd >= 0 else {
            throw MediaFixtureError(fixture: "LiveUDPSender", message: "socket: \(errnoText())", stderr: "")
        }
        defer { close(fd) }
        guard let port = bindToLoopback(fd) else {
            throw MediaFixtureError(
                fixture: "LiveUDPSender", message: "bind to a UDP port on 127.0.0.1: \(errnoText())", stderr: "")
        }
        return port
    }

    private static func awaitExit(_ pid: pid_t, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !hasExited(pid) {
            if Date() >= deadline { return false }
            usleep(20_000)
        }
        return true
    }

    /// Whether our child `pid` has exited, without reaping it: Foundation reaps it (and on
    /// Linux notices the exit late, see `runProcess`), so waitid(WNOWAIT) rather than
    /// `Process.isRunning`. ECHILD means Foundation has reaped it already.
    private static func hasExited(_ pid: pid_t) -> Bool {
        var info = siginfo_t()
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return errno == ECHILD }
        #if os(Linux)
        let reportedPid = info._sifields._sigchld.si_pid
        #else
        let reportedPid = info.si_pid
        #endif
        // With WNOHANG, a still-running child leaves the struct zeroed.
        return reportedPid == pid
    }
}

