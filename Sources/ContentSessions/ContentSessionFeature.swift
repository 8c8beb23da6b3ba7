import ControlAPI
import GLibRuntime
import Logging
import PlayerCore
import Storage

/// Content sessions, built on the player's feature surface: analytics events (`begin` when
/// playing and the pipeline's facts are known, `playing` every interval and on each pause,
/// `end` on stop, end of stream, an error or a new open) and resume points per
/// (contentId, userId), saved on pause, stop and every few seconds while playing, and
/// looked up when content opens without `start`.
///
/// GLib thread only. Owns the resume store and the analytics reporter it is given (both
/// optional: without a store nothing is resumed, without a reporter nothing is recorded).
/// Its calls into SQLite are short committed transactions, as they were in the player.
@GLibActor
public final class ContentSessionFeature: PlayerFeature {
    let resumeStore: ResumeStore?
    let reporter: AnalyticsReporter?
    let log = Logger(category: "content")
    /// Set by `attached(to:)`; weak, as the player keeps its features.
    private(set) weak var player: Player?

    // The loaded content's analytics: `begin` was recorded (it reached playing), `end` too.
    // Reset when content loads (an open, a gapless queue item).
    var began = false
    var ended = false
    /// `playing` every interval, and a resume point every `resumeSaveMilliseconds`, while
    /// playing.
    var analyticsTimer: LoopTimer?
    var resumeTimer: LoopTimer?

    public init(resume: ResumeStore?, analytics: AnalyticsReporter?) {
        resumeStore = resume
        reporter = analytics
    }

    public func attached(to player: Player) {
        self.player = player
        reporter?.onUpdate = { [weak player] update in player?.publishFeatureEvent(.analytics(update)) }
        reporter?.start()
    }

    public func playerNoticed(_ notice: PlayerNotice) {
        switch notice {
        case .loaded(let progress):
            began = false
            ended = false
            // A gapless item takes over while playing: it begins (and its timers run) at once.
            stateChanged(to: progress.state, from: progress.state, progress)
        case .stateChanged(let change, let progress):
            guard let progress else { return }  // nothing loaded: closed already
            stateChanged(to: change.state, from: change.previous, progress)
        case .queriesAnswered(let progress):
            beginIfKnown(progress)
        case .closing(let progress, let atEnd):
            end(progress, atEnd: atEnd)
        }
    }

    private func stateChanged(to state: PlaybackState, from previous: PlaybackState, _ progress: PlaybackProgress) {
        switch state {
        case .playing:
            if ended {
                // Played again after the end: a new viewing of the same content.
                began = false
                ended = false
            }
            beginIfKnown(progress)
            startTimers(for: progress)
        case .paused where previous == .playing:
            record(.playing, progress)
            saveResumePoint(progress)
            stopTimers()
        case .ended:
            end(progress, atEnd: true)
        default:
            stopTimers()
        }
    }

    /// Records `begin` once playing and the duration is known: a local file reaches PLAYING
    /// by itself right after its preroll, before the worker's queries are answered, and the
    /// player says when they are (`queriesAnswered`).
    private func beginIfKnown(_ progress: PlaybackProgress) {
        guard progress.state == .playing, !began, progress.queriesAnswered else { return }
        began = true
        record(.begin, progress)
    }

    /// Content going away (stop, a new open, an error, its end): its `end`, its resume point.
    private func end(_ progress: PlaybackProgress, atEnd: Bool) {
        stopTimers()
        guard !ended else { return }
        // Saved even when it never played (opened paused, seeked, stopped).
        saveResumePoint(progress, finished: atEnd)
        guard began else { return }
        ended = true
        record(.end, progress)
    }

    func startTimers(for progress: PlaybackProgress) {
        if analyticsTimer == nil, let reporter, reporter.isEnabled {
            analyticsTimer = LoopTimer(milliseconds: UInt32(reporter.configuration.interval * 1000)) { [weak self] in
                guard let self, let progress = self.player?.progress else { return }
                self.record(.playing, progress)
            }
        }
        if resumeTimer == nil, resumeStore != nil, progress.source.contentId != nil {
            resumeTimer = LoopTimer(milliseconds: Self.resumeSaveMilliseconds) { [weak self] in
                guard let self, let progress = self.player?.progress else { return }
                self.saveResumePoint(progress)
            }
        }
    }

    private func stopTimers() {
        analyticsTimer?.cancel()
        analyticsTimer = nil
        resumeTimer?.cancel()
        resumeTimer = nil
    }
}
