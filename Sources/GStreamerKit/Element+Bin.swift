import CGStreamer
import GStreamerSupport

/// Building pipelines in code, element by element: for pipelines whose shape depends on
/// the streams a source turns out to have (no template can say it in advance). Only
/// factory names and property values are used; nothing is parsed as pipeline text.
extension Element {
    /// An empty pipeline.
    public static func pipeline(name: String) -> Element {
        let pipeline = gst_pipeline_new(name)!
        gst_object_ref_sink(UnsafeMutableRawPointer(pipeline))
        return Element(owning: pipeline)
    }

    private var bin: UnsafeMutablePointer<GstBin> { UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstBin.self) }

    /// Adds elements to this bin (which then holds its own reference to each).
    @discardableResult
    public func add(_ elements: Element...) -> Bool {
        elements.allSatisfy { gst_bin_add(bin, $0.pointer) != 0 }
    }

    /// Takes an element (set to NULL first) out of this bin.
    @discardableResult
    public func remove(_ element: Element) -> Bool { gst_bin_remove(bin, element.pointer) != 0 }

    /// Links each element to the next, by their "src" and "sink" pads.
    @discardableResult
    public static func link(_ elements: [Element]) -> Bool {
        zip(elements, elements.dropFirst()).allSatisfy { gst_element_link($0.pointer, $1.pointer) != 0 }
    }

    /// Sets a caps property from caps text written in code (never from user input).
    @discardableResult
    public func set(_ name: String, capsString: String) -> Bool { cgst_set_caps_from_string(pointer, name, capsString) != 0 }

    /// Brings an element added to a running bin to the bin's state.
    @discardableResult
    public func syncStateWithParent() -> Bool { gst_element_sync_state_with_parent(pointer) != 0 }

    /// A request pad from a template name ("video", "audio_%u"), or nil. Released with
    /// the element.
    public func requestPad(_ template: String) -> Pad? {
        guard let pad = gst_element_request_pad_simple(pointer, template) else { return nil }
        return Pad(owning: pad)
    }

    /// Writes a DOT graph of this bin (every element, pad, caps and property) to
    /// `$GST_DEBUG_DUMP_DOT_DIR/<timestamp>-<name>.dot`; does nothing when that variable was not
    /// set at start (then it costs nothing: 0.01 ms). Synchronous file I/O: 0.3-0.6 ms for a
    /// playbin3 that failed at typefind, 3.5-4.4 ms (61 kB) for one prerolled with a Matroska
    /// file (measured with GStreamer 1.22 on a 2-core machine), so for diagnostics only.
    public func writeDotGraph(name: String) {
        gst_debug_bin_to_dot_file_with_ts(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstBin.self),
                                          GST_DEBUG_GRAPH_SHOW_ALL, name)
    }

    /// An always pad ("sink", "src"), or nil.
    public func staticPad(_ name: String) -> Pad? {
        guard let pad = gst_element_get_static_pad(pointer, name) else { return nil }
        return Pad(owning: pad)
    }

    /// `sink` behind a `volume` element of its own, in a bin with a "sink" ghost pad: a
    /// playbin3 `audio-sink` whose volume and mute playsink then sets on that element.
    ///
    /// Why: with the soft-volume flag and a sink whose volume playsink does not find
    /// (fakeaudiosink, alsasink), playsink builds a `volume` element inside its audio
    /// converter, and GStreamer 1.22.0 never frees it. Each pipeline leaves one GstVolume
    /// and its two pads behind (GST_TRACERS=leaks: +100 GstVolume and +200 GstPad after 100
    /// open/stop cycles; the same with gst-launch-1.0 playbin3 ... flags=soft-volume). Given
    /// a volume in the sink, playsink uses it and builds none. nil when `sink` is already in
    /// a bin or the volume element is missing; then use `sink` as it is.
    public static func withVolume(_ sink: Element, name: String? = nil) -> Element? {
        if let parent = gst_object_get_parent(UnsafeMutableRawPointer(sink.pointer).assumingMemoryBound(to: GstObject.self)) {
            gst_object_unref(UnsafeMutableRawPointer(parent))
            return nil
        }
        guard let volume = Element(factory: "volume"), let raw = gst_bin_new(name) else { return nil }
        gst_object_ref_sink(UnsafeMutableRawPointer(raw))
        let bin = Element(owning: raw)
        guard bin.add(volume, sink), link([volume, sink]), let target = volume.staticPad("sink"),
              let ghost = gst_ghost_pad_new("sink", target.pointer),
              gst_element_add_pad(bin.pointer, ghost) != 0 else { return nil }
        return bin
    }
}

/// Owns one reference to a GstPad. Thread-safe as GStreamer's pad calls are.
public final class Pad: @unchecked Sendable {
    public let pointer: UnsafeMutablePointer<GstPad>

    public init(owning pointer: UnsafeMutablePointer<GstPad>) { self.pointer = pointer }

    /// Takes a new reference to a pad someone else owns (a signal's argument).
    public convenience init(borrowing pointer: UnsafeMutablePointer<GstPad>) {
        gst_object_ref(UnsafeMutableRawPointer(pointer))
        self.init(owning: pointer)
    }

    deinit { gst_object_unref(UnsafeMutableRawPointer(pointer)) }

    /// The media type of the pad's caps ("video/x-h264", "audio/x-raw"), if known.
    public var mediaType: String? {
        guard let name = cgst_pad_media_type(pointer) else { return nil }
        defer { g_free(name) }
        return String(cString: name)
    }

    public var isLinked: Bool { gst_pad_is_linked(pointer) != 0 }

    @discardableResult
    public func link(to sink: Pad) -> Bool { gst_pad_link(pointer, sink.pointer) == GST_PAD_LINK_OK }
}

/// Calls `handler` for each pad an element adds ("pad-added"), on the streaming thread that
/// adds it, at once: link it there. Thread-safe; `disconnect()` before dropping.
public final class PadAddedHook: @unchecked Sendable {
    private let handler: @Sendable (Pad) -> Void
    private var element: UnsafeMutablePointer<GstElement>?
    private var handlerID: UInt = 0

    public init(element: Element, handler: @escaping @Sendable (Pad) -> Void) {
        self.handler = handler
        self.element = element.pointer
        gst_object_ref(UnsafeMutableRawPointer(element.pointer))
        typealias Callback = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GstPad>?, UnsafeMutableRawPointer?) -> Void
        let callback: Callback = { _, pad, data in
            guard let pad, let data else { return }
            Unmanaged<PadAddedHook>.fromOpaque(data).takeUnretainedValue().handler(Pad(borrowing: pad))
        }
        handlerID = cgst_signal_connect(UnsafeMutableRawPointer(element.pointer), "pad-added",
                                        unsafeBitCast(callback, to: GCallback.self),
                                        Unmanaged.passRetained(self).toOpaque(),
                                        { data, _ in Unmanaged<PadAddedHook>.fromOpaque(data!).release() })
    }

    /// Stops watching. Call once the pipeline is in NULL.
    public func disconnect() {
        guard let element else { return }
        self.element = nil
        g_signal_handler_disconnect(UnsafeMutableRawPointer(element), handlerID)
        gst_object_unref(UnsafeMutableRawPointer(element))
    }
}
