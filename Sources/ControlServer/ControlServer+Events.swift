import CSoup
import ControlAPI
import Foundation
import GLibRuntime
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
        if let error = authorize(msg, query: query) {
            reply(msg, route: "/v1/events", error: error)
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
            if pendingUpgradeSockets.count > 64 { pendingUpgradeSockets.removeAll() }
            pendingUpgradeSockets[msg.raw] = msg.socketFD
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
        let fd = pendingUpgradeSockets.removeValue(forKey: message) ?? -1
        metrics.countRequest(route: "/v1/events", status: 101)
        let slot = ClientSlot()
        let outlet = WebSocketOutlet(connection: connection, fd: fd, onText: { [weak self] text in
            guard let self, let client = slot.client else { return }
            self.runWebSocketCommand(text, client: client)
        }, onClosed: { [weak self] in
            guard let self, let client = slot.client else { return }
            self.hub.remove(client)
            client.outlet.close()
        })
        slot.client = hub.add(kind: "websocket", outlet: outlet)
    }

    private func runWebSocketCommand(_ text: String, client: EventClient) {
        switch WebSocketCommand.decode(text) {
        case .failure(let failure):
            client.reply(WebSocketReply(id: failure.id, error: failure.error))
        case .success(let message):
            do {
                try player.send(message.command)
                client.reply(WebSocketReply(id: message.id))
            } catch {
                client.reply(WebSocketReply(id: message.id, error: error))
            }
        }
    }
}

/// Lets an outlet's callbacks reach the client that is created after the outlet.
/// Weak: the hub owns clients; a callback after removal finds nothing.
@GLibActor
private final class ClientSlot {
    weak var client: EventClient?
}
