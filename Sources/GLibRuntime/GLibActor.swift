import CGStreamer

/// The global actor for everything that touches GLib, GStreamer and libsoup objects.
/// Its executor is the default GLib main context, so C callbacks (bus watches, libsoup
/// handlers, timeouts) arrive already on the actor's thread and enter it with
/// `GLibActor.assumeIsolated`.
@globalActor
public actor GLibActor {
    public static let shared = GLibActor()

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        GLibExecutor.shared.asUnownedSerialExecutor()
    }

    /// Runs `operation` as GLib-isolated code from a C callback; traps off the loop thread.
    public static func assumeIsolated<T>(_ operation: @GLibActor () throws -> T) rethrows -> T {
        GLibExecutor.shared.checkIsolated()
        return try withoutActuallyEscaping(operation) { isolated in
            // Safe: checked above that we are on the thread the actor's executor runs on.
            try unsafeBitCast(isolated, to: (() throws -> T).self)()
        }
    }
}
