import CSoup
import ControlAPI
import ContentSessions
import FoundationEssentials
import GLibRuntime

/// `/v1/analytics`: the outbox's counters, dropping what is pending, turning recording on or
/// off at run time, and a flush that answers once the collector has everything (the reply
/// is held, the GLib thread is not).
extension ControlServer {
    func handleAnalytics(_ route: Route, _ msg: SoupMessage) {
        do throws(APIError) {
            switch route.action {
            case .analyticsStatus:
                reply(msg, route: route.path, status: 200, contentSessions?.analyticsStatus() ?? ContentSessionFeature.disabledAnalyticsStatus)
            case .analyticsDrop:
                reply(msg, route: route.path, status: 200, try contentSessions?.dropPendingAnalytics() ?? ContentSessionFeature.disabledAnalyticsStatus)
            case .analyticsUpdate:
                let patch = try JSONCoding.decodeBody(AnalyticsPatch.self, from: msg.requestBody)
                guard let contentSessions else {
                    throw APIError(.invalidState, "analytics need a collector: start the daemon with --analytics-url")
                }
                reply(msg, route: route.path, status: 200, try contentSessions.updateAnalytics(patch))
            case .analyticsFlush:
                guard let contentSessions else {
                    throw APIError(.invalidState, "analytics need a collector: start the daemon with --analytics-url")
                }
                let held = HeldReply(msg)
                contentSessions.flushAnalytics { [weak self] outcome in
                    guard let self else { return }
                    switch outcome {
                    case .success(let status):
                        self.metrics.countRequest(route: route.path, status: 200)
                        held.finish { $0.respondJSON(status: 200, status) }
                    case .failure(let error):
                        self.metrics.countRequest(route: route.path, status: error.httpStatus)
                        held.finish { $0.respondError(error) }
                    }
                }
            default:
                break
            }
        } catch {
            reply(msg, route: route.path, error: error)
        }
    }
}
