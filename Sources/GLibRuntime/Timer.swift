import CGStreamer

/// A repeating GLib timeout on the default context. Call `cancel()` to stop it; it is
/// also cancelled when released. GLib thread only.
@GLibActor
public final class LoopTimer {
    private var sourceID: UInt32 = 0

    /// `tick` runs on the loop thread every `milliseconds` until `cancel()`.
    public init(milliseconds: UInt32, tick: @escaping @GLibActor () -> Void) {
        let box = Unmanaged.passRetained(TickBox(tick)).toOpaque()
        sourceID = g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, { data in
            let box = Unmanaged<TickBox>.fromOpaque(data!).takeUnretainedValue()
            GLibActor.assumeIsolated { box.tick() }
            return 1  // G_SOURCE_CONTINUE
        }, box, { data in Unmanaged<TickBox>.fromOpaque(data!).release() })
    }

    public func cancel() {
        if sourceID != 0 { g_source_remove(sourceID) }
        sourceID = 0
    }

    isolated deinit { cancel() }
}

/// Runs `action` once on the loop thread after `milliseconds`. Returns the source id.
@GLibActor @discardableResult
public func runAfter(milliseconds: UInt32, _ action: @escaping @GLibActor () -> Void) -> UInt32 {
    let box = Unmanaged.passRetained(TickBox(action)).toOpaque()
    return g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, { data in
        let box = Unmanaged<TickBox>.fromOpaque(data!).takeUnretainedValue()
        GLibActor.assumeIsolated { box.tick() }
        return 0  // G_SOURCE_REMOVE
    }, box, { data in Unmanaged<TickBox>.fromOpaque(data!).release() })
}

private final class TickBox {
    let tick: @GLibActor () -> Void
    init(_ tick: @escaping @GLibActor () -> Void) { self.tick = tick }
}

/// Runs `action` once on the loop thread after `milliseconds`, unless cancelled first (or
/// released). GLib thread only.
@GLibActor
public final class OneShotTimer {
    private var sourceID: UInt32 = 0
    private let box: OneShotBox

    public init(milliseconds: UInt32, _ action: @escaping @GLibActor () -> Void) {
        box = OneShotBox(action)
        let data = Unmanaged.passRetained(box).toOpaque()
        sourceID = g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, { data in
            let box = Unmanaged<OneShotBox>.fromOpaque(data!).takeUnretainedValue()
            box.fired = true
            GLibActor.assumeIsolated { box.action() }
            return 0  // G_SOURCE_REMOVE
        }, data, { data in Unmanaged<OneShotBox>.fromOpaque(data!).release() })
    }

    /// True once the action ran.
    fileprivate var hasFired: Bool { box.fired }

    public func cancel() {
        // Removing a source that already ran is a GLib critical: only pending ones.
        if sourceID != 0 && !box.fired { g_source_remove(sourceID) }
        sourceID = 0
    }

    isolated deinit { cancel() }
}

/// One-shot timers that end together: a controller's, all cancelled when it closes (so none
/// fires for a session that was replaced). GLib thread only.
@GLibActor
public final class OneShotTimers {
    private var timers: [OneShotTimer] = []

    public init() {}

    /// Runs `action` after `milliseconds`, unless `cancelAll()` comes first.
    public func after(milliseconds: UInt32, _ action: @escaping @GLibActor () -> Void) {
        timers.removeAll { $0.hasFired }
        timers.append(OneShotTimer(milliseconds: milliseconds, action))
    }

    public func cancelAll() {
        for timer in timers { timer.cancel() }
        timers.removeAll()
    }
}

private final class OneShotBox {
    let action: @GLibActor () -> Void
    var fired = false
    init(_ action: @escaping @GLibActor () -> Void) { self.action = action }
}
