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
            guard let message else { return 1 }
            box.rememberCollection(from: message)
            if let event = BusEvent(message: message, pipeline: box.pipeline) {
                GLibActor.assumeIsolated {
                    if case .streamCollection(let streams) = event { box.delivered = streams }
                    // Tags (language, title) reach the collection's streams after its message,
                    // without a new one: re-read it once the pipeline prerolled.
                    if case .asyncDone = event, let refreshed = box.refreshedStreams() {
                        box.handler(.streamCollection(refreshed))
                    }
                    box.handler(event)
                }
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

/// Lives as long as the watch: released by GLib's destroy notify. Touched only on the GLib
/// thread (the watch's callback).
private final class WatchBox {
    /// Compared by address only, to tell the pipeline's own messages from its children's.
    let pipeline: UnsafeMutableRawPointer
    let handler: @GLibActor (BusEvent) -> Void
    /// The latest stream collection (one reference owned here) and what was last reported of it.
    private var collection: UnsafeMutablePointer<GstStreamCollection>?
    var delivered: [MediaStream] = []

    init(pipeline: UnsafeMutableRawPointer, handler: @escaping @GLibActor (BusEvent) -> Void) {
        self.pipeline = pipeline
        self.handler = handler
    }

    deinit {
        if let collection { gst_object_unref(UnsafeMutableRawPointer(collection)) }
    }

    func rememberCollection(from message: UnsafeMutablePointer<GstMessage>) {
        guard message.pointee.type == GST_MESSAGE_STREAM_COLLECTION else { return }
        var latest: UnsafeMutablePointer<GstStreamCollection>? = nil
        gst_message_parse_stream_collection(message, &latest)  // a new reference, now ours
        if let collection { gst_object_unref(UnsafeMutableRawPointer(collection)) }
        collection = latest
    }

    /// The collection's streams when they differ from what was last reported, else nil.
    func refreshedStreams() -> [MediaStream]? {
        guard let collection else { return nil }
        let streams = MediaStream.list(from: collection)
        guard streams != delivered else { return nil }
        delivered = streams
        return streams
    }
}
