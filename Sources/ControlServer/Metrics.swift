import ControlAPI
import GLibRuntime
import PlayerCore

/// Counters for GET /metrics, in Prometheus' text format. GLib thread only.
@GLibActor
final class Metrics {
    private var requests: [RequestKey: Int] = [:]
    var eventsSent = 0
    /// Connections closed because their request did not arrive in time (`RequestDeadlines`).
    var requestsTimedOut = 0
    /// Event streams refused because the maximum of clients was reached.
    var eventClientsRefused = 0
    private var clients: [String: Int] = ["websocket": 0, "sse": 0]
    /// How late the GLib loop (the thread that answers requests) runs what is due.
    let loopLag = MainLoopLag()

    private struct RequestKey: Hashable {
        var route: String
        var status: Int
    }

    /// `route` is the route's template path (never the raw path: a scan of random URLs must
    /// not grow the table without bound), or "unmatched".
    func countRequest(route: String, status: Int) {
        requests[RequestKey(route: route, status: status), default: 0] += 1
    }

    func clientConnected(kind: String) { clients[kind, default: 0] += 1 }
    func clientDisconnected(kind: String) { clients[kind, default: 0] -= 1 }

    func render(player: Player) -> String {
        var out = ""
        out += "# HELP marquee_http_requests_total HTTP requests by route and status.\n"
        out += "# TYPE marquee_http_requests_total counter\n"
        for (key, count) in requests.sorted(by: { ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status) }) {
            out += "marquee_http_requests_total{route=\"\(key.route)\",status=\"\(key.status)\"} \(count)\n"
        }
        out += "# HELP marquee_http_requests_timed_out_total Connections closed because a request did not arrive in time.\n"
        out += "# TYPE marquee_http_requests_timed_out_total counter\n"
        out += "marquee_http_requests_timed_out_total \(requestsTimedOut)\n"
        out += "# HELP marquee_event_clients_refused_total Event streams refused at the client limit.\n"
        out += "# TYPE marquee_event_clients_refused_total counter\n"
        out += "marquee_event_clients_refused_total \(eventClientsRefused)\n"
        out += "# HELP marquee_events_sent_total Events sent to WebSocket and SSE clients.\n"
        out += "# TYPE marquee_events_sent_total counter\n"
        out += "marquee_events_sent_total \(eventsSent)\n"
        out += "# HELP marquee_event_clients Connected event clients by transport.\n"
        out += "# TYPE marquee_event_clients gauge\n"
        for (kind, count) in clients.sorted(by: { $0.key < $1.key }) {
            out += "marquee_event_clients{transport=\"\(kind)\"} \(count)\n"
        }
        out += "# HELP marquee_websocket_clients Connected WebSocket clients.\n"
        out += "# TYPE marquee_websocket_clients gauge\n"
        out += "marquee_websocket_clients \(clients["websocket", default: 0])\n"
        out += renderLoopLag()
        let stats = player.stats
        out += "# HELP marquee_pipeline_errors_total Errors reported by playback pipelines.\n"
        out += "# TYPE marquee_pipeline_errors_total counter\n"
        out += "marquee_pipeline_errors_total \(stats.pipelineErrors)\n"
        out += "# HELP marquee_opens_total Sources opened.\n"
        out += "# TYPE marquee_opens_total counter\n"
        out += "marquee_opens_total \(stats.opens)\n"
        out += "# HELP marquee_player_state The player's state (1 for the current one).\n"
        out += "# TYPE marquee_player_state gauge\n"
        for state in PlaybackState.allCases {
            out += "marquee_player_state{state=\"\(state.rawValue)\"} \(state == player.state ? 1 : 0)\n"
        }
        return out
    }

    private func renderLoopLag() -> String {
        var out = "# HELP marquee_main_loop_lag_seconds How late the main loop (which answers HTTP and WebSocket) ran a timer due every 100 ms.\n"
        out += "# TYPE marquee_main_loop_lag_seconds histogram\n"
        var cumulative = 0
        for (bound, count) in zip(MainLoopLag.bucketBounds, loopLag.counts) {
            cumulative += count
            out += "marquee_main_loop_lag_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "marquee_main_loop_lag_seconds_bucket{le=\"+Inf\"} \(loopLag.count)\n"
        out += "marquee_main_loop_lag_seconds_sum \(loopLag.sum)\n"
        out += "marquee_main_loop_lag_seconds_count \(loopLag.count)\n"
        out += "# HELP marquee_main_loop_lag_last_seconds The latest main-loop lag measured.\n"
        out += "# TYPE marquee_main_loop_lag_last_seconds gauge\n"
        out += "marquee_main_loop_lag_last_seconds \(loopLag.last)\n"
        out += "# HELP marquee_main_loop_lag_max_seconds The largest main-loop lag since the daemon started.\n"
        out += "# TYPE marquee_main_loop_lag_max_seconds gauge\n"
        out += "marquee_main_loop_lag_max_seconds \(loopLag.max)\n"
        return out
    }
}
