import ControlAPI
import FoundationEssentials
import GLibRuntime

/// Where one client's frames go: a WebSocket connection or an SSE response.
@GLibActor
protocol EventOutlet: AnyObject {
    /// Hands one serialized message to libsoup.
    func write(_ text: String)
    /// Bytes the kernel still holds for this client (see `unsentBytes`).
    var backlogBytes: Int { get }
    /// Keeps an idle connection alive through proxies and notices a peer that went away.
    func heartbeat()
    func close()
}

/// One subscriber of the event stream with its own sequence numbers and a bounded queue.
/// A slow client never stalls the player: while its socket is backed up, events wait here;
/// when more than `queueLimit` wait, they are dropped and the client gets a fresh snapshot
/// once it catches up. Latest-value events (position, buffering, ...) replace an older queued
/// one of the same type, so a backed-up client still gets the newest value.
@GLibActor
final class EventClient {
    static let queueLimit = 256
    /// Above this many unsent bytes in the kernel the client counts as backed up. Small on
    /// purpose: a remote client that stops reading leaves only about one send buffer unsent
    /// (74 KB seen at MSS 1400), after which libsoup would queue without limit.
    static let backlogLimit = 32 * 1024

    let id: Int
    let kind: String
    let outlet: any EventOutlet
    private var nextSeq = 1
    private var queue: [PlayerEvent] = []
    private var needsSnapshot = false
    private(set) var overflows = 0

    init(id: Int, kind: String, outlet: any EventOutlet) {
        self.id = id
        self.kind = kind
        self.outlet = outlet
    }

    var hasBacklog: Bool { !queue.isEmpty || needsSnapshot }

    /// Queues an event and sends what the socket can take. Returns the number of events sent.
    func enqueue(_ event: PlayerEvent, snapshot: () -> PlayerSnapshot) -> Int {
        if needsSnapshot {
            // Everything before the coming snapshot is superseded by it.
        } else if event.isLatestValue, let i = queue.lastIndex(where: { $0.type == event.type }) {
            // The newer value goes to the back, so it never overtakes events sent before it.
            queue.remove(at: i)
            queue.append(event)
        } else if queue.count >= Self.queueLimit {
            queue.removeAll()
            needsSnapshot = true
            overflows += 1
        } else {
            queue.append(event)
        }
        return flush(snapshot: snapshot)
    }

    /// Sends queued events while the socket is not backed up.
    func flush(snapshot: () -> PlayerSnapshot) -> Int {
        var sent = 0
        while outlet.backlogBytes < Self.backlogLimit {
            let event: PlayerEvent
            if needsSnapshot {
                needsSnapshot = false
                event = .snapshot(snapshot())
            } else if !queue.isEmpty {
                event = queue.removeFirst()
            } else {
                break
            }
            send(event)
            sent += 1
        }
        return sent
    }

    private func send(_ event: PlayerEvent) {
        let data = JSONCoding.encode(EventEnvelope(seq: nextSeq, event: event))
        nextSeq += 1
        outlet.write(String(decoding: data, as: UTF8.self))
    }

    /// A reply to a WebSocket command: not an event, so it has no seq and is never dropped.
    func reply(_ reply: WebSocketReply) {
        outlet.write(String(decoding: JSONCoding.encode(reply), as: UTF8.self))
    }
}
