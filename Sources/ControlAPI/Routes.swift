/// The HTTP routes of the control API: one table used by the server to dispatch and by a
/// test to keep `openapi.json` in step.
public struct Route: Sendable, Hashable {
    public enum Action: Sendable, Hashable {
        /// Decode the body as this command's arguments and send it to the player.
        case command(String)
        case snapshot
        /// The composed output frame as JPEG.
        case snapshotImage
        /// The analytics outbox's counters; and dropping what is pending.
        case analyticsStatus
        case analyticsDrop
        case queue
        case events
        case health
        case metrics
        case openAPI
    }

    public var method: String
    public var path: String
    public var action: Action

    public init(_ method: String, _ path: String, _ action: Action) {
        self.method = method
        self.path = path
        self.action = action
    }
}

public enum Routes {
    /// Every route: the others, then those of the commands (from `CommandDescriptor.all`), so
    /// that `Allow` lists GET first.
    public static let all: [Route] = others + CommandDescriptor.all.map { Route($0.method, $0.path, .command($0.name.rawValue)) }

    /// The routes that are not commands.
    public static let others: [Route] = [
        Route("GET", "/v1/player", .snapshot),
        Route("GET", "/v1/snapshot.jpg", .snapshotImage),
        Route("GET", "/v1/analytics", .analyticsStatus),
        Route("DELETE", "/v1/analytics", .analyticsDrop),
        Route("GET", "/v1/queue", .queue),
        Route("GET", "/v1/events", .events),
        Route("GET", "/healthz", .health),
        Route("GET", "/metrics", .metrics),
        Route("GET", "/openapi.json", .openAPI),
    ]

    public enum Match: Equatable {
        case found(Route)
        case methodNotAllowed(allowed: [String])
        case notFound
    }

    /// Matches the whole path (libsoup matches handlers by prefix, so the server registers
    /// one handler and routes here). A trailing slash is tolerated.
    public static func match(method: String, path: String) -> Match {
        let normalized = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        let candidates = all.filter { $0.path == normalized }
        if candidates.isEmpty { return .notFound }
        // HEAD is answered like GET without a body, as HTTP requires.
        let wanted = method == "HEAD" ? "GET" : method
        if let route = candidates.first(where: { $0.method == wanted }) { return .found(route) }
        return .methodNotAllowed(allowed: candidates.map(\.method))
    }
}
