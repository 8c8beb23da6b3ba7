import Subtitles

/// The cues of one subtitle track, indexed for "what shows at time t" and "when does that
/// change next", so the player wakes only at cue boundaries instead of polling.
struct SubtitleSchedule: Sendable {
    let cues: [Subtitles.Cue]
    /// The latest end among cues[0...i]: lets a lookup stop scanning back early.
    private let endsSoFar: [Double]
    /// Every start and end, sorted.
    private let boundaries: [Double]

    init(cues: [Subtitles.Cue]) {
        let sorted = cues.filter { $0.end > $0.start }.sorted { ($0.start, $0.end) < ($1.start, $1.end) }
        self.cues = sorted
        var latest = -Double.infinity
        endsSoFar = sorted.map { latest = max(latest, $0.end); return latest }
        boundaries = (sorted.map(\.start) + sorted.map(\.end)).sorted()
    }

    /// Cues shown at `time` (start <= time < end), in start order.
    func active(at time: Double) -> [Subtitles.Cue] {
        var index = firstIndex(in: cues.map(\.start), greaterThan: time) - 1
        var found: [Subtitles.Cue] = []
        while index >= 0, endsSoFar[index] > time {
            if cues[index].end > time { found.append(cues[index]) }
            index -= 1
        }
        return found.reversed()
    }

    /// The first time after `time` at which the shown cues change.
    func nextChange(after time: Double) -> Double? {
        let index = firstIndex(in: boundaries, greaterThan: time)
        return index < boundaries.count ? boundaries[index] : nil
    }

    /// What the screen shows at `time`, as one cue: overlapping cues are stacked in start
    /// order, spanning from the latest start to the earliest end (when the stack changes).
    func shown(at time: Double) -> Shown? {
        let active = active(at: time)
        guard let first = active.first else { return nil }
        return Shown(plainText: active.map(\.plainText).joined(separator: "\n"),
                     markup: active.map(\.basicMarkup).joined(separator: "\n"),
                     start: active.map(\.start).max() ?? first.start,
                     end: active.map(\.end).min() ?? first.end)
    }

    struct Shown: Equatable {
        var plainText: String
        var markup: String
        var start: Double
        var end: Double
    }

    private func firstIndex(in sorted: [Double], greaterThan value: Double) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] <= value { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
