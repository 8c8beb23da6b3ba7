import ControlAPI

/// Who may do what: the tokens and the browser origins the operator allowed. Pure values,
/// so every rule is tested without a socket.
///
/// - Without a token (loopback only) every local client may do everything.
/// - With `token`, each `/v1` request and `/metrics` needs it as `Authorization: Bearer`
///   (the event stream may carry it as `?token=`, as browsers cannot set headers on a
///   WebSocket). `viewerToken` is a second, read-only token for dashboards on shared
///   screens: GET and HEAD and the event stream, never a command.
/// - Browsers: a request with an `Origin` header is refused unless the origin is this
///   server itself or one named with `--cors-origin`; named origins get CORS headers.
public struct AccessPolicy: Sendable, Equatable {
    public var token: String?
    public var viewerToken: String?
    /// Exact origins (`scheme://host[:port]`) whose pages may call the API.
    public var corsOrigins: Set<String>

    public init(token: String? = nil, viewerToken: String? = nil, corsOrigins: Set<String> = []) {
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
        self.viewerToken = viewerToken.flatMap { $0.isEmpty ? nil : $0 }
        self.corsOrigins = corsOrigins
    }

    public enum Role: Sendable, Equatable {
        /// May read and command.
        case full
        /// May read and follow events only.
        case viewer

        public var mayCommand: Bool { self == .full }
    }

    public var requiresToken: Bool { token != nil }

    /// Why the policy cannot run as configured, or nil. Checked at start.
    public var configurationProblem: String? {
        if viewerToken != nil && token == nil {
            return "--viewer-token needs --token as well (without a token every local client may command)"
        }
        if let viewerToken, viewerToken == token {
            return "--viewer-token must differ from --token"
        }
        for origin in corsOrigins where Self.normalizedOrigin(origin) != origin {
            return "--cors-origin '\(origin)' must be an exact origin such as https://panel.example:8443 (scheme, host, optional port; no path, no '*')"
        }
        return nil
    }

    /// The role of a request to `path`, or the error to answer. `queryToken` only counts on
    /// the event stream.
    public func role(path: String, authorization: String?, queryToken: String?) -> Result<Role, APIError> {
        guard let token else { return .success(.full) }
        if Self.isPublic(path) { return .success(.viewer) }
        var given: String?
        if let authorization, authorization.hasPrefix("Bearer ") {
            given = String(authorization.dropFirst(7))
        } else if path.hasPrefix("/v1/events") {
            given = queryToken
        }
        if let given {
            // Both comparisons always run, so timing tells nothing about which token was near.
            let isOperator = constantTimeEquals(given, token)
            let isViewer = viewerToken.map { constantTimeEquals(given, $0) } ?? false
            if isOperator { return .success(.full) }
            if isViewer { return .success(.viewer) }
        }
        return .failure(APIError(.unauthorized, "a valid token is required (Authorization: Bearer TOKEN)"))
    }

    /// Whether `role` may make this request: viewers may only read.
    public static func permits(_ role: Role, method: String) -> APIError? {
        if role.mayCommand || method == "GET" || method == "HEAD" || method == "OPTIONS" { return nil }
        return APIError(.forbidden, "this token may only read (GET and the event stream); commands need the operator token")
    }

    /// What needs no token: the health check, the API description and the dashboard's files
    /// (which hold no secrets; the page asks for the token itself).
    static func isPublic(_ path: String) -> Bool {
        path == "/healthz" || path == "/openapi.json" || StaticFiles.mayServe(path)
    }

    /// Checks a browser's `Origin` against this server's own (`http://` + the Host header)
    /// and the allowed list. Returns the origin to echo in CORS headers when it is an
    /// allowed foreign one, nil for a same-origin or origin-less request.
    public func checkOrigin(_ origin: String?, host: String) -> Result<String?, APIError> {
        guard let origin else { return .success(nil) }
        if origin == "http://\(host)" { return .success(nil) }
        if corsOrigins.contains(origin) { return .success(origin) }
        return .failure(APIError(.forbidden, "cross-origin requests are not accepted (Origin \(origin)); allow it with --cors-origin"))
    }

    /// `scheme://host[:port]` lowercased the way browsers send it, or nil when `text` is
    /// not an origin.
    static func normalizedOrigin(_ text: String) -> String? {
        guard let sep = text.firstRange(of: "://") else { return nil }
        let scheme = text[..<sep.lowerBound]
        let authority = text[sep.upperBound...]
        guard scheme == "http" || scheme == "https", !authority.isEmpty,
              authority.allSatisfy({ $0.isLetter || $0.isNumber || "-.:[]".contains($0) }),
              authority == authority.lowercased() else { return nil }
        return text
    }
}

/// Compares without an early exit, so response timing does not reveal how much of a
/// guessed token was right.
func constantTimeEquals(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8), y = Array(b.utf8)
    var difference = UInt8(x.count == y.count ? 0 : 1)
    for i in 0..<max(x.count, y.count) {
        difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
    }
    return difference == 0
}
