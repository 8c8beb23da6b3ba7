import CSoup
import GLibRuntime

/// A one-shot timer on a `ServiceThread`, for the downloader's retries, read delays and stall
/// watchdog. Made, fired and cancelled on that thread only; cancelled when released, so a
/// download that ends (or is dropped) leaves no timer behind to call into it.
final class ThreadTimer {
    private var source: UnsafeMutablePointer<GSource>?

    /// Runs `action` on `thread` after `delay` (rounded up to whole milliseconds), unless
    /// cancelled first.
    init(on thread: ServiceThread, after delay: Duration, _ action: @escaping () -> Void) {
        let job = ThreadConfined(action)
        source = thread.after(milliseconds: delay.wholeMilliseconds) { job.value() }
    }

    deinit { cancel() }

    func cancel() {
        guard let source else { return }
        // Destroying a source that already fired is harmless (unlike g_source_remove).
        g_source_destroy(source)
        g_source_unref(source)
        self.source = nil
    }
}

/// Carries a value that belongs to one thread through an API that asks for `Sendable`: the
/// value is only ever touched on the thread that made it (the `ServiceThread` of the download
/// it serves), which the caller guarantees.
struct ThreadConfined<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

extension Duration {
    /// At least 1 ms for a positive duration, capped at `UInt32.max`: what GLib timers take.
    var wholeMilliseconds: UInt32 {
        let (seconds, attoseconds) = components
        guard seconds >= 0, seconds > 0 || attoseconds > 0 else { return 0 }
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return UInt32(clamping: milliseconds)
    }

    /// The duration in seconds, as a Double (for logs and arithmetic).
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
