import CSoup
import ControlAPI
import FoundationEssentials
import GLibRuntime
import HTTPFetch
import PlayerCore

/// `?wait=STATE&timeout=SECONDS`, validated before the command runs.
struct WaitRequest: Sendable {
    static let defaultTimeout = 10.0
    static let maxTimeout = 600.0

    var state: PlaybackState
    var timeout: Double

    /// nil when no `wait` was given.
    init?(state: String?, timeout: String?) throws(APIError) {
        guard let state else {
            if timeout != nil { throw APIError(.invalidArgument, "'timeout' needs 'wait'") }
            return nil
        }
        guard let wanted = PlaybackState(rawValue: state) else {
            throw APIError(.invalidArgument, "'wait' must be one of \(PlaybackState.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.state = wanted
        if let timeout {
            guard let seconds = Double(timeout), seconds > 0, seconds <= Self.maxTimeout else {
                throw APIError(.invalidArgument, "'timeout' must be seconds between 0 and \(Int(Self.maxTimeout))")
            }
            self.timeout = seconds
        } else {
            self.timeout = Self.defaultTimeout
        }
    }
}

/// One held reply. It watches the player's events; it finishes once, with the snapshot when
/// the state is reached (and no seek is pending), with the player's error when it fails, or
/// with 408 `timeout`. Holds a reference to the paused message until then.
@GLibActor
final class Waiter {
    let id: Int
    private let request: WaitRequest
    private var message: OpaquePointer?
    private let player: Player
    private var subscription: Int?
    private var timeoutSource: UInt32 = 0
    private var finishedHandler: UInt = 0
    /// The client left while we waited: nothing may be written to the message any more.
    private var clientGone = false
    /// libsoup reads nothing from a paused message's connection, so it never notices a
    /// client that hung up; this timer looks at the socket itself.
    private var hangUpCheck: LoopTimer?
    private let completion: (Result<PlayerSnapshot, APIError>) -> Void
    private let onAbandoned: () -> Void

    init(id: Int, request: WaitRequest, message: SoupMessage, player: Player,
         completion: @escaping (Result<PlayerSnapshot, APIError>) -> Void, onAbandoned: @escaping () -> Void) {
        self.id = id
        self.request = request
        self.player = player
        self.completion = completion
        self.onAbandoned = onAbandoned
        g_object_ref(UnsafeMutableRawPointer(message.raw))
        self.message = message.raw
        message.pause()
        finishedHandler = connectFinished(message.raw) { [weak self] in
            guard let self else { return }
            self.clientGone = true
            self.finish(.failure(APIError(.timeout, "the client went away")))
        }
        subscription = player.subscribe { [weak self] _ in self?.check() }
        let fd = message.socketFD
        hangUpCheck = LoopTimer(milliseconds: 500) { [weak self] in
            guard let self, peerHasClosed(fd: fd) else { return }
            self.clientGone = true
            self.finish(.failure(APIError(.timeout, "the client went away")))
        }
        timeoutSource = runAfter(milliseconds: UInt32(request.timeout * 1000)) { [weak self] in
            guard let self else { return }
            self.timeoutSource = 0
            self.finish(.failure(APIError(.timeout, "the player did not reach '\(self.request.state.rawValue)' within \(self.request.timeout) s (it is '\(self.player.state.rawValue)')")))
        }
        // Already there (pause when paused): answer without waiting for an event.
        runAfter(milliseconds: 0) { [weak self] in self?.check() }
    }

    private func check() {
        let state = player.state
        if state == request.state && player.isSettled {
            finish(.success(player.snapshot()))
        } else if state == .error && request.state != .error {
            finish(.failure(player.snapshot().error ?? APIError(.mediaError, "playback failed")))
        }
    }

    func finish(_ outcome: Result<PlayerSnapshot, APIError>) {
        guard let message else { return }
        self.message = nil
        if let subscription { player.unsubscribe(subscription) }
        subscription = nil
        if timeoutSource != 0 { g_source_remove(timeoutSource) }
        timeoutSource = 0
        hangUpCheck?.cancel()
        hangUpCheck = nil
        g_signal_handler_disconnect(UnsafeMutableRawPointer(message), finishedHandler)
        if clientGone {
            // Nothing to answer: the completion is not called, only the waiter goes.
            onAbandoned()
        } else {
            completion(outcome)
            SoupMessage(raw: message).unpause()
        }
        g_object_unref(UnsafeMutableRawPointer(message))
    }
}
