import ControlAPI

// `PlayerSettings`, what the user asked for that outlives a source, is declared with the
// other settings' wire forms in ControlAPI (Settings.swift).

/// Counters for /metrics.
public struct PlayerStats: Sendable, Equatable {
    public var opens = 0
    public var pipelineErrors = 0
    public var seeks = 0
}
