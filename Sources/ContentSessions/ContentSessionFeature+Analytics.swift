import ControlAPI
import PlayerCore

/// Analytics: events recorded in the durable outbox (the reporter delivers them), and the
/// `/v1/analytics` API.
extension ContentSessionFeature {
    /// `GET /v1/analytics` without `--analytics-url`.
    public static let disabledAnalyticsStatus = AnalyticsStatus(enabled: false, url: nil, interval: 0, pending: 0, sent: 0,
                                                                failed: 0, dropped: 0, lastError: nil)

    public func analyticsStatus() -> AnalyticsStatus {
        reporter?.status() ?? Self.disabledAnalyticsStatus
    }

    public func dropPendingAnalytics() throws(APIError) -> AnalyticsStatus {
        guard let reporter else { return analyticsStatus() }
        do {
            let dropped = try reporter.dropPending()
            log.warning("analytics dropped", ["events": "\(dropped)"])
        } catch {
            throw APIError(.internalError, "cannot drop the pending analytics events: \(error)")
        }
        return analyticsStatus()
    }

    /// Commits one event. A full disk is logged; playback goes on.
    func record(_ kind: AnalyticsEvent.Kind, _ progress: PlaybackProgress) {
        guard let reporter else { return }
        let info = progress.source
        let event = AnalyticsEvent(event: kind, time: AnalyticsTime.timestamp(), contentId: info.contentId, userId: info.userId,
                                   originalUrl: info.originalUrl, uri: info.uri,
                                   position: progress.timelinePosition, duration: progress.duration,
                                   watched: (progress.watched * 1000).rounded() / 1000, rate: progress.rate)
        do {
            try reporter.record(event)
        } catch {
            log.error("analytics event not recorded", ["event": kind.rawValue, "error": "\(error)"])
        }
    }
}
