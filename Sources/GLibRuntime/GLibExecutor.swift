import CGStreamer
import Synchronization

/// A serial executor that runs each Swift job on the thread iterating the default GLib
/// main context (the process main thread in the daemon, a helper thread in tests).
///
/// Each job becomes one idle source. `g_main_context_invoke` is not used on purpose: it
/// runs the job inline when the caller already owns the context, which breaks the ordering
/// and re-entrancy guarantees an actor promises.
public final class GLibExecutor: SerialExecutor, @unchecked Sendable {
    public static let shared = GLibExecutor()

    private init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        let jobBox = JobBox(UnownedJob(job))
        jobBox.publish()
        let box = Unmanaged.passRetained(jobBox).toOpaque()
        g_idle_add_full(G_PRIORITY_DEFAULT, { data in
            let box = Unmanaged<JobBox>.fromOpaque(data!).takeRetainedValue()
            box.receive()
            box.job.runSynchronously(on: GLibExecutor.shared.asUnownedSerialExecutor())
            return 0  // G_SOURCE_REMOVE
        }, box, nil)
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// True on the thread that currently owns the default main context.
    public var isOnLoopThread: Bool { g_main_context_is_owner(g_main_context_default()) != 0 }

    public func checkIsolated() {
        precondition(isOnLoopThread, "not on the GLib main-context thread")
    }
}

/// Carries one job from the enqueuing thread to the loop thread.
///
/// GLib's own lock on the source list already orders the two sides, but GLib's mutexes
/// are futex-based and invisible to ThreadSanitizer, which then reports the box as a race.
/// The release/acquire pair below states the same ordering in a form TSan can see.
private final class JobBox: Sendable {
    let job: UnownedJob
    private let published = Atomic<Bool>(false)

    init(_ job: UnownedJob) { self.job = job }

    func publish() { published.store(true, ordering: .releasing) }

    func receive() {
        let wasPublished = published.load(ordering: .acquiring)
        assert(wasPublished, "job box reached the loop before it was published")
    }
}
