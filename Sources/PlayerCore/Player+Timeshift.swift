import ControlAPI
import FoundationEssentials
import GLibRuntime
import GStreamerKit
import Timeshift

/// Timeshift: live sources recorded into a ring on disk (`Sources/Timeshift`) and played
/// from it, and the live window the snapshot shows for any live source.
///
/// The API's timeline for a timeshifted source is the recording's: seconds since recording
/// started. playbin3 plays the ring as live HLS, and hlsdemux2 counts from the first
/// segment it was served, so API positions are pipeline positions plus `timelineOffset`.
extension Player {
    /// The ring server, started on first use (it has a thread of its own).
    func ringServer() throws -> RingServer {
        if let ringServerInstance { return ringServerInstance }
        let server = try RingServer()
        ringServerInstance = server
        return server
    }

    /// Seconds to add to a pipeline position to get the API's position.
    var timelineOffset: Double { session?.timeshift?.buffer.playbackOrigin ?? 0 }

    /// Starts recording `window` seconds of `source` (the plan checked that it may) and
    /// points `source` at the ring.
    func startTimeshift(window: Double, source: inout ResolvedSource, sessionID: Int) throws(APIError) -> TimeshiftController {
        guard let root = configuration.timeshiftFolder else {
            throw APIError(.invalidArgument, "timeshift needs a data directory (--data-dir)")
        }
        let recording: RecordingSource = source.isDemo ? .demo : .uri(source.playbackURI)
        let folder = root.appendingPathComponent("session-\(sessionID)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        // The controller is silenced when its session closes: no event reaches a later one.
        let timeshift = TimeshiftController(source: recording, window: window, folder: folder,
                                            publish: { [weak self] event in self?.publish(event) },
                                            onRecorded: { [weak self] in self?.keepInsideRing() })
        do {
            try timeshift.buffer.start()
            source.playbackURI = timeshift.buffer.serve(from: try ringServer())
        } catch {
            timeshift.closeRing()
            throw APIError(.pipelineError, "cannot start timeshift: \(error)")
        }
        // The ring is HLS to playbin3; to the API it stays the live source it records.
        source.info.live = true
        source.isDemo = false
        log.info("timeshift", ["window": "\(window)", "folder": folder.lastPathComponent])
        return timeshift
    }

    /// The seekable range in the API's timeline for a timeshifted source: from the oldest
    /// recorded second (plus one segment once the window slides, as the oldest may be
    /// dropped at any moment and hlsdemux2 1.22 spins on a playlist that lost its current
    /// segment) to where hlsdemux2 lets a live playlist be played (about three segments
    /// back from the newest).
    func timeshiftSeekable(_ session: PlaybackSession) -> TimeRange? {
        guard let buffer = session.timeshift?.buffer, let origin = buffer.playbackOrigin else { return nil }
        let ring = buffer.ring
        let safeStart = ring.start + (ring.isSliding ? Double(ring.targetDuration) : 0)
        // hlsdemux2's own range start is no guide (with a short playlist it reports its end).
        var end = ring.edge - Double(3 * ring.targetDuration)
        if machine.prerolled, let range = session.seekable { end = range.end + origin }
        end = max(ring.start, end)
        return TimeRange(start: min(safeStart, end), end: end)
    }

    /// The window slides on while the viewer is paused (or plays slower than the edge
    /// moves): before the oldest segment under the playhead is dropped, the playhead moves
    /// on to the new start of the window, as a DVR does. Paused stays paused.
    private func keepInsideRing() {
        guard let session, machine.prerolled, machine.seekInFlight == nil, session.timeshift?.buffer.ring.isSliding == true,
              let range = timeshiftSeekable(session),
              let position = session.position.map({ $0 + timelineOffset }), position < range.start else { return }
        log.info("timeshift window passed the playhead", ["position": "\(position)", "start": "\(range.start)"])
        seekPipeline(to: min(range.start + 0.5, range.end) - timelineOffset)
    }

    /// `seekable` and `live` for the snapshot: the ring's for timeshift, hlsdemux2's window
    /// for live HLS, the seekable range alone for anything else that can seek.
    func liveWindow(_ session: PlaybackSession, position: Double?) -> (TimeRange?, LiveInfo?) {
        if let buffer = session.timeshift?.buffer {
            guard let range = timeshiftSeekable(session) else { return (nil, nil) }
            let edge = buffer.ring.edge
            let live = position.map { LiveInfo(edge: edge, behind: max(0, edge - $0), window: range.end - range.start) }
            return (range, live)
        }
        guard machine.prerolled, !machine.isLive, let range = session.seekable else { return (nil, nil) }
        let seekable = TimeRange(start: range.start, end: range.end)
        // Live HLS: hlsdemux2's seekable range is the playlist's window.
        guard session.source.info.live, let position else { return (seekable, nil) }
        return (seekable, LiveInfo(edge: range.end, behind: max(0, range.end - position), window: range.end - range.start))
    }

    /// Starts or stops the once-a-second `live` event with the source. Each tick also asks
    /// the pipeline for its seekable range again (on the worker: the query reaches
    /// hlsdemux2), so the live window in snapshots is at most a second old.
    func updateLiveTimer() {
        guard session?.source.info.live == true else {
            liveTimer?.cancel()
            liveTimer = nil
            return
        }
        guard liveTimer == nil else { return }
        liveTimer = LoopTimer(milliseconds: 1000) { [weak self] in
            guard let self, let session = self.session, self.machine.prerolled else { return }
            session.control.query()
            guard let position = session.position.map({ $0 + self.timelineOffset }),
                  case (let seekable, var live?) = self.liveWindow(session, position: position) else { return }
            live.seekable = seekable
            self.publish(.live(live))
        }
    }
}
