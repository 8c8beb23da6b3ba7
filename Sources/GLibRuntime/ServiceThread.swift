import CGStreamer
import Dispatch
import Synchronization

/// A thread running a GLib main context of its own, for the servers GStreamer itself talks
/// to (the timeshift ring server, the header proxy) and the HTTP clients they use.
///
/// Why they cannot run on the daemon's GLib thread: hlsdemux2 (1.22) fetches playlists and
/// segments synchronously from its own threads, also while the GLib thread is blocked in a
/// call into that very pipeline (a state change, `select-streams`, a seek). A server on the
/// GLib thread can then never answer, and the call waits for hlsdemux2's download timeout:
/// the API froze for 20 s after an audio rendition switch through the header proxy, and a
/// stop hung in about one in eight seeks while the ring server still shared the thread.
///
/// libsoup objects are bound to the thread-default context they were made on: make them in
/// `perform`, and touch them only from there. The thread and its loop run until `finish()`
/// (servers and the player's worker: as long as the process), the context as long as this
/// object.
public final class ServiceThread: Sendable {
    /// The thread's GMainContext (released with this object).
    public nonisolated(unsafe) let context: OpaquePointer
    private nonisolated(unsafe) let loop: OpaquePointer
    private let finished = Atomic<Bool>(false)
    public let name: String

    /// Starts the thread; jobs given to `perform` run once its loop runs.
    public init(name: String) {
        self.name = name
        let context = g_main_context_new()!
        self.context = context
        loop = g_main_loop_new(context, 0)
        // The thread's own references: it may outlive this object by the jobs it has left.
        let box = ContextBox(context: g_main_context_ref(context), loop: g_main_loop_ref(loop))
        DetachedThread.start(name: name) {
            g_main_context_push_thread_default(box.context)
            g_main_loop_run(box.loop)  // until finish()
            g_main_context_pop_thread_default(box.context)
            box.release()
        }
    }

    deinit {
        g_main_loop_unref(loop)
        g_main_context_unref(context)  // jobs never run are released with the context's sources
    }

    /// Ends the thread once the jobs given before this call have run; jobs given after it
    /// never run. For threads that belong to one object's lifetime (a timeshift buffer's
    /// worker), so that they do not pile up over the life of the daemon.
    public func finish() {
        guard !finished.exchange(true, ordering: .sequentiallyConsistent) else { return }
        let box = LoopBox(loop)
        perform { g_main_loop_quit(box.loop) }
    }

    /// Runs `work` on the thread, in the order of the calls. Safe from any thread.
    public func perform(_ work: @escaping @Sendable () -> Void) {
        let job = WorkBox(work)
        job.publish()
        let box = Unmanaged.passRetained(job).toOpaque()
        // One idle source per job: `g_main_context_invoke` would run it inline when the
        // caller is already on this thread, out of order with the jobs queued before it.
        let source = g_idle_source_new()!
        g_source_set_priority(source, G_PRIORITY_DEFAULT)
        g_source_set_callback(source, { data in
            Unmanaged<WorkBox>.fromOpaque(data!).takeUnretainedValue().run()
            return 0  // G_SOURCE_REMOVE
        }, box, { Unmanaged<WorkBox>.fromOpaque($0!).release() })
        g_source_attach(source, context)
        g_source_unref(source)
    }

    /// Waits until every job given so far has run. Exit only (a pipeline worker draining):
    /// never on the GLib thread while it serves, never from the thread itself.
    public func waitUntilIdle() {
        precondition(!isCurrent, "waitUntilIdle on the service thread itself would wait for ever")
        precondition(!finished.load(ordering: .sequentiallyConsistent), "waitUntilIdle after finish() would wait for ever")
        let done = DispatchSemaphore(value: 0)
        perform { done.signal() }
        done.wait()
    }

    /// Runs `work` on the thread after `milliseconds`. Returns the source, which the caller
    /// may destroy (on this thread) to cancel it; it holds its own reference until then.
    @discardableResult
    public func after(milliseconds: UInt32, _ work: @escaping @Sendable () -> Void) -> UnsafeMutablePointer<GSource> {
        let timer = g_timeout_source_new(milliseconds)!
        let job = WorkBox(work)
        job.publish()
        let box = Unmanaged.passRetained(job).toOpaque()
        g_source_set_callback(timer, { data in
            Unmanaged<WorkBox>.fromOpaque(data!).takeUnretainedValue().run()
            return 0
        }, box, { Unmanaged<WorkBox>.fromOpaque($0!).release() })
        g_source_attach(timer, context)
        return timer
    }

    /// True on the service thread itself.
    public var isCurrent: Bool { g_main_context_is_owner(context) != 0 }
}

/// The thread's own references to its context and loop, dropped when it ends.
private final class ContextBox: @unchecked Sendable {
    let context: OpaquePointer
    let loop: OpaquePointer
    init(context: OpaquePointer, loop: OpaquePointer) {
        self.context = context
        self.loop = loop
    }
    func release() {
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }
}

/// A loop pointer carried into a job (GLib's loop calls are thread-safe).
private final class LoopBox: @unchecked Sendable {
    let loop: OpaquePointer
    init(_ loop: OpaquePointer) { self.loop = loop }
}

/// Carries one job to the service thread. GLib's lock on the context already orders the two
/// sides, but its futex-based mutexes are invisible to ThreadSanitizer, which then reports the
/// box as a race; the release/acquire pair states the same ordering where TSan sees it (as
/// `GLibExecutor`'s `JobBox` does).
private final class WorkBox: Sendable {
    private let work: @Sendable () -> Void
    private let published = Atomic<Bool>(false)
    init(_ work: @escaping @Sendable () -> Void) { self.work = work }

    func publish() { published.store(true, ordering: .releasing) }

    func run() {
        let wasPublished = published.load(ordering: .acquiring)
        assert(wasPublished, "job box reached the service thread before it was published")
        work()
    }
}
