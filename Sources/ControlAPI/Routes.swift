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
        /// Recording on or off and the interval, at run time; sending what is pending now.
        case analyticsUpdate
        case analyticsFlush
        case queue
        case events
        case health
        case metrics
        case openAPI
        /// The offline library (API-2 §1); `{id}` in the path is the item's id.
        case libraryList, libraryAdd, libraryItem, libraryRemove, libraryPause, libraryResume, libraryLicense
    }

    public var method: String
    public var path: String
    public var action: Action
    /// The JSON fields a route that is not a command takes in its body (the CLI's options
    /// fill only these; a test checks it).
    public var bodyFields: [String]

    public init(_ method: String, _ path: String, _ action: Action, bodyFields: [String] = []) {
        self.method = method
        self.path = path
        self.action = action
        self.bodyFields = bodyFields
    }
}

extension Route {
    /// The values of the path's `{…}` segments when `path` matches this route (empty for a
    /// route without any), else nil. A parameter is one non-empty segment.
    public func parameters(in path: String) -> [String]? {
        guard self.path.contains("{") else { return self.path == path ? [] : nil }
        let pattern = self.path.split(separator: "/", omittingEmptySubsequences: false)
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard pattern.count == parts.count else { return nil }
        var values: [String] = []
        for (want, got) in zip(pattern, parts) {
            if want.hasPrefix("{") {
                guard !got.isEmpty else { return nil }
                values.append(String(got))
            } else if want != got {
                return nil
            }
        }
        return values
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
        Route("PATCH", "/v1/analytics", .analyticsUpdate, bodyFields: AnalyticsPatch.fields),
        Route("POST", "/v1/analytics/flush", .analyticsFlush),
        Route("GET", "/v1/queue", .queue),
        Route("GET", "/v1/events", .events),
        Route("GET", "/healthz", .health),
        Route("GET", "/metrics", .metrics),
        Route("GET", "/openapi.json", .openAPI),
        Route("GET", "/v1/library", .libraryList),
        Route("POST", "/v1/library", .libraryAdd, bodyFields: LibraryAddRequest.fields),
        Route("GET", "/v1/library/{id}", .libraryItem),
        Route("DELETE", "/v1/library/{id}", .libraryRemove),
        Route("POST", "/v1/library/{id}/pause", .libraryPause),
        Route("POST", "/v1/library/{id}/resume", .libraryResume),
        Route("PUT", "/v1/library/{id}/license", .libraryLicense, bodyFields: LicenseTerms.fields),
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
        let candidates = all.filter { $0.parameters(in: normalized) != nil }
        if candidates.isEmpty { return .notFound }
        // HEAD is answered like GET without a body, as HTTP requires.
        let wanted = method == "HEAD" ? "GET" : method
        if let route = candidates.first(where: { $0.method == wanted }) { return .found(route) }
        return .methodNotAllowed(allowed: candidates.map(\.method))
    }
}
