import CGStreamer
import Dispatch

/// The process's GLib main loop over the default context.
public enum MainLoop {
    nonisolated(unsafe) private static var loop: OpaquePointer?
    private static let startLock = ThreadLock()
    nonisolated(unsafe) private static var helperStarted = false

    /// Runs the default main context on the calling thread until `quit()`. The daemon calls
    /// this from `main`, synchronously (an `await` there would hand the main thread to Dispatch).
    public static func run() {
        let l = g_main_loop_new(nil, 0)
        loop = l
        g_main_loop_run(l)
        g_main_loop_unref(l)
        loop = nil
    }

    /// Stops `run()`. Safe from any thread.
    public static func quit() {
        if let loop { g_main_loop_quit(loop) }
    }

    /// For tests and tools without their own loop: runs the default context on a helper
    /// thread, once per process. Must be called before the first hop onto `GLibActor`,
    /// or that hop waits forever.
    public static func startOnHelperThreadOnce() {
        startLock.lock()
        defer { startLock.unlock() }
        guard !helperStarted else { return }
        helperStarted = true
        let ready = DispatchSemaphore(value: 0)
        DetachedThread.start(name: "glib-main") {
            g_main_context_acquire(g_main_context_default())
            ready.signal()
            run()
        }
        ready.wait()
    }
}

extension MainLoop {
    /// Makes the calling thread the owner of the default main context before the loop runs,
    /// so start-up code can enter `GLibActor` with `assumeIsolated`. The daemon's `main` calls
    /// this first; `run()` later re-acquires the same context (ownership is recursive).
    public static func acquireOnCurrentThread() {
        g_main_context_acquire(g_main_context_default())
    }
}
