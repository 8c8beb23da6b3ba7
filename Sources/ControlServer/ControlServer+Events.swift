import CSoup
import ControlAPI
import FoundationEssentials
import GLibRuntime
import OfflineLibrary
import PlayerCore

extension ControlServer {
    /// GET /v1/events. A WebSocket upgrade is left to libsoup (which then calls
    /// `acceptWebSocket`); any other GET becomes a Server-Sent Events stream.
    func handleEventsRequest(_ msg: SoupMessage, query: OpaquePointer?) {
        let path = msg.path
        guard path == "/v1/events" || path == "/v1/events/" else {
            reply(msg, route: "unmatched", error: APIError(.routeNotFound, "no route \(path)"))
            return
        }
        guard msg.method == "GET" else {
            reply(msg, route: "/v1/events", error: APIError(.methodNotAllowed, "use GET"), headers: ["Allow": "GET"])
            return
        }
        deadlines.ended(msg.raw)
        let role: AccessPolicy.Role
        switch authorize(msg, query: query) {
        case .failure(let error):
            reply(msg, route: "/v1/events", error: error)
            return
        case .success(let granted):
            role = granted
        }
        guard hub.clientCount < configuration.limits.eventClients else {
            metrics.eventClientsRefused += 1
            reply(msg, route: "/v1/events", error: APIError(.tooManyRequests, "at most \(configuration.limits.eventClients) event streams at once; try again later"),
                  headers: ["Retry-After": "5"])
            return
        }
        if msg.requestHeader("Upgrade")?.lowercased() == "websocket" {
            // libsoup would answer a bad handshake with its own HTML page: check it here so
            // the error has the API's shape.
            guard !(msg.requestHeader("Sec-WebSocket-Key") ?? "").isEmpty, msg.requestHeader("Sec-WebSocket-Version") == "13" else {
                reply(msg, route: "/v1/events", error: APIError(.invalidArgument, "a WebSocket handshake needs Sec-WebSocket-Key and Sec-WebSocket-Version: 13"))
                return
            }
            // Status stays unset so libsoup completes the handshake; remember the socket
            // now, the upgraded connection no longer exposes it. Entries are taken by
            // acceptWebSocket; the bound drops strays of handshakes that failed after this.
            if pendingUpgrades.count > 64 { pendingUpgrades.removeAll() }
            pendingUpgrades[msg.raw] = PendingUpgrade(fd: msg.socketFD, role: role)
            return
        }
        metrics.countRequest(route: "/v1/events", status: 200)
        let slot = ClientSlot()
        let outlet = SSEOutlet(message: msg.raw) { [weak self] in
            guard let self, let client = slot.client else { return }
            self.hub.remove(client)
            client.outlet.close()
        }
        slot.client = hub.add(kind: "sse", outlet: outlet)
    }

    func acceptWebSocket(message: OpaquePointer, connection: OpaquePointer) {
        let upgrade = pendingUpgrades.removeValue(forKey: message) ?? PendingUpgrade(fd: -1, role: .viewer)
        metrics.countRequest(route: "/v1/events", status: 101)
        let slot = ClientSlot()
        let outlet = WebSocketOutlet(connection: connection, fd: upgrade.fd, onText: { [weak self] text in
            guard let self, let client = slot.client else { return }
            self.runWebSocketCommand(text, client: client, role: upgrade.role)
        }, onClosed: { [weak self] in
            guard let self, let client = slot.client else { return }
            self.hub.remove(client)
            client.outlet.close()
        })
        slot.client = hub.add(kind: "websocket", outlet: outlet)
    }

    private func runWebSocketCommand(_ text: String, client: EventClient, role: AccessPolicy.Role) {
        switch WebSocketCommand.decode(text) {
        case .failure(let failure):
            client.reply(WebSocketReply(id: failure.id, error: failure.error))
        case .success(let message) where !role.mayCommand:
            client.reply(WebSocketReply(id: message.id, error: AccessPolicy.permits(role, method: "POST")!))
        case .success(let message):
            if case .open(let request) = message.command, let library, library.mayRenew(before: request) {
                library.renew(before: request) { [weak self] in self?.send(message, for: client) }
            } else if case .open(let request) = message.command, player.opensLater(request) {
                // Answered once the URL resolver answered, the http(s) subtitle arrived and
                // the open was applied.
                do throws(APIError) {
                    try player.openPreparing(request) { outcome in client.reply(WebSocketReply(id: message.id, outcome)) }
                } catch {
                    client.reply(WebSocketReply(id: message.id, error: error))
                }
            } else if case .subtitle(let request) = message.command, let uri = request.uri, SourceResolver.isRemoteSubtitle(uri) {
                player.addSubtitle(uri: uri) { outcome in client.reply(WebSocketReply(id: message.id, outcome)) }
            } else {
                send(message, for: client)
            }
        }
    }

    private func send(_ message: WebSocketCommand, for client: EventClient) {
        do {
            try player.send(message.command)
            client.reply(WebSocketReply(id: message.id))
        } catch {
            client.reply(WebSocketReply(id: message.id, error: error))
        }
    }
}

private extension WebSocketReply {
    /// The reply to a command answered later: ok, or its error.
    init(id: MessageID?, _ outcome: Result<PlayerSnapshot, APIError>) {
        switch outcome {
        case .success: self.init(id: id)
        case .failure(let error): self.init(id: id, error: error)
        }
    }
}

/// What the handshake learned that the upgraded connection no longer tells: its socket (for
/// the backlog measure) and the caller's role (viewers may not send commands).
struct PendingUpgrade {
    var fd: Int32
    var role: AccessPolicy.Role
}

/// Lets an outlet's callbacks reach the client that is created after the outlet.
/// Weak: the hub owns clients; a callback after removal finds nothing.
@GLibActor
private final class ClientSlot {
    weak var client: EventClient?
}
