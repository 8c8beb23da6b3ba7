/// How long a download waits before it asks again after a fault: doubling from `initial`
/// up to `maximum`, each delay moved by up to ±`jitter` of itself so that downloads that
/// failed together (the network went away) do not all come back in the same instant.
public struct DownloadBackoff: Sendable, Equatable {
    public var initial: Duration
    public var maximum: Duration
    /// A fraction, 0 (none) to 1.
    public var jitter: Double

    public init(initial: Duration = .milliseconds(500), maximum: Duration = .seconds(30), jitter: Double = 0.2) {
        self.initial = initial
        self.maximum = maximum
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The delay before retry number `failures` (1 after the first fault in a row), at most
    /// `maximum`. `random` is in 0..<1 (a parameter for the tests).
    public func delay(afterFailures failures: Int, random: Double = Double.random(in: 0..<1)) -> Duration {
        let doublings = min(max(failures - 1, 0), 32)
        let base = min(initial.seconds * Double(1 << doublings), maximum.seconds)
        let jittered = base * (1 + jitter * (2 * random - 1))
        return .nanoseconds(Int64((min(jittered, maximum.seconds) * 1e9).rounded()))
    }
}
