import CGStreamer

/// Starts threads with GLib, in place of Foundation's `Thread`: the daemon links only
/// FoundationEssentials, which has none.
public enum DetachedThread {
    /// Runs `body` on a new thread called `name` (Linux keeps its first 15 bytes). Like a
    /// started `Thread`, nothing joins it: it ends when `body` returns.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        let thread = g_thread_new(name, { data in
            guard let data else { return nil }
            Unmanaged<Body>.fromOpaque(data).takeRetainedValue().run()
            return nil
        }, box)
        g_thread_unref(thread)  // detach: the thread keeps its own reference while it runs
    }

    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
