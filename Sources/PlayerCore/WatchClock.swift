/// Seconds spent playing, for `watched`: wall-clock time in the `playing` state (not media
/// time: at 2x, a minute watched is a minute). Started and stopped by state changes.
struct WatchClock {
    private var since: ContinuousClock.Instant?
    private(set) var banked: Double = 0

    init(alreadyWatched: Double = 0) { banked = alreadyWatched }

    mutating func playing(_ isPlaying: Bool, now: ContinuousClock.Instant = .now) {
        if isPlaying, since == nil {
            since = now
        } else if !isPlaying, let start = since {
            banked += Self.seconds(start.duration(to: now))
            since = nil
        }
    }

    func total(now: ContinuousClock.Instant = .now) -> Double {
        banked + (since.map { Self.seconds($0.duration(to: now)) } ?? 0)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
