import CSoup
import GLibRuntime

/// Calls `action` when libsoup has finished with `message` (response written, or the client
/// went away). Returns the handler id for `g_signal_handler_disconnect`.
@GLibActor
public func connectFinished(_ message: OpaquePointer, _ action: @escaping @GLibActor () -> Void) -> UInt {
    connectFinished(onServerThread: message) { GLibActor.assumeIsolated { action() } }
}

/// As `connectFinished`, for a server on a `ServiceThread`: `action` runs on that thread.
public func connectFinished(onServerThread message: OpaquePointer, _ action: @escaping () -> Void) -> UInt {
    typealias FinishedCallback = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void
    let onFinish: FinishedCallback = { _, data in
        Unmanaged<FinishedBox>.fromOpaque(data!).takeUnretainedValue().action()
    }
    return csoup_signal_connect(UnsafeMutableRawPointer(message), "finished", unsafeBitCast(onFinish, to: GCallback.self),
                                Unmanaged.passRetained(FinishedBox(action)).toOpaque(),
                                { data, _ in Unmanaged<FinishedBox>.fromOpaque(data!).release() })
}

private final class FinishedBox {
    let action: () -> Void
    init(_ action: @escaping () -> Void) { self.action = action }
}
