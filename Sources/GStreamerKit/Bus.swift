import CGStreamer
import GLibRuntime

/// Owns one reference to a GstBus.
public final class Bus {
    let pointer: UnsafeMutablePointer<GstBus>
    init(owning pointer: UnsafeMutablePointer<GstBus>) { self.pointer = pointer }
    deinit { gst_object_unref(UnsafeMutableRawPointer(pointer)) }
}

/// Delivers a pipeline's bus messages as `BusEvent`s to one handler on the GLib thread
/// (a bus watch on the default main context). Call `stop()` before dropping the pipeline;
/// the handler box is released by GLib's destroy notify, never by `deinit`.
@GLibActor
public final class BusWatch {
    private let bus: Bus
    private var active = true

    public init(pipeline: Element, handler: @escaping @GLibActor (BusEvent) -> Void) {
        bus = pipeline.bus!  // every pipeline has a bus
        let box = Unmanaged.passRetained(WatchBox(pipeline: pipeline.raw, handler: handler)).toOpaque()
        gst_bus_add_watch_full(bus.pointer, G_PRIORITY_DEFAULT, { _, message, data in
            let box = Unmanaged<WatchBox>.fromOpaque(data!).takeUnretainedValue()
            if let message, let event = BusEvent(message: message, pipeline: box.pipeline) {
                GLibActor.assumeIsolated { box.handler(event) }
            }
            return 1  // keep watching
        }, box, { data in Unmanaged<WatchBox>.fromOpaque(data!).release() })
    }

    /// Removes the watch; pending messages are dropped.
    public func stop() {
        guard active else { return }
        active = false
        gst_bus_remove_watch(bus.pointer)
        gst_bus_set_flushing(bus.pointer, 1)
    }
}

private final class WatchBox {
    /// Compared by address only, to tell the pipeline's own messages from its children's.
    let pipeline: UnsafeMutableRawPointer
    let handler: @GLibActor (BusEvent) -> Void
    init(pipeline: UnsafeMutableRawPointer, handler: @escaping @GLibActor (BusEvent) -> Void) {
        self.pipeline = pipeline
        self.handler = handler
    }
}
