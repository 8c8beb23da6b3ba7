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

    /// `PATCH /v1/analytics`: `409 invalid_state` without `--analytics-url` (there is no
    /// collector to turn on).
    public func updateAnalytics(_ patch: AnalyticsPatch) throws(APIError) -> AnalyticsStatus {
        guard let reporter else {
            throw APIError(.invalidState, "analytics need a collector: start the daemon with --analytics-url")
        }
        let intervalChanged = patch.interval.map { $0 != reporter.configuration.interval } ?? false
        reporter.update(enabled: patch.enabled, interval: patch.interval)
        if intervalChanged || patch.enabled == false, analyticsTimer != nil {
            // The next `playing` comes a whole new interval from now (or never, when off).
            analyticsTimer?.cancel()
            analyticsTimer = nil
            if let progress = player?.progress, progress.state == .playing { startTimers(for: progress) }
        }
        return analyticsStatus()
    }

    /// `POST /v1/analytics/flush`: answers with the counters once nothing is pending, or
    /// with the failure that stopped the delivery.
    public func flushAnalytics(completion: @escaping (Result<AnalyticsStatus, APIError>) -> Void) {
        guard let reporter else {
            return completion(.failure(APIError(.invalidState, "analytics need a collector: start the daemon with --analytics-url")))
        }
        reporter.flush { [weak self] result in
            guard let self else { return }
            completion(result.map { self.analyticsStatus() })
        }
    }

    /// Commits one event. A full disk is logged; playback goes on.
    func record(_ kind: AnalyticsEvent.Kind, _ progress: PlaybackProgress) {
        guard let reporter, reporter.isEnabled else { return }
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
