import Synchronization

/// `--download-rate`: one token bucket for every download of the process, whatever thread
/// each runs on. A download charges the bytes it read (`consume`), and before its next read
/// asks how long to wait (`delayBeforeRead`); it waits with a timer on its own thread, never
/// by sleeping it.
///
/// The bucket may go into debt (a read is charged after it arrived, so its size is known):
/// every download then waits until the debt is paid, which keeps the average at the rate
/// however many downloads share it. The bucket holds at most a tenth of a second of bytes
/// (16 KiB at least): an idle spell buys no real burst, and the rate holds from the start.
public final class DownloadRateLimiter: Sendable {
    private struct Bucket {
        var bytesPerSecond: Int64?
        var tokens: Double
        var refilledAt: ContinuousClock.Instant
    }

    private let bucket: Mutex<Bucket>

    /// nil or a rate below 1: unlimited.
    public init(bytesPerSecond: Int64?) {
        let rate = bytesPerSecond.flatMap { $0 > 0 ? $0 : nil }
        bucket = Mutex(Bucket(bytesPerSecond: rate, tokens: rate.map { Self.capacity($0) } ?? 0,
                              refilledAt: .now))
    }

    /// The rate in bytes per second; nil when unlimited. Setting it takes effect at once.
    public var bytesPerSecond: Int64? {
        get { bucket.withLock { $0.bytesPerSecond } }
        set {
            let rate = newValue.flatMap { $0 > 0 ? $0 : nil }
            bucket.withLock { bucket in
                Self.refill(&bucket, now: .now)
                bucket.bytesPerSecond = rate
                // A debt carries over; a full bucket shrinks to the new rate's size.
                bucket.tokens = rate.map { min(bucket.tokens, Self.capacity($0)) } ?? 0
            }
        }
    }

    /// How many bytes to ask for in one read: small reads at small rates, so that the waits
    /// between them stay short and even (an eighth of a second of bytes, 4 KiB at least).
    public func readSize(upTo limit: Int) -> Int {
        guard let rate = bytesPerSecond else { return limit }
        return min(limit, max(4096, Int(rate / 8)))
    }

    /// Charges `bytes` that a download just read.
    public func consume(_ bytes: Int) {
        bucket.withLock { bucket in
            guard bucket.bytesPerSecond != nil else { return }
            Self.refill(&bucket, now: .now)
            bucket.tokens -= Double(bytes)
        }
    }

    /// Zero while the bucket is not in debt; otherwise how long until it is paid.
    public func delayBeforeRead() -> Duration {
        bucket.withLock { bucket in
            guard let rate = bucket.bytesPerSecond else { return .zero }
            Self.refill(&bucket, now: .now)
            guard bucket.tokens < 0 else { return .zero }
            return .nanoseconds(Int64((-bucket.tokens / Double(rate) * 1e9).rounded(.up)))
        }
    }

    private static func capacity(_ rate: Int64) -> Double { Double(max(rate / 10, 16 << 10)) }

    private static func refill(_ bucket: inout Bucket, now: ContinuousClock.Instant) {
        guard let rate = bucket.bytesPerSecond else { return }
        let elapsed = (now - bucket.refilledAt).seconds
        bucket.refilledAt = now
        bucket.tokens = min(capacity(rate), bucket.tokens + elapsed * Double(rate))
    }
}
