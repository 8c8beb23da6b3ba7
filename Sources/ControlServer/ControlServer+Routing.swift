import CSoup
import ContentSessions
import ControlAPI
import FoundationEssentials
import GLibRuntime
import OfflineLibrary
import PlayerCore

extension ControlServer {
    /// After the headers, before the body is read: refuse what must not be read at all, and
    /// answer CORS preflights.
    func handleEarly(_ msg: SoupMessage, query: OpaquePointer?) {
        if let error = checkLimits(msg) {
            reply(msg, route: "unmatched", error: error)
            return
        }
        let origin: String?
        switch checkOrigin(msg) {
        case .failure(let error):
            reply(msg, route: "unmatched", error: error)
            return
        case .success(let allowed):
            origin = allowed
        }
        if let origin {
            // On every reply to an allowed foreign page, errors included, so it can read them.
            msg.setResponseHeader("Access-Control-Allow-Origin", origin)
            msg.setResponseHeader("Vary", "Origin")
            if msg.method == "OPTIONS", msg.requestHeader("Access-Control-Request-Method") != nil {
                answerPreflight(msg)
                return
            }
        }
        switch configuration.access.role(path: msg.path, authorization: msg.requestHeader("Authorization"), queryToken: queryValue(query, "token")) {
        case .failure(let error):
            reply(msg, route: "unmatched", error: error)
        case .success(let role):
            if let error = AccessPolicy.permits(role, method: msg.method) {
                reply(msg, route: "unmatched", error: error)
            }
        }
    }

    /// Body size and header limits, before anything is read into memory.
    private func checkLimits(_ msg: SoupMessage) -> APIError? {
        if let length = msg.declaredContentLength, length > Self.maxBodyBytes {
            return APIError(.payloadTooLarge, "request bodies are limited to 1 MiB")
        }
        if msg.requestHeader("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            // A chunked body has no declared size: refuse it rather than buffer without bound.
            return APIError(.payloadTooLarge, "send a Content-Length body of at most 1 MiB (chunked bodies are not accepted)")
        }
        let tally = msg.requestHeaderTally
        if tally.bytes > Self.maxHeaderBytes || tally.count > Self.maxHeaderCount {
            return APIError(.headersTooLarge, "request headers are limited to \(Self.maxHeaderBytes / 1024) KiB and \(Self.maxHeaderCount) fields (got \(tally.bytes) bytes in \(tally.count))")
        }
        return nil
    }

    /// A browser asks before a cross-origin request with a body or an Authorization header.
    private func answerPreflight(_ msg: SoupMessage) {
        metrics.countRequest(route: "preflight", status: 204)
        msg.respond(status: 204, contentType: "text/plain", body: Data(), headers: [
            "Access-Control-Allow-Methods": "GET, HEAD, POST, PUT, PATCH, DELETE",
            "Access-Control-Allow-Headers": "Authorization, Content-Type",
            "Access-Control-Max-Age": "600",
        ])
    }

    /// Web pages must not drive the player unless the operator named their origin: a browser
    /// sends `Origin` with cross-site requests (also "simple" ones that skip CORS preflight)
    /// and WebSocket handshakes. A `Host` that is a DNS name other than localhost is refused
    /// too when no token protects the server, which stops DNS rebinding.
    func checkOrigin(_ msg: SoupMessage) -> Result<String?, APIError> {
        let host = msg.requestHeader("Host") ?? ""
        if !configuration.access.requiresToken, !Self.isAddressOrLocalhost(host) {
            return .failure(APIError(.forbidden, "the Host header must be an IP address or localhost"))
        }
        return configuration.access.checkOrigin(msg.requestHeader("Origin"), host: host)
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
        deadlines.ended(msg.raw)
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
        case .analyticsStatus, .analyticsDrop, .analyticsUpdate, .analyticsFlush:
            handleAnalytics(route, msg)
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
        case .libraryList, .libraryAdd, .libraryItem, .libraryRemove, .libraryPause, .libraryResume, .libraryLicense:
            handleLibrary(route, msg)
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
            if case .open(let request) = command, let library, library.mayRenew(before: request) {
                // A spent licence the licence server may renew: ask first (the reply is held,
                // the GLib thread is not), then open whatever it answered.
                g_object_ref(UnsafeMutableRawPointer(msg.raw))
                msg.pause()
                library.renew(before: request) { [weak self] in
                    msg.unpause()
                    self?.executeOrHold(command, wait: wait, msg, route: route)
                    g_object_unref(UnsafeMutableRawPointer(msg.raw))
                }
                return
            }
            executeOrHold(command, wait: wait, msg, route: route)
        } catch {
            reply(msg, route: route.path, error: error)
        }
    }

    /// Commands that wait for the network before they apply hold their reply; the rest run now.
    private func executeOrHold(_ command: Command, wait: WaitRequest?, _ msg: SoupMessage, route: Route) {
        if case .open(let request) = command, player.opensLater(request) {
            return holdReply(wait: wait, msg, route: route) { [player] finish throws(APIError) in
                try player.openPreparing(request, completion: finish)
            }
        }
        if case .subtitle(let request) = command, let uri = request.uri, SourceResolver.isRemoteSubtitle(uri) {
            return holdReply(wait: wait, msg, route: route) { [player] finish in player.addSubtitle(uri: uri, completion: finish) }
        }
        execute(command, wait: wait, msg, route: route)
    }

    /// `open {"resolve": true}`, an http(s) subtitle: the reply is held (the soup message
    /// paused, not the thread) until the URL resolver answered and the subtitle arrived and
    /// the command was applied, as for a licence renewal; a failure answers its error
    /// (`422 resolver_error`, `422 subtitle_error`) and leaves playback untouched.
    private func holdReply(wait: WaitRequest?, _ msg: SoupMessage, route: Route,
                           _ start: (@escaping @Sendable @GLibActor (Result<PlayerSnapshot, APIError>) -> Void) throws(APIError) -> Void) {
        g_object_ref(UnsafeMutableRawPointer(msg.raw))
        msg.pause()
        let finish: @Sendable @GLibActor (Result<PlayerSnapshot, APIError>) -> Void = { [weak self] outcome in
            msg.unpause()
            defer { g_object_unref(UnsafeMutableRawPointer(msg.raw)) }
            guard let self else { return }
            switch outcome {
            case .success(let snapshot):
                if let wait { self.startWait(wait, msg, route: route.path) } else { self.reply(msg, route: route.path, status: 200, snapshot) }
            case .failure(let error):
                self.reply(msg, route: route.path, error: error)
            }
        }
        do throws(APIError) {
            try start(finish)
        } catch {
            finish(.failure(error))
        }
    }

    private func execute(_ command: Command, wait: WaitRequest?, _ msg: SoupMessage, route: Route) {
        do throws(APIError) {
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

    /// The caller's role, or the error to answer (also checked early, before the body).
    func authorize(_ msg: SoupMessage, query: OpaquePointer?) -> Result<AccessPolicy.Role, APIError> {
        configuration.access.role(path: msg.path, authorization: msg.requestHeader("Authorization"), queryToken: queryValue(query, "token"))
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
