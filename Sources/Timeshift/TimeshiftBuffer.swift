import CGStreamer
import FoundationEssentials
import Glibc
import TextSupport
import GLibRuntime
import GStreamerKit
import HTTPFetch
import Logging

/// Timeshift for one live source: records it into a bounded ring of segments on disk and
/// serves the ring as a live HLS playlist that playbin3 plays, so playback can pause, go
/// back and return to the edge while recording goes on.
///
/// Recording survives a source that stalls or fails: when no segment has arrived for a
/// while, or the recorder pipeline errs, a new recorder starts after a backoff (1, 2, 4 …
/// 30 s), and its first segment is marked as a discontinuity. What was recorded stays
/// playable meanwhile. GLib thread only; `close()` before dropping.
@GLibActor
public final class TimeshiftBuffer {
    public enum Event: Sendable, Equatable {
        /// A segment was added (the edge moved).
        case recorded
        /// Recording stopped: `reason`; a new attempt in `delay` seconds.
        case reconnecting(attempt: Int, delay: Double, reason: String)
    }

    public let folder: URL
    public private(set) var ring: SegmentRing
    private let source: RecordingSource
    private let onEvent: @GLibActor (Event) -> Void
    private var recorder: Recorder?
    private var watchdog: LoopTimer?
    private var restartTimer: UInt32 = 0
    private var attempts = 0
    /// Monotonic: a wall-clock step must not fake a stall.
    private var lastProgress = ContinuousClock.now
    private var segmentsThisRun = 0
    private var closed = false
    /// The server that plays the ring to playbin3, and the ring's token there.
    private var server: RingServer?
    private var token: String?
    private let log = Logger(category: "timeshift")

    /// Seconds without a new segment before the recorder is restarted, and the longest
    /// wait between attempts.
    public struct Timeouts: Sendable {
        /// Longer for the first segment: a network source may need a while to deliver
        /// its first keyframe.
        public var firstSegment: Double
        public var stall: Double
        public var maximumBackoff: Double
        public static let standard = Timeouts(firstSegment: 15, stall: 5, maximumBackoff: 30)
        public init(firstSegment: Double, stall: Double, maximumBackoff: Double) {
            self.firstSegment = firstSegment
            self.stall = stall
            self.maximumBackoff = maximumBackoff
        }
    }

    /// Segments the ring needs before playback starts. Playback starts at the first, so
    /// this is also how far behind the edge it starts: three seconds of slack before a
    /// hiccup turns into buffering.
    static let segmentsBeforePlayback = 3

    private let timeouts: Timeouts
    /// Starts and stops the recorders, off the GLib thread; a worker of the buffer's own, so
    /// a recorder slow to stop never holds up the player's pipeline calls.
    private let worker = PipelineWorker(name: "marquee-recorder") { seconds in
        Logger(category: "timeshift").error("recorder stuck on its way to NULL (a GStreamer deadlock); left behind",
                                            ["waited": "\(seconds) s"])
    }
    /// Asks an http(s) origin whether it answers before each recorder (see `startRecorderWhenReachable`).
    private var probeFetcher: HTTPFetcher?
    private var probe: FetchHandle?

    public init(source: RecordingSource, window: Double, folder: URL, timeouts: Timeouts = .standard,
                onEvent: @escaping @GLibActor (Event) -> Void) {
        self.source = source
        self.folder = folder
        self.timeouts = timeouts
        self.onEvent = onEvent
        ring = SegmentRing(window: window + Self.edgeAllowance)
    }

    /// Seconds kept beyond the window: hlsdemux2 plays a live playlist from about three
    /// segments before its end, and the oldest segment may go at any moment, so the ring
    /// keeps four more (one-second) segments for the seekable span to be the whole window.
    public static let edgeAllowance = 4.0

    /// Creates the folder and starts recording. Throws when the first recorder cannot start
    /// (a missing plugin, a bad URI); later failures are retried.
    public func start() throws(RecorderError) {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw RecorderError.cannotStart("cannot create \(folder.lastPathComponent): \(error.fileErrorText)")
        }
        if isHTTP { startRecorderWhenReachable() } else { try startRecorder() }
        // Checked four times per stall period (at least once a second).
        let period = UInt32(max(50, min(1000, timeouts.stall * 250)))
        watchdog = LoopTimer(milliseconds: period) { [weak self] in self?.checkProgress() }
    }

    /// Serves the ring from `server`; returns the playlist URL for playbin3.
    public func serve(from server: RingServer) -> String {
        let (token, playlistURL) = server.register(publication)
        self.server = server
        self.token = token
        return playlistURL
    }

    /// Where the player's timeline starts in the recording: hlsdemux2 counts stream time
    /// from the first segment of the first playlist it read, adding up EXTINF durations
    /// (which are the ring's), so recording time = player time + this.
    public var playbackOrigin: Double? { token.flatMap { server?.origin(of: $0) } }

    /// Stops recording and deletes the ring's files.
    /// Stops recording and deletes the ring's files once the recorder is down. `waiting`
    /// (at exit, when the loop will not run again): waits for the recorder's worker and
    /// deletes them before returning.
    public func close(waiting: Bool = false) {
        guard !closed else { return }
        closed = true
        if let token { server?.unregister(token) }
        watchdog?.cancel()
        watchdog = nil
        if restartTimer != 0 { g_source_remove(restartTimer) }
        restartTimer = 0
        probe?.cancel()
        probe = nil
        let folder = self.folder
        let removeFiles: @GLibActor @Sendable () -> Void = { try? FileManager.default.removeItem(at: folder) }
        if let recorder {
            recorder.stop(then: waiting ? nil : removeFiles)
        } else if !waiting {
            removeFiles()
        }
        recorder = nil
        if waiting {
            worker.drain()
            removeFiles()
        }
        worker.finish()  // one per buffer: its threads end with it
    }

    /// Enough is recorded to start playing.
    public var isReady: Bool { ring.segments.count >= Self.segmentsBeforePlayback }

    /// What the ring server serves now.
    private var publication: RingServer.Publication {
        RingServer.Publication(folder: folder, playlist: isReady ? ring.playlist() : nil,
                               files: Set(ring.segments.map(\.fileName)), start: ring.start)
    }

    // MARK: Recording

    private func startRecorder() throws(RecorderError) {
        segmentsThisRun = 0
        lastProgress = .now
        recorder = try Recorder(
            source: source, folder: folder, startIndex: ring.recordedCount, worker: worker,
            onSegment: { [weak self] segment in self?.add(segment) },
            onEnd: { [weak self] reason in self?.recorderEnded(reason) })
    }

    private func add(_ segment: Recorder.Segment) {
        log.debug("segment", ["file": segment.fileName, "duration": "\(segment.duration)", "bytes": "\(segment.bytes)"])
        let began = Date().addingTimeInterval(-segment.duration)
        let dropped = ring.append(fileName: segment.fileName, duration: segment.duration, bytes: segment.bytes, began: began)
        // The server stops listing dropped files before they go.
        if let server, let token { server.publish(publication, for: token) }
        for old in dropped { try? FileManager.default.removeItem(at: folder.appendingPathComponent(old.fileName)) }
        segmentsThisRun += 1
        attempts = 0
        lastProgress = .now
        onEvent(.recorded)
    }

    /// A stopped recorder leaves the fragment it was writing; only the ring's files stay.
    private func removeUnlistedFiles() {
        let listed = Set(ring.segments.map(\.fileName))
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where !listed.contains(name) {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    private func checkProgress() {
        guard recorder != nil else { return }
        let limit = segmentsThisRun == 0 ? timeouts.firstSegment : timeouts.stall
        guard ContinuousClock.now - lastProgress > .milliseconds(Int(limit * 1000)) else { return }
        let stalled = recorder
        recorder = nil
        let reason = "no data for \(limit.decimalText) s"
        // The restart follows once the stalled run is down: its last fragment is closed
        // by then, and `recorderEnded` removes it.
        stalled?.stop { [weak self] in self?.recorderEnded(reason) }
    }

    /// Schedules the next recorder. Its segments follow a gap: marked as a discontinuity.
    private func recorderEnded(_ reason: String) {
        guard !closed else { return }
        recorder = nil
        removeUnlistedFiles()
        attempts += 1
        let delay = min(timeouts.maximumBackoff, pow(2, Double(attempts - 1)))
        ring.markDiscontinuity()
        log.warning("recorder restarting", ["attempt": "\(attempts)", "delay": "\(delay)", "reason": reason])
        onEvent(.reconnecting(attempt: attempts, delay: delay, reason: reason))
        restartTimer = runAfter(milliseconds: UInt32(delay * 1000)) { [weak self] in
            guard let self, !self.closed else { return }
            self.restartTimer = 0
            if self.isHTTP {
                self.startRecorderWhenReachable()
                return
            }
            do {
                try self.startRecorder()
            } catch {
                self.recorderEnded("\(error)")
            }
        }
    }

    // MARK: http(s) sources

    private var isHTTP: Bool {
        guard case .uri(let uri) = source else { return false }
        let lowered = uri.lowercased()
        return lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
    }

    /// souphttpsrc (GStreamer 1.22.0) crashed in its session thread (SIGSEGV in libsoup,
    /// closing the input stream) when its pipeline was stopped while it failed to connect:
    /// two opens in a row of an origin that refuses connections were enough. So an http(s)
    /// origin is asked first, with a HEAD of Marquee's own, and a recorder pipeline starts only
    /// when it answers; meanwhile the usual retries and `reconnecting` events go on.
    private func startRecorderWhenReachable() {
        guard case .uri(let uri) = source else { return }
        let fetcher = probeFetcher ?? HTTPFetcher(userAgent: "marquee", timeoutSeconds: 5)
        probeFetcher = fetcher
        probe = fetcher.head(uri) { [weak self] result in
            guard let self, !self.closed else { return }
            self.probe = nil
            if case .failure(let failure) = result, (failure.status ?? 599) >= 500 {
                self.recorderEnded("cannot reach the source: \(failure)")
                return
            }
            do {
                try self.startRecorder()
            } catch {
                self.recorderEnded("\(error)")
            }
        }
    }
}
