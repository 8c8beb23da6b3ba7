import ControlAPI
import FoundationEssentials
import GLibRuntime
import Timeshift

/// A timeshifted session's recorder and ring (`TimeshiftBuffer`), and its glue to the
/// player: a new segment may move the playhead (`onRecorded`), and the recorder's own
/// reconnects are published as `reconnecting` and `recovered`. Made before the session (the
/// open plays the ring), handed to it, and silenced by `close()` (the session's); the ring
/// itself is closed once the session's pipeline is in NULL (`closeRing()`). GLib thread.
@GLibActor
final class TimeshiftController {
    private(set) var buffer: TimeshiftBuffer!
    /// Since when the recorder has been reconnecting, and its latest attempt.
    private var recorderLost: (since: ContinuousClock.Instant, attempts: Int)?
    private let publish: @GLibActor (PlayerEvent) -> Void
    private let onRecorded: @GLibActor () -> Void
    private var closed = false

    /// `publish` and `onRecorded` are never called after `close()`.
    init(source: RecordingSource, window: Double, folder: URL,
         publish: @escaping @GLibActor (PlayerEvent) -> Void, onRecorded: @escaping @GLibActor () -> Void) {
        self.publish = publish
        self.onRecorded = onRecorded
        buffer = TimeshiftBuffer(source: source, window: window, folder: folder) { [weak self] event in
            self?.recorderEvent(event)
        }
    }

    private func recorderEvent(_ event: TimeshiftBuffer.Event) {
        guard !closed else { return }
        switch event {
        case .recorded:
            onRecorded()
            if let lost = recorderLost {
                // The first segment after a reconnect: the live source is back.
                recorderLost = nil
                let downtime = Double((ContinuousClock.now - lost.since).components.seconds)
                publish(.recovered(RecoveredUpdate(attempts: lost.attempts, downtime: downtime)))
            }
        case .reconnecting(let attempt, let delay, let reason):
            recorderLost = (recorderLost?.since ?? .now, attempt)
            publish(.reconnecting(ReconnectingUpdate(attempt: attempt, delay: delay, reason: reason)))
        }
    }

    /// No more events reach the player.
    func close() {
        closed = true
    }

    /// Stops recording and deletes the ring (after the player's pipeline is in NULL).
    func closeRing(waiting: Bool = false) {
        closed = true
        buffer.close(waiting: waiting)
    }
}
