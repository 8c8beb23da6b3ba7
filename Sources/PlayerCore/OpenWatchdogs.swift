import ControlAPI
import GLibRuntime
import GStreamerKit
import Logging

/// The watchdogs of an open that may never preroll: the open timeout, the format watch of a
/// local file, and the preroll-stall retry; and the wait for the reason of a refused state
/// change. Each is a one-shot timer owned here and
/// cancelled by `close()` (the session's), so none fires for a session that was replaced.
/// GLib thread.
@GLibActor
final class OpenWatchdogs {
    /// The session that owns this controller (it outlives it: a closed controller does nothing).
    private unowned let session: PlaybackSession
    private weak var host: (any SessionHost)?
    /// The request that opened this session, for another try when playbin3 stalls before
    /// preroll, and how many tries came before this one.
    let request: OpenRequest
    let stallRetries: Int
    private let timers = OneShotTimers()
    private let log = Logger(category: "player")

    static let maxStallRetries = 3

    init(session: PlaybackSession, host: any SessionHost, request: OpenRequest, stallRetries: Int) {
        self.session = session
        self.host = host
        self.request = request
        self.stallRetries = stallRetries
    }

    func start() {
        startOpenTimeout()
        if session.source.isLocalFile {
            startFormatWatch()
            startPrerollStallWatch()
        }
    }

    func close() {
        timers.cancelAll()
    }

    private func after(milliseconds: UInt32, _ action: @escaping @GLibActor (OpenWatchdogs, any SessionHost) -> Void) {
        timers.after(milliseconds: milliseconds) { [weak self] in
            guard let self, let host = self.host else { return }
            action(self, host)
        }
    }

    /// A source that never prerolls must not leave the player in `opening` for ever. Besides
    /// stalled servers, GStreamer 1.22's parsebin sometimes drops a demuxer's error that
    /// arrives while it is still setting the demuxer up (seen with a truncated MP4 in two of
    /// eight opens right after another file played): no error reaches the bus and nothing
    /// else happens. A local file prerolls in well under a second, so its limit is short.
    private func startOpenTimeout() {
        let seconds = session.source.isLocalFile ? 8 : 30
        after(milliseconds: UInt32(seconds * 1000)) { watchdogs, host in
            let session = watchdogs.session
            guard !session.everPrerolled, host.machine.error == nil,
                  !host.machine.reconnecting else { return }  // a reconnect has its own time limit
            watchdogs.log.warning("open timed out", ["uri": session.source.info.uri, "seconds": "\(seconds)"])
            host.feed(.failed(APIError(session.source.isLocalFile ? .mediaError : .networkError,
                                       "the source did not start playing within \(seconds) s")))
        }
    }

    /// A local file that typefind only guessed at (below `APIError.weakTypeProbability`) and
    /// that has not prerolled a second after its open is garbage that looked a little like
    /// something: it fails now as `unsupported_format`, not after the 8 s open watchdog.
    /// Real files are found at 80-100% (their container's magic bytes) and preroll in tens of
    /// milliseconds (a local MP4 in 10-20 ms here, 120 ms as the first open of a process), so
    /// a second leaves a wide margin on a loaded machine, and a file that prerolls is never
    /// failed. Files typefind does not recognise at all fail at once with typefind's own
    /// error, and non-media types at their stream collection (`Player.handle`).
    private func startFormatWatch() {
        after(milliseconds: 1000) { watchdogs, host in
            let session = watchdogs.session
            guard !host.machine.prerolled, host.machine.error == nil,
                  let error = APIError.unsupportedFormat(weak: session.foundType) else { return }
            watchdogs.log.warning("unsupported format", ["uri": session.source.info.uri, "message": error.message])
            host.feed(.failed(error))
        }
    }

    /// GStreamer 1.22's playbin3 sometimes stops right after its stream collection when a
    /// local file opens: no streams-selected, no preroll, and the open watchdog fails it
    /// after 8 s. Measured with opens alternating two files: 2 to 3 in 200 (0 in 200 with the
    /// build before issue 9; not pinned down further), and now and then the next try stalls
    /// too. Setting that playbin3 to NULL and prerolling it again crashed in playsink (a
    /// streamsynchronizer pad left behind), so the file is opened again with a new pipeline:
    /// a file with a collection but no selected streams 1.5 s after its open (a normal one
    /// has both within tens of milliseconds), up to `maxStallRetries` times. Nothing has
    /// played yet, so no content session began for it (no analytics `begin`). Only a
    /// collection with an audio or video stream counts: one without (a PDF, an executable)
    /// is not media, and opening it again only stalled again (3 x 1.5 s, then the 8 s
    /// watchdog: 12.5 s to an error).
    private func startPrerollStallWatch() {
        after(milliseconds: 1500) { watchdogs, host in
            let session = watchdogs.session
            guard watchdogs.stallRetries < Self.maxStallRetries, !host.machine.prerolled, host.machine.error == nil,
                  session.streams.contains(where: { $0.kind == .audio || $0.kind == .video }),
                  session.selectedStreamIDs.isEmpty else { return }
            watchdogs.log.warning("open stalled after the stream collection; opening again",
                                  ["uri": session.source.info.uri, "try": "\(watchdogs.stallRetries + 2)"])
            // This replaces the session (and closes these watchdogs): nothing of it is read after.
            host.reopen(watchdogs.request, afterStall: watchdogs.stallRetries + 1)
        }
    }

    /// A refused state change usually has its reason on the bus (an error, `missing-plugin`
    /// messages) a moment later; that reason is the one to report, so this generic failure
    /// waits for it (a failure already reported makes this one a no-op).
    func stateChangeRefused(to state: PlaybackMachine.PipelineState) {
        after(milliseconds: 200) { watchdogs, host in
            let refusal = GStreamerError(domain: .core, code: 0, message: "the pipeline could not change to \(state)")
            host.feed(.failed(APIError(pipelineError: refusal, remote: false, missingPlugins: watchdogs.session.missingPlugins.names)))
        }
    }
}
