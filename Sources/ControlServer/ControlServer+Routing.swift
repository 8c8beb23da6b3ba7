import CSoup
import ControlAPI
import Foundation
import GLibRuntime
import PlayerCore

extension ControlServer {
    /// After the headers, before the body is read: refuse what must not be read at all.
    func handleEarly(_ msg: SoupMessage, query: OpaquePointer?) {
        if let length = msg.declaredContentLength, length > Self.maxBodyBytes {
            reply(msg, route: "unmatched", error: APIError(.payloadTooLarge, "request bodies are limited to 1 MiB"))
            return
        }
        if msg.requestHeader("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            // A chunked body has no declared size: refuse it rather than buffer without bound.
            reply(msg, route: "unmatched", error: APIError(.payloadTooLarge, "send a Content-Length body of at most 1 MiB (chunked bodies are not accepted)"))
            return
        }
        if let error = authorize(msg, query: query) ?? checkOrigin(msg) {
            reply(msg, route: "unmatched", error: error)
        }
    }

    /// Web pages must not drive the player: a browser sends `Origin` with cross-site requests
    /// (also "simple" ones that skip CORS preflight) and WebSocket handshakes, so any Origin
    /// other than this server's own is refused. A `Host` that is a DNS name other than
    /// localhost is refused too when no token protects the server, which stops DNS rebinding.
    func checkOrigin(_ msg: SoupMessage) -> APIError? {
        let host = msg.requestHeader("Host") ?? ""
        if let origin = msg.requestHeader("Origin"), origin != "http://\(host)" {
            return APIError(.forbidden, "cross-origin requests are not accepted (Origin \(origin))")
        }
        if (configuration.token ?? "").isEmpty, !Self.isAddressOrLocalhost(host) {
            return APIError(.forbidden, "the Host header must be an IP address or localhost")
        }
        return nil
    }

    static func isAddressOrLocalhost(_ hostHeader: String) -> Bool {
        var host = Substring(hostHeader)
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            return host[host.index(after: host.startIndex)..<close].allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
        }
        if let colon = host.lastIndex(of: ":") { host = host[..<colon] }
        return host == "localhost" || (!host.isEmpty && host.allSatisfy { $0.isNumber || $0 == "." })
    }

    func handle(_ msg: SoupMessage, query: OpaquePointer?) {
        switch Routes.match(method: msg.method, path: msg.path) {
        case .notFound where StaticFiles.mayServe(msg.path):
            serveStaticFile(msg)
        case .notFound:
            reply(msg, route: "unmatched", error: APIError(.routeNotFound, "no route \(msg.path)"))
        case .methodNotAllowed(let allowed):
            reply(msg, route: msg.path, error: APIError(.methodNotAllowed, "\(msg.method) is not allowed on \(msg.path); use \(allowed.joined(separator: ", "))"),
                  headers: ["Allow": allowed.joined(separator: ", ")])
        case .found(let route):
            dispatch(route, msg, query: query)
        }
    }

    private func dispatch(_ route: Route, _ msg: SoupMessage, query: OpaquePointer?) {
        switch route.action {
        case .snapshot:
            reply(msg, route: route.path, status: 200, player.snapshot())
        case .snapshotImage:
            replyWithFrame(msg, route: route.path, query: query)
        case .queue:
            reply(msg, route: route.path, status: 200, player.queueInfo)
        case .analyticsStatus:
            reply(msg, route: route.path, status: 200, player.analyticsStatus())
        case .analyticsDrop:
            do throws(APIError) {
                reply(msg, route: route.path, status: 200, try player.dropPendingAnalytics())
            } catch {
                reply(msg, route: route.path, error: error)
            }
        case .health:
            reply(msg, route: route.path, status: 200, Health(status: "ok", version: MarqueeVersion.current, gstreamer: player.gstreamerVersion))
        case .metrics:
            let text = metrics.render(player: player)
            metrics.countRequest(route: route.path, status: 200)
            msg.respond(status: 200, contentType: "text/plain; version=0.0.4", body: Data(text.utf8))
        case .openAPI:
            metrics.countRequest(route: route.path, status: 200)
            msg.respond(status: 200, contentType: "application/json", body: Data(OpenAPIDocument.json.utf8))
        case .events:
            // libsoup hands every /v1/events* request to the events handler; kept for the
            // exhaustive switch.
            handleEventsRequest(msg, query: query)
        case .command(let name):
            runCommand(name, route: route, msg, query: query)
        }
    }

    private func runCommand(_ name: String, route: Route, _ msg: SoupMessage, query: OpaquePointer?) {
        let wait: WaitRequest?
        do throws(APIError) {
            wait = try WaitRequest(state: queryValue(query, "wait"), timeout: queryValue(query, "timeout"))
            if wait != nil && waiters.count >= Self.maxWaiters {
                throw APIError(.tooManyRequests, "too many requests are waiting (\(Self.maxWaiters)); try again without ?wait or later")
            }
            let command = try Command.decode(name: name, arguments: msg.requestBody)
            let snapshot = try player.send(command)
            guard let wait else {
                reply(msg, route: route.path, status: 200, snapshot)
                return
            }
            startWait(wait, msg, route: route.path)
        } catch {
            reply(msg, route: route.path, error: error)
        }
    }

    /// Holds the reply until the player reaches the wanted state, fails, or time runs out.
    private func startWait(_ wait: WaitRequest, _ msg: SoupMessage, route: String) {
        addWaiter { id in
            Waiter(id: id, request: wait, message: msg, player: player, completion: { [weak self] outcome in
                guard let self else { return }
                self.removeWaiter(id)
                switch outcome {
                case .success(let snapshot): self.metrics.countRequest(route: route, status: 200); msg.respondJSON(status: 200, snapshot)
                case .failure(let error): self.metrics.countRequest(route: route, status: error.httpStatus); msg.respondError(error)
                }
            }, onAbandoned: { [weak self] in self?.removeWaiter(id) })
        }
    }

    func reply<T: Encodable>(_ msg: SoupMessage, route: String, status: Int, _ value: T) {
        metrics.countRequest(route: route, status: status)
        msg.respondJSON(status: status, value)
    }

    func reply(_ msg: SoupMessage, route: String, error: APIError, headers: [String: String] = [:]) {
        metrics.countRequest(route: route, status: error.httpStatus)
        if error.code == .unauthorized {
            msg.respondError(error, headers: ["WWW-Authenticate": "Bearer realm=\"marquee\""].merging(headers) { a, _ in a })
        } else {
            msg.respondError(error, headers: headers)
        }
    }

    /// With a token configured, everything but /healthz and /openapi.json needs it, as
    /// `Authorization: Bearer TOKEN` or, for the events stream (browsers cannot set headers
    /// on a WebSocket), as `?token=`.
    func authorize(_ msg: SoupMessage, query: OpaquePointer?) -> APIError? {
        guard let token = configuration.token, !token.isEmpty else { return nil }
        let path = msg.path
        // The dashboard's files hold no secrets: the page asks for the token itself.
        if path == "/healthz" || path == "/openapi.json" || StaticFiles.mayServe(path) { return nil }
        if let header = msg.requestHeader("Authorization"), header.hasPrefix("Bearer "),
           constantTimeEquals(String(header.dropFirst(7)), token) {
            return nil
        }
        if path.hasPrefix("/v1/events"), let given = queryValue(query, "token"), constantTimeEquals(given, token) {
            return nil
        }
        return APIError(.unauthorized, "a valid token is required (Authorization: Bearer TOKEN)")
    }
}

extension ControlServer {
    /// A file of the dashboard (GET and HEAD only).
    func serveStaticFile(_ msg: SoupMessage) {
        guard msg.method == "GET" || msg.method == "HEAD" else {
            reply(msg, route: "static", error: APIError(.methodNotAllowed, "\(msg.method) is not allowed on \(msg.path); use GET"),
                  headers: ["Allow": "GET, HEAD"])
            return
        }
        switch configuration.staticFiles.file(at: msg.path) {
        case .success(let file):
            metrics.countRequest(route: "static", status: 200)
            msg.respond(status: 200, contentType: file.contentType, body: file.body, headers: file.headers)
        case .failure(.noDashboard):
            reply(msg, route: "static", error: APIError(.notFound, "the dashboard files (web/) were not found; set MARQUEE_WEB to the web folder"))
        case .failure(.notFound):
            reply(msg, route: "static", error: APIError(.notFound, "no file \(msg.path)"))
        }
    }
}

struct Health: Codable {
    var status: String
    var version: String
    var gstreamer: String
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
