import ControlAPI

/// The player's decisions, without GStreamer: it takes inputs (commands and what the
/// pipeline reported) and returns the actions to carry out. The public state is derived
/// in one place, `derivedState`, from these facts.
///
/// Rules it encodes:
/// - A seek before the pipeline prerolled is queued until ASYNC_DONE; at most one seek is in
///   flight and later requests replace the queued one (a dragged slider sends many).
/// - Buffering below 100% pauses a non-live pipeline the user wants playing, and resumes it
///   at 100%. Live sources never pause on buffering (they report NO_PREROLL).
/// - While a seek is in flight the pipeline flickers through PAUSED; the public state holds.
public struct PlaybackMachine: Sendable {
    public enum Target: Sendable, Equatable { case paused, playing }
    public enum PipelineState: Sendable, Equatable, Comparable { case null, ready, paused, playing }

    public struct Seek: Sendable, Equatable {
        public var position: Double
        public var exact: Bool
        public init(position: Double, exact: Bool) {
            self.position = position
            self.exact = exact
        }
    }

    public enum Input: Sendable, Equatable {
        /// `mayBeLive` is false for local files, which cannot be live.
        case open(autoplay: Bool, start: Double?, mayBeLive: Bool = true)
        case play
        case pause
        case stop
        case seek(Seek)
        case rateChanged(rate: Double, position: Double?)
        case pipelineState(PipelineState)
        /// A live source: the change to PAUSED returned NO_PREROLL.
        case liveSource
        case asyncDone
        case buffering(percent: Int)
        case endOfStream
        case failed(APIError)
        /// The network source stopped delivering: the pipeline is released until `retry`,
        /// which resumes at `resumeAt` (nil: the live edge).
        case lostSource(resumeAt: Double?)
        /// Build the pipeline again after `lostSource`.
        case retry
    }

    public enum Action: Sendable, Equatable {
        case setPipelineState(PipelineState)
        case seek(position: Double, exact: Bool, rate: Double)
        /// Tear the pipeline down (after an error: free decoders and sockets now).
        case releasePipeline
        case emitState(PlaybackState, previous: PlaybackState)
    }

    // What is loaded and where it should go.
    public private(set) var hasSource = false
    public private(set) var target: Target = .paused
    public private(set) var isLive = false
    public private(set) var rate: Double = 1
    public var repeatOne = false

    // What the pipeline reported.
    public private(set) var prerolled = false
    public private(set) var pipelineState: PipelineState = .null
    public private(set) var bufferingPercent = 100
    public private(set) var ended = false
    public private(set) var error: APIError?
    /// Between `lostSource` and the pipeline prerolling again.
    public private(set) var reconnecting = false

    // Seeks.
    public private(set) var seekInFlight: Seek?
    public private(set) var queuedSeek: Seek?

    public private(set) var state: PlaybackState = .idle

    public init() {}

    /// The position a relative seek should count from while seeks are pending, so that
    /// three quick "+10 s" presses add up to 30 s.
    public var pendingSeekTarget: Double? { queuedSeek?.position ?? seekInFlight?.position }

    public mutating func handle(_ input: Input) -> [Action] {
        var actions: [Action] = []
        switch input {
        case .open(let autoplay, let start, let mayBeLive):
            self = PlaybackMachine.fresh(keeping: self)
            hasSource = true
            target = autoplay ? .playing : .paused
            // A start position, and a rate kept from the last source, both need a seek at preroll.
            if (start ?? 0) > 0 || rate != 1 { queuedSeek = Seek(position: start ?? 0, exact: false) }
            // A source that may be live goes to PAUSED first: NO_PREROLL from that change is
            // the only reliable sign of a live source (a pipeline set straight to PLAYING
            // answers ASYNC either way, and sinks that sync report "live" to the latency
            // query). A local file that should just play goes straight to PLAYING, which
            // saves the PAUSED-to-PLAYING round trip on the first frame.
            let straightToPlaying = autoplay && queuedSeek == nil && !mayBeLive
            actions.append(.setPipelineState(straightToPlaying ? .playing : .paused))
        case .play:
            target = .playing
            if ended {
                ended = false
                actions += requestSeek(Seek(position: 0, exact: false))
            }
            if prerolled && !holdsForBuffering { actions.append(.setPipelineState(.playing)) }
        case .pause:
            target = .paused
            // Also before preroll: a local file may already be on its way to PLAYING. Not
            // while reconnecting: the pipeline stays down until the retry.
            if !reconnecting { actions.append(.setPipelineState(.paused)) }
        case .stop:
            self = PlaybackMachine.fresh(keeping: self)
        case .seek(let seek):
            ended = false
            actions += requestSeek(seek)
        case .rateChanged(let newRate, let position):
            rate = newRate
            // A new rate takes effect through a flushing seek at the current position; before
            // preroll, through the seek queued for then (one is queued if none was).
            if !isLive {
                if prerolled, let position {
                    actions += requestSeek(Seek(position: position, exact: true))
                } else if !prerolled && hasSource && queuedSeek == nil {
                    queuedSeek = Seek(position: 0, exact: false)
                }
            }
        case .pipelineState(let s):
            pipelineState = s
        case .liveSource:
            isLive = true
            prerolled = true
            reconnecting = false
            queuedSeek = nil  // a live source cannot seek
            if target == .playing { actions.append(.setPipelineState(.playing)) }
        case .asyncDone:
            if reconnecting && pipelineState == .null { break }  // a late message of the released pipeline
            prerolled = true
            reconnecting = false
            seekInFlight = nil
            if let next = queuedSeek {
                queuedSeek = nil
                seekInFlight = next
                actions.append(.seek(position: next.position, exact: next.exact, rate: rate))
            } else if target == .playing && !holdsForBuffering && pipelineState != .playing {
                actions.append(.setPipelineState(.playing))
            }
        case .buffering(let percent):
            let wasHolding = holdsForBuffering
            bufferingPercent = max(0, min(100, percent))
            if !isLive && target == .playing && !reconnecting {
                if holdsForBuffering && !wasHolding { actions.append(.setPipelineState(.paused)) }
                if !holdsForBuffering && wasHolding { actions.append(.setPipelineState(.playing)) }
            }
        case .endOfStream:
            if repeatOne {
                actions += requestSeek(Seek(position: 0, exact: false))
            } else {
                ended = true
            }
        case .failed(let e):
            error = e
            reconnecting = false
            seekInFlight = nil
            queuedSeek = nil
            actions.append(.releasePipeline)
        case .lostSource(let resumeAt):
            guard hasSource, error == nil else { break }
            reconnecting = true
            prerolled = false
            seekInFlight = nil
            ended = false
            bufferingPercent = 100
            queuedSeek = resumeAt.map { Seek(position: $0, exact: false) }
            pipelineState = .null  // no state message comes from a pipeline set to NULL
            actions.append(.setPipelineState(.null))
        case .retry:
            guard reconnecting else { break }
            // PAUSED first, as on open: a live source answers NO_PREROLL, VOD prerolls and
            // then takes the queued seek back to where it was.
            actions.append(.setPipelineState(.paused))
        }
        let previous = state
        state = derivedState(previous: previous)
        if state != previous { actions.append(.emitState(state, previous: previous)) }
        return actions
    }

    private var holdsForBuffering: Bool { !isLive && bufferingPercent < 100 }

    private mutating func requestSeek(_ seek: Seek) -> [Action] {
        guard prerolled, seekInFlight == nil else {
            queuedSeek = seek
            return []
        }
        seekInFlight = seek
        return [.seek(position: seek.position, exact: seek.exact, rate: rate)]
    }

    /// The one place the public state comes from. Once prerolled it follows what the user
    /// asked for (`target`), not the pipeline on its way there: a reply to `pause` says
    /// `paused`, and a seek or rate change (which flickers the pipeline through PAUSED)
    /// changes nothing. A source that has not played yet stays `opening` until it does.
    private func derivedState(previous: PlaybackState) -> PlaybackState {
        if !hasSource { return .idle }
        if error != nil { return .error }
        if reconnecting { return target == .playing ? .buffering : .paused }
        if ended { return .ended }
        if !prerolled { return .opening }
        if target == .playing && holdsForBuffering { return .buffering }
        if target == .paused { return .paused }
        if pipelineState == .playing { return .playing }
        // On its way to PLAYING. After a command (play from paused or ended, a seek or rate
        // change while playing) the reply shows where it goes: the pipeline follows within
        // milliseconds. What the pipeline does by itself (the first PLAYING of a source, the
        // end of buffering or of a reconnect) is reported when it is reached.
        switch previous {
        case .playing, .paused, .ended: return .playing
        case .buffering: return .buffering
        case .idle, .opening, .error: return .opening
        }
    }

    /// A reset that keeps the settings that outlive a source (rate, repeat) and the last
    /// public state, so the next transition is reported against it.
    private static func fresh(keeping old: PlaybackMachine) -> PlaybackMachine {
        var m = PlaybackMachine()
        m.rate = old.rate
        m.repeatOne = old.repeatOne
        m.state = old.state
        return m
    }
}
