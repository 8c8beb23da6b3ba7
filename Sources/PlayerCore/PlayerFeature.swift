import ControlAPI
import GLibRuntime

/// Something built on the player from outside the core: content sessions (analytics and
/// resume points) today. As in Clapper's `features/`, a feature only hears what the player
/// does and may adjust what it is asked to open; the core knows nothing of what features
/// store or send, so it depends on no storage or collector.
///
/// GLib thread only. The player keeps a strong reference to each feature (`Player.add`);
/// a feature keeps its player weakly. Every method runs synchronously inside the player's
/// own call, so it must be cheap and must never block the GLib thread.
@GLibActor
public protocol PlayerFeature: AnyObject {
    /// Called once, by `Player.add(_:)`.
    func attached(to player: Player)
    /// Runs in `open` (a client's, a queue item's, the preroll-stall retry's) before anything
    /// changes, and when a queue goes on gaplessly (there only the request's `watched` is
    /// used: the item plays from its start). `current` is what is loaded now, which the
    /// open replaces if it goes ahead (nil when nothing is, and for a gapless switch, whose
    /// previous item was closed first). An open that then fails leaves playback as it was.
    /// A feature may refuse the open by throwing (the offline library: a spent licence);
    /// nothing has changed then.
    func prepareOpen(_ request: inout OpenRequest, replacing current: PlaybackProgress?) throws(APIError)
    /// One thing the player did, in order (see `PlayerNotice`).
    func playerNoticed(_ notice: PlayerNotice)
}

public extension PlayerFeature {
    func attached(to player: Player) {}
    func prepareOpen(_ request: inout OpenRequest, replacing current: PlaybackProgress?) throws(APIError) {}
    func playerNoticed(_ notice: PlayerNotice) {}
}

/// What features hear, on the GLib thread, in the order it happened. Not the public
/// `PlayerEvent` stream (which goes to clients): these carry what features need and
/// clients never see (the sinks' exact position at a closing, whether queries are answered).
public enum PlayerNotice: Sendable, Equatable {
    /// Content was loaded: by an open (the state is then `opening`, after its state notice),
    /// or by a queue's next item taking over gaplessly (the state goes on, usually
    /// `playing`, with no state notice). A feature's per-content bookkeeping starts here.
    case loaded(PlaybackProgress)
    /// The public state changed (just before the `state` event goes out). `progress` is nil
    /// when nothing is loaded (after a stop or an error, the session is already closed).
    case stateChanged(StateChange, PlaybackProgress?)
    /// The pipeline answered its queries (duration, seekable range) after an ASYNC_DONE:
    /// the facts an analytics `begin` reports are known. Sent each time they become known
    /// again (they are asked again at every ASYNC_DONE).
    case queriesAnswered(PlaybackProgress)
    /// The loaded content is going away: a stop, a new open, an error, shutdown, or the
    /// queue going on gaplessly. `progress` is its last; `atEnd` when it had played to its
    /// end (the state was `ended`).
    case closing(PlaybackProgress, atEnd: Bool)
}

/// Where the loaded content stands, as features see it: read at a notice, or any time
/// through `Player.progress`. A value: it does not follow the player afterwards.
public struct PlaybackProgress: Sendable, Equatable {
    /// What plays: uri, kind, and the content fields the open gave (contentId, userId,
    /// originalUrl). Its `watched` is not filled in; see `watched`.
    public var source: SourceInfo
    public var state: PlaybackState
    /// The position in the pipeline's timeline (seconds), as the API shows it: a pending
    /// seek's target, else the sinks', else the last they answered; nil when none is known
    /// yet (nothing prerolled).
    public var position: Double?
    /// How far the timeline the API shows is ahead of the pipeline's (timeshift; else 0).
    public var timelineOffset: Double
    public var duration: Double?
    /// Seconds of this content watched: what the open said, plus the time spent playing.
    public var watched: Double
    public var rate: Double
    /// False between an ASYNC_DONE and the answers to the queries it asked.
    public var queriesAnswered: Bool

    /// `position` in the timeline the API shows.
    public var timelinePosition: Double? { position.map { $0 + timelineOffset } }

    public init(source: SourceInfo, state: PlaybackState, position: Double?, timelineOffset: Double = 0, duration: Double?,
                watched: Double, rate: Double, queriesAnswered: Bool) {
        self.source = source
        self.state = state
        self.position = position
        self.timelineOffset = timelineOffset
        self.duration = duration
        self.watched = watched
        self.rate = rate
        self.queriesAnswered = queriesAnswered
    }
}
