import ControlAPI
import PlayerCore

/// Resume points: looked up when content opens, saved from the progress the player reports.
extension ContentSessionFeature {
    static let resumeSaveMilliseconds: UInt32 = 5000

    /// An open without `start` starts at the viewer's resume point, and carries the watched
    /// time on (unless the request gives its own).
    public func prepareOpen(_ request: inout OpenRequest, replacing current: PlaybackProgress?) {
        // Reopening what plays: its point is saved first, so the new open resumes from it.
        if let current { saveResumePoint(current) }
        (request.start, request.watched) = resumePoint(for: request)
    }

    /// The resume point for an open without `start`, and the watched time carried on.
    func resumePoint(for request: OpenRequest) -> (start: Double?, watched: Double?) {
        guard let contentId = request.contentId, let store = resumeStore,
              let point = try? store.load(contentId: contentId, userId: request.userId ?? "") else {
            return (request.start, request.watched)
        }
        let start = request.start ?? ResumeRule.start(at: point.position, duration: point.duration)
        return (start, request.watched ?? point.watched)
    }

    /// Saves where the content is (the start again once it was watched to the end). The
    /// position is the sinks', in the pipeline's timeline, as an open's `start` is.
    func saveResumePoint(_ progress: PlaybackProgress, finished: Bool = false) {
        guard let store = resumeStore, let contentId = progress.source.contentId else { return }
        // No position known (an open that never prerolled, a stalled one being opened again):
        // the point saved before stays.
        guard finished || progress.position != nil else { return }
        let position = finished ? 0 : (progress.position ?? 0)
        do {
            try store.save(contentId: contentId, userId: progress.source.userId ?? "", position: position,
                           duration: progress.duration, watched: progress.watched)
        } catch {
            log.error("resume point not saved", ["contentId": contentId, "error": "\(error)"])
        }
    }
}
