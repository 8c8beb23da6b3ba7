import FoundationEssentials
import GLibRuntime
import HTTPFetch
import Logging

/// Posts heartbeats to the session server from a `ServiceThread` of its own, with its own
/// libsoup session, and reports each verdict back on the GLib thread: a server that hangs
/// never holds the thread that answers the API and runs the player, nor the connections
/// HLS fetches use.
final class SessionClient: Sendable {
    let url: String
    private let thread = ServiceThread(name: "marquee-session")
    private let holder: ClientHolder
    private let log = Logger(category: "session")

    /// `timeoutSeconds` bounds one POST; the grace is the machine's (an unanswered heartbeat
    /// counts as unreachable from when it was sent, whatever libsoup's timeout).
    init(url: String, userAgent: String, timeoutSeconds: UInt32 = 30) {
        self.url = url
        holder = ClientHolder(userAgent: userAgent, timeoutSeconds: timeoutSeconds)
    }

    /// POSTs `body`; `verdict` runs on the GLib thread with what the server said, unless
    /// `verdict` is nil (a `stop`: best effort, only logged).
    func post(_ event: String, body: Data, verdict: (@GLibActor @Sendable (SessionVerdict) -> Void)?) {
        let url = url
        let holder = holder
        let log = log
        thread.perform {
            let sent = ContinuousClock.now
            _ = holder.client.send("POST", url, headers: [:], body: (body, "application/json")) { result in
                let milliseconds = sent.duration(to: .now).milliseconds
                let answer: SessionVerdict
                switch result {
                case .success(let reply): answer = SessionVerdict(replyBody: reply.body)
                case .failure(let error): answer = .unreachable(error.description)
                }
                // The round trip, for bench/session.py (debug level: one line per heartbeat).
                log.debug("heartbeat answered", ["event": event, "ms": milliseconds, "verdict": answer.logText])
                guard let verdict else { return }
                Task { @GLibActor in verdict(answer) }
            }
        }
    }
}

/// The libsoup client, made on first use on the session thread (a SoupSession belongs to the
/// context it was made on) and used only there.
private final class ClientHolder: @unchecked Sendable {
    private let userAgent: String
    private let timeoutSeconds: UInt32
    private var made: SoupClient?
    init(userAgent: String, timeoutSeconds: UInt32) {
        self.userAgent = userAgent
        self.timeoutSeconds = timeoutSeconds
    }

    /// The session thread only.
    var client: SoupClient {
        if let made { return made }
        let client = SoupClient(userAgent: userAgent, timeoutSeconds: timeoutSeconds)
        made = client
        return client
    }
}

extension SessionVerdict {
    var logText: String {
        switch self {
        case .allow: return "allow"
        case .deny(let code, _): return "deny \(code ?? "-")"
        case .unreachable(let error): return "unreachable: \(error)"
        }
    }
}

extension Duration {
    /// Milliseconds with three decimals, as text.
    var milliseconds: String {
        let (seconds, attoseconds) = components
        let ms = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return String((ms * 1000).rounded() / 1000)
    }
}
