import ControlAPI

/// What the user asked for that outlives a source: applied to every new pipeline.
public struct PlayerSettings: Sendable, Equatable {
    public var rate: Double = 1
    public var volume: Double = 1
    public var muted = false
    public var audioDelay: Double = 0
    public var `repeat`: RepeatMode = .none
    public var subtitleStyle = SubtitleStyle()

    public init() {}

    mutating func merge(_ patch: SettingsPatch) {
        rate = patch.rate ?? rate
        volume = patch.volume ?? volume
        muted = patch.muted ?? muted
        audioDelay = patch.audioDelay ?? audioDelay
        self.repeat = patch.repeat ?? self.repeat
        if let style = patch.subtitleStyle { subtitleStyle.merge(style) }
    }

    func update(abLoop: ABLoop?) -> SettingsUpdate {
        SettingsUpdate(rate: rate, volume: volume, muted: muted, audioDelay: audioDelay, repeat: self.repeat,
                       subtitleStyle: subtitleStyle, abLoop: abLoop)
    }
}

/// Counters for /metrics.
public struct PlayerStats: Sendable, Equatable {
    public var opens = 0
    public var pipelineErrors = 0
    public var seeks = 0
}
