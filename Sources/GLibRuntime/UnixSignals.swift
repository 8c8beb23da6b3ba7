import CGStreamer

/// Delivers SIGINT/SIGTERM as ordinary main-loop callbacks (g_unix_signal_add), so the
/// shutdown code runs on the GLib thread instead of inside an async signal handler.
public enum UnixSignals {
    /// Calls `handler` on the loop thread for each listed signal. The handler stays
    /// registered for the life of the process.
    @GLibActor
    public static func onTerminate(_ handler: @escaping @GLibActor (Int32) -> Void) {
        for signal in [SIGINT, SIGTERM] {
            let box = Unmanaged.passRetained(SignalBox(signal: signal, handler: handler)).toOpaque()
            g_unix_signal_add_full(G_PRIORITY_HIGH, signal, { data in
                let box = Unmanaged<SignalBox>.fromOpaque(data!).takeUnretainedValue()
                GLibActor.assumeIsolated { box.handler(box.signal) }
                return 1  // G_SOURCE_CONTINUE
            }, box, { data in Unmanaged<SignalBox>.fromOpaque(data!).release() })
        }
    }
}

private final class SignalBox {
    let signal: Int32
    let handler: @GLibActor (Int32) -> Void
    init(signal: Int32, handler: @escaping @GLibActor (Int32) -> Void) {
        self.signal = signal
        self.handler = handler
    }
}
