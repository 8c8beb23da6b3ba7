import ControlAPI
import FoundationEssentials
import GLibRuntime
import Logging
import PlayerCore

/// Concurrent-session control (`--session-url`, API-2 §2), built on the player's feature
/// surface: what the player does and what the session server answers go into a
/// `SessionMachine`; its posts go out through the `SessionClient` (its own thread), its
/// blocks stop playback with `session_blocked` after a `blocked` event. One timer, armed for
/// the machine's next due time, is all it costs the GLib thread between heartbeats.
///
/// GLib thread only.
@GLibActor
public final class SessionControlFeature: PlayerFeature {
    public struct Configuration: Sendable {
        public var url: String
        public var machine: SessionMachine.Configuration
        public var deviceId: String
        public init(url: String, interval: Double, grace: Double, deviceId: String) {
            self.url = url
            machine = SessionMachine.Configuration(interval: interval, grace: grace)
            self.deviceId = deviceId
        }
        public static let intervalRange: ClosedRange<Double> = 1...86_400
        public static let graceRange: ClosedRange<Double> = 0...86_400
    }

    private let deviceId: String
    private var machine: SessionMachine
    private let client: SessionClient
    private let log = Logger(category: "session")
    private weak var player: Player?
    private var wakeTimer: OneShotTimer?
    private let epoch = ContinuousClock.now

    public init(configuration: Configuration) {
        deviceId = configuration.deviceId
        machine = SessionMachine(configuration: configuration.machine)
        client = SessionClient(url: configuration.url, userAgent: "marquee/\(MarqueeVersion.current)")
    }

    public func attached(to player: Player) {
        self.player = player
    }

    public func playerNoticed(_ notice: PlayerNotice) {
        switch notice {
        case .loaded(let progress):
            let viewing = SessionMachine.Viewing(sessionId: UUID().uuidString.lowercased(),
                                                 contentId: progress.source.contentId, userId: progress.source.userId)
            handle(.loaded(viewing))
            // A gapless item takes over while playing, with no state notice.
            if progress.state == .playing { handle(.playing) }
        case .stateChanged(let change, _) where change.state == .playing:
            handle(.playing)
        case .closing:
            handle(.closing)
        default:
            break
        }
    }

    private var now: Double {
        let elapsed = epoch.duration(to: .now).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }

    private func handle(_ input: SessionMachine.Input) {
        let actions = machine.handle(input, now: now)
        armTimer()
        for action in actions { run(action) }
    }

    private func run(_ action: SessionMachine.Action) {
        switch action {
        case .post(let event, let viewing):
            let body = JSONCoding.encode(SessionPost(event, viewing, deviceId: deviceId))
            log.debug("heartbeat", ["event": event.rawValue, "session": viewing.sessionId])
            let sessionId = viewing.sessionId
            guard event != .stop else {
                client.post(event.rawValue, body: body, verdict: nil)  // best effort: never awaited
                return
            }
            client.post(event.rawValue, body: body) { [weak self] verdict in
                self?.handle(.verdict(verdict, sessionId: sessionId))
            }
        case .block(let code, let message):
            log.warning("playback blocked by the session server", ["code": code ?? "-", "message": message ?? "-"])
            guard let player else { return }
            player.publishFeatureEvent(.blocked(BlockedUpdate(code: code, message: message)))
            player.stopPlayback(failing: APIError(.sessionBlocked, message ?? "the session server refused this viewing"))
        }
    }

    /// One timer for the machine's next due time (an `alive`, the end of the grace).
    private func armTimer() {
        wakeTimer?.cancel()
        wakeTimer = nil
        guard let wakeAt = machine.wakeAt else { return }
        let milliseconds = UInt32(max(0, min(86_400_000, (wakeAt - now) * 1000)).rounded(.up))
        wakeTimer = OneShotTimer(milliseconds: milliseconds) { [weak self] in
            self?.wakeTimer = nil
            self?.handle(.tick)
        }
    }
}
