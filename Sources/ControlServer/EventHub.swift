import ControlAPI
import FoundationEssentials
import GLibRuntime
import PlayerCore

/// Fans the player's events out to every WebSocket and SSE client. GLib thread only.
@GLibActor
final class EventHub {
    private let player: Player
    private let metrics: Metrics
    private var clients: [Int: EventClient] = [:]
    private var nextClientID = 0
    private var subscription: Int?
    /// Runs only while some client is backed up, to send what waited once it drains.
    private var drainTimer: LoopTimer?
    /// Runs while any client is connected.
    private var heartbeatTimer: LoopTimer?
    static let heartbeatSeconds = 15

    init(player: Player, metrics: Metrics) {
        self.player = player
        self.metrics = metrics
        subscription = player.subscribe { [weak self] event in self?.broadcast(event) }
    }

    /// Registers a client; its first event is a snapshot.
    func add(kind: String, outlet: any EventOutlet) -> EventClient {
        nextClientID += 1
        let client = EventClient(id: nextClientID, kind: kind, outlet: outlet)
        clients[client.id] = client
        metrics.clientConnected(kind: kind)
        if heartbeatTimer == nil {
            heartbeatTimer = LoopTimer(milliseconds: UInt32(Self.heartbeatSeconds * 1000)) { [weak self] in
                guard let self else { return }
                for client in self.clients.values { client.outlet.heartbeat() }
            }
        }
        deliver(.snapshot(player.snapshot()), to: client)
        return client
    }

    func remove(_ client: EventClient) {
        guard clients.removeValue(forKey: client.id) != nil else { return }
        metrics.clientDisconnected(kind: client.kind)
        if clients.isEmpty {
            heartbeatTimer?.cancel()
            heartbeatTimer = nil
        }
    }

    var clientCount: Int { clients.count }

    private func broadcast(_ event: PlayerEvent) {
        for client in clients.values { deliver(event, to: client) }
    }

    private func deliver(_ event: PlayerEvent, to client: EventClient) {
        metrics.eventsSent += client.enqueue(event) { player.snapshot() }
        if client.hasBacklog { startDrainTimer() }
    }

    private func startDrainTimer() {
        guard drainTimer == nil else { return }
        drainTimer = LoopTimer(milliseconds: 50) { [weak self] in self?.drain() }
    }

    private func drain() {
        var anyBacklog = false
        for client in clients.values where client.hasBacklog {
            metrics.eventsSent += client.flush { player.snapshot() }
            anyBacklog = anyBacklog || client.hasBacklog
        }
        if !anyBacklog {
            drainTimer?.cancel()
            drainTimer = nil
        }
    }

    func closeAll() {
        for client in clients.values { client.outlet.close() }
        clients.removeAll()
        drainTimer?.cancel()
        drainTimer = nil
        heartbeatTimer?.cancel()
        heartbeatTimer = nil
        if let subscription { player.unsubscribe(subscription) }
    }
}
