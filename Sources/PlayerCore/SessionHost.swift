import ControlAPI
import GLibRuntime

/// What a session's controllers may ask of the player, and all they may read of it: the
/// playback machine (a value), feeding it an input, publishing an event, and two named
/// requests. Controllers never reach into `Player` itself; the player is held weakly.
@GLibActor
protocol SessionHost: AnyObject {
    /// The playback machine as it is now (read only: inputs go through `feed`).
    var machine: PlaybackMachine { get }
    /// One input to the machine and its actions; a failure is also counted and published.
    func feed(_ input: PlaybackMachine.Input)
    func publish(_ event: PlayerEvent)
    /// The session's `source.info` changed (found to be HLS, or live): publish it.
    func sourceInfoChanged(in session: PlaybackSession)
    /// Opens `request` again in a new pipeline, the `retries`-th time (the preroll-stall retry).
    func reopen(_ request: OpenRequest, afterStall retries: Int)
    /// A key the key service kept failing to deliver: ridden out like a lost source once the
    /// source played, else `key_error`. False when there was none (Player+Keys.swift).
    func handleKeyServiceOutage(in session: PlaybackSession) -> Bool
}
