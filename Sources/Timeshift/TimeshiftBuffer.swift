import CGStreamer
import Foundation
import GLibRuntime
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
public final class TimeshiftBuffer: RingServer.Ring {
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
    private var lastProgress = Date()
    private var segmentsThisRun = 0
    private var closed = false
    /// Where the player's timeline starts in the recording: hlsdemux2 counts stream time
    /// from the first segment of the first playlist it read, adding up EXTINF durations
    /// (which are the ring's), so recording time = player time + this.
    public private(set) var playbackOrigin: Double?
    private let log = Logger(category: "timeshift")

    /// Segments the ring needs before playback starts: hlsdemux2 plays a live playlist
    /// from a few segments before its end, and two keep that from being the very edge.
    static let segmentsBeforePlayback = 2
    /// Seconds without a new segment before the recorder is restarted: longer for the
    /// first (a network source may need a while to deliver its first keyframe).
    static let firstSegmentTimeout = 15.0
    static let stallTimeout = 5.0

    public init(source: RecordingSource, window: Double, folder: URL, onEvent: @escaping @GLibActor (Event) -> Void) {
        self.source = source
        self.folder = folder
        self.onEvent = onEvent
        ring = SegmentRing(window: window)
    }

    /// Creates the folder and starts recording. Throws when the first recorder cannot start
    /// (a missing plugin, a bad URI); later failures are retried.
    public func start() throws(RecorderError) {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw RecorderError.cannotStart("cannot create \(folder.lastPathComponent): \(error.localizedDescription)")
        }
        try startRecorder()
        watchdog = LoopTimer(milliseconds: 1000) { [weak self] in self?.checkProgress() }
    }

    /// Stops recording and deletes the ring's files.
    public func close() {
        guard !closed else { return }
        closed = true
        watchdog?.cancel()
        watchdog = nil
        if restartTimer != 0 { g_source_remove(restartTimer) }
        restartTimer = 0
        recorder?.stop()
        recorder = nil
        try? FileManager.default.removeItem(at: folder)
    }

    // MARK: RingServer.Ring

    public var isReady: Bool { ring.segments.count >= Self.segmentsBeforePlayback }

    public func playlistForPlayer() -> String {
        if playbackOrigin == nil { playbackOrigin = ring.start }
        return ring.playlist()
    }

    public func contains(fileName: String) -> Bool { ring.contains(fileName: fileName) }

    // MARK: Recording

    private func startRecorder() throws(RecorderError) {
        segmentsThisRun = 0
        lastProgress = Date()
        recorder = try Recorder(
            source: source, folder: folder, startIndex: ring.recordedCount,
            onSegment: { [weak self] segment in self?.add(segment) },
            onEnd: { [weak self] reason in self?.recorderEnded(reason) })
    }

    private func add(_ segment: Recorder.Segment) {
        let began = Date().addingTimeInterval(-segment.duration)
        let dropped = ring.append(fileName: segment.fileName, duration: segment.duration, bytes: segment.bytes, began: began)
        for old in dropped { try? FileManager.default.removeItem(at: folder.appendingPathComponent(old.fileName)) }
        segmentsThisRun += 1
        attempts = 0
        lastProgress = Date()
        onEvent(.recorded)
    }

    private func checkProgress() {
        guard recorder != nil else { return }
        let limit = segmentsThisRun == 0 ? Self.firstSegmentTimeout : Self.stallTimeout
        guard Date().timeIntervalSince(lastProgress) > limit else { return }
        recorder?.stop()
        recorderEnded("no data for \(Int(limit)) s")
    }

    /// Schedules the next recorder. Its segments follow a gap: marked as a discontinuity.
    private func recorderEnded(_ reason: String) {
        guard !closed else { return }
        recorder = nil
        attempts += 1
        let delay = min(30, pow(2, Double(attempts - 1)))
        ring.markDiscontinuity()
        log.warning("recorder restarting", ["attempt": "\(attempts)", "delay": "\(delay)", "reason": reason])
        onEvent(.reconnecting(attempt: attempts, delay: delay, reason: reason))
        restartTimer = runAfter(milliseconds: UInt32(delay * 1000)) { [weak self] in
            guard let self, !self.closed else { return }
            self.restartTimer = 0
            do {
                try self.startRecorder()
            } catch {
                self.recorderEnded("\(error)")
            }
        }
    }
}
