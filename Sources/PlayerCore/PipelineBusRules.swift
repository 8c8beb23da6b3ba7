import GStreamerKit

/// What a playbin3's bus events mean to a `PlaybackMachine`, and the upkeep GStreamer asks
/// of every application, declared once for the main session (`Player.handle`) and the PiP
/// inset (`PictureInPicture`). Before, the inset had a hand-written copy of these rules that
/// had already drifted: it paused a live source on buffering, which the machine never does.
enum PipelineBusRules {
    /// The machine input an event is, for the events the machine decides on; nil for the rest.
    static func machineInput(for event: BusEvent) -> PlaybackMachine.Input? {
        switch event {
        case .stateChanged(_, let new, _): .pipelineState(PlaybackMachine.PipelineState(new))
        case .asyncDone: .asyncDone
        case .buffering(let percent): .buffering(percent: percent)
        case .endOfStream: .endOfStream
        // NO_PREROLL from a change to PAUSED or up: the only reliable sign of a live source.
        case .workDone(.stateChange(let state, .noPreroll)) where state >= .paused: .liveSource
        default: nil
        }
    }

    /// The upkeep: a new clock after CLOCK_LOST (PAUSED then PLAYING picks one) while the
    /// user wants it playing, and latency redistributed after a LATENCY message. Returns
    /// whether `event` was one of these.
    static func keepUp(after event: BusEvent, control: PipelineControl, playing: Bool) -> Bool {
        switch event {
        case .clockLost:
            if playing {
                control.setState(.paused)
                control.setState(.playing)
            }
            return true
        case .latency:
            control.recalculateLatency()
            return true
        default:
            return false
        }
    }
}

extension ElementState {
    /// The state the machine asks a pipeline for.
    init(_ state: PlaybackMachine.PipelineState) {
        switch state {
        case .null: self = .null
        case .ready: self = .ready
        case .paused: self = .paused
        case .playing: self = .playing
        }
    }
}

extension PlaybackMachine.PipelineState {
    /// The state a pipeline reported.
    init(_ state: ElementState) {
        switch state {
        case .voidPending, .null: self = .null
        case .ready: self = .ready
        case .paused: self = .paused
        case .playing: self = .playing
        }
    }
}
