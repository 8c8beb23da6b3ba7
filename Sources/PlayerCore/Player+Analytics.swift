import ControlAPI
import FoundationEssentials
import Glibc
import TextSupport
import GLibRuntime
import Storage

/// Content sessions: analytics events (`begin` when playback is ready, `playing` every
/// interval while playing and on each pause, `end` on stop, end of stream, an error or a new
/// open) and resume points per (contentId, userId), saved on pause, stop and every few
/// seconds while playing.
extension Player {
    /// Connects the daemon's storage. Called once at start, before any open.
    public func attach(resume: ResumeStore?, analytics: AnalyticsReporter?) {
        resumeStore = resume
        analyticsReporter = analytics
        analytics?.onUpdate = { [weak self] update in self?.publish(.analytics(update)) }
        analytics?.start()
    }

    static let resumeSaveMilliseconds: UInt32 = 5000
    /// A resume point this close to the end starts the content from the beginning instead.
    static let resumeEndMargin = 10.0

    public func analyticsStatus() -> AnalyticsStatus {
        analyticsReporter?.status()
            ?? AnalyticsStatus(enabled: false, url: nil, interval: 0, pending: 0, sent: 0, failed: 0, dropped: 0, lastError: nil)
    }

    public func dropPendingAnalytics() throws(APIError) -> AnalyticsStatus {
        guard let analyticsReporter else { return analyticsStatus() }
        do {
            let dropped = try analyticsReporter.dropPending()
            log.warning("analytics dropped", ["events": "\(dropped)"])
        } catch {
            throw APIError(.internalError, "cannot drop the pending analytics events: \(error)")
        }
        return analyticsStatus()
    }

    /// The resume point for an open without `start`, and the watched time carried on.
    func resumePoint(for request: OpenRequest) -> (start: Double?, watched: Double?) {
        guard let contentId = request.contentId, let store = resumeStore,
              let point = try? store.load(contentId: contentId, userId: request.userId ?? "") else {
            return (request.start, request.watched)
        }
        var start = request.start
        if start == nil, point.position > 1, point.duration.map({ point.position < $0 - Self.resumeEndMargin }) ?? true {
            start = point.position
        }
        return (start, request.watched ?? point.watched)
    }

    /// Called on every public state change of the session.
    func contentSessionStateChanged(to state: PlaybackState, from previous: PlaybackState) {
        guard let session else { return }
        switch state {
        case .playing:
            if session.analyticsEnded {
                // Played again after the end: a new viewing of the same content.
                session.analyticsBegan = false
                session.analyticsEnded = false
            }
            beginContentSessionIfKnown()
            startContentTimers()
        case .paused where previous == .playing:
            recordAnalytics(.playing)
            saveResumePoint()
            stopContentTimers()
        case .ended:
            endContentSession()
        default:
            stopContentTimers()
        }
    }

    /// Records `begin` once playing and the duration is known: a local file reaches PLAYING
    /// by itself right after its preroll, before the worker's queries are answered, and the
    /// player calls this again when they are.
    func beginContentSessionIfKnown() {
        guard let session, machine.state == .playing, !session.analyticsBegan, session.answeredQueries else { return }
        session.analyticsBegan = true
        recordAnalytics(.begin)
    }

    /// A session going away (stop, a new open, an error): its `end`, its resume point.
    func endContentSession() {
        stopContentTimers()
        guard let session, !session.analyticsEnded else { return }
        // Saved even when it never played (opened paused, seeked, stopped).
        saveResumePoint(finished: machine.state == .ended)
        guard session.analyticsBegan else { return }
        session.analyticsEnded = true
        recordAnalytics(.end)
    }

    private func startContentTimers() {
        if analyticsTimer == nil, let reporter = analyticsReporter {
            analyticsTimer = LoopTimer(milliseconds: UInt32(reporter.configuration.interval * 1000)) { [weak self] in
                self?.recordAnalytics(.playing)
            }
        }
        if resumeTimer == nil, resumeStore != nil, session?.source.info.contentId != nil {
            resumeTimer = LoopTimer(milliseconds: Self.resumeSaveMilliseconds) { [weak self] in self?.saveResumePoint() }
        }
    }

    private func stopContentTimers() {
        analyticsTimer?.cancel()
        analyticsTimer = nil
        resumeTimer?.cancel()
        resumeTimer = nil
    }

    private func recordAnalytics(_ kind: AnalyticsEvent.Kind) {
        guard let reporter = analyticsReporter, let session else { return }
        let info = session.source.info
        let event = AnalyticsEvent(event: kind, time: Self.timestamp(), contentId: info.contentId, userId: info.userId,
                                   originalUrl: info.originalUrl, uri: info.uri,
                                   position: session.position.map { $0 + timelineOffset }, duration: session.duration,
                                   watched: (watchClock.total() * 1000).rounded() / 1000, rate: settings.rate)
        do {
            try reporter.record(event)
        } catch {
            log.error("analytics event not recorded", ["event": kind.rawValue, "error": "\(error)"])
        }
    }

    /// Saves where the content is (the start again once it was watched to the end).
    func saveResumePoint(finished: Bool = false) {
        guard let store = resumeStore, let session, let contentId = session.source.info.contentId else { return }
        let position = finished ? 0 : (session.position ?? 0)
        do {
            try store.save(contentId: contentId, userId: session.source.info.userId ?? "", position: position,
                           duration: session.duration, watched: watchClock.total())
        } catch {
            log.error("resume point not saved", ["contentId": contentId, "error": "\(error)"])
        }
    }

    static func timestamp(_ date: Date = Date()) -> String {
        // ISO8601DateFormatter, which FoundationEssentials lacks, rounded to the millisecond;
        // Date.ISO8601FormatStyle would truncate instead.
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        let seconds = (milliseconds / 1000).rounded(.down)
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(printf: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec, Int32(milliseconds - seconds * 1000))
    }
}
