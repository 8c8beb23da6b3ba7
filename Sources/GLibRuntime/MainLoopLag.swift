import CGStreamer

/// Measures how late the GLib main loop runs what is due: a timer that should fire every
/// `interval` notes how much later it fired. The loop thread answers HTTP and WebSocket, so
/// this is the delay a request met on top of its own work (the thread rule: nothing there
/// may wait on GStreamer, the network or the disk). A stall shows once it has ended, when
/// the timer finally runs; the maximum keeps the worst one for the next scrape.
/// GLib thread only.
@GLibActor
public final class MainLoopLag {
    /// Upper bounds of the histogram's buckets, in seconds (Prometheus `le`).
    public static let bucketBounds: [Double] = [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 20]

    public private(set) var last = 0.0
    public private(set) var max = 0.0
    /// Observations per bucket (not cumulative), one more for above the last bound.
    public private(set) var counts: [Int]
    public private(set) var sum = 0.0
    public private(set) var count = 0

    private let intervalMicroseconds: Int
    private var previousTick: Int
    private var timer: LoopTimer?

    /// 100 ms: ten wake-ups a second of a few microseconds each.
    public init(intervalMilliseconds: UInt32 = 100) {
        intervalMicroseconds = Int(intervalMilliseconds) * 1000
        counts = Array(repeating: 0, count: Self.bucketBounds.count + 1)
        previousTick = g_get_monotonic_time()
        timer = LoopTimer(milliseconds: intervalMilliseconds) { [weak self] in self?.tick() }
    }

    public func stop() {
        timer?.cancel()
        timer = nil
    }

    private func tick() {
        let now = g_get_monotonic_time()
        // GLib schedules the next firing from this one, so the lateness of each firing is
        // the gap to the previous one less the interval.
        let lateness = Swift.max(0, Double(now - previousTick - intervalMicroseconds) / 1e6)
        previousTick = now
        record(lateness)
    }

    /// One observation (seconds); public for tests.
    public func record(_ lateness: Double) {
        last = lateness
        max = Swift.max(max, lateness)
        sum += lateness
        count += 1
        let bucket = Self.bucketBounds.firstIndex { lateness <= $0 } ?? Self.bucketBounds.count
        counts[bucket] += 1
    }
}
