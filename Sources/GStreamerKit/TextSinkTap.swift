import CGStreamer
import GStreamerSupport
import FoundationEssentials

/// A text sink for playbin3 (`text-sink`) that hands each subtitle buffer to Swift when it
/// is due on the clock, instead of drawing it: Marquee draws subtitles in its output stage
/// and sends them as events. A fakesink with handoffs, synced to the clock; it does not hold
/// up preroll (subtitle streams are sparse). Thread-safe; `disconnect()` before dropping.
public final class TextSinkTap: @unchecked Sendable {
    public struct TextBuffer: Sendable, Equatable {
        public var text: String
        /// The text is Pango markup (`<i>`, `&amp;`), not plain UTF-8.
        public var isMarkup: Bool
        /// Seconds in the stream's timeline.
        public var start: Double?
        public var duration: Double?
        /// The stream the text came from (its stream-start's id, as in the stream
        /// collection); nil when the pad has none.
        public var streamID: String? = nil
    }

    private let handler: @Sendable (TextBuffer) -> Void
    private var sinkPointer: UnsafeMutablePointer<GstElement>?
    private var handlerID: UInt = 0

    /// Creates the sink (nil when fakesink is missing). `handler` runs on a streaming thread.
    public init?(handler: @escaping @Sendable (TextBuffer) -> Void) {
        guard let sink = Element(factory: "fakesink", name: "subtitle-tap") else { return nil }
        self.handler = handler
        sink.set("sync", true)
        sink.set("async", false)
        sink.set("signal-handoffs", true)
        sink.set("enable-last-sample", false)
        sinkPointer = sink.pointer
        gst_object_ref(UnsafeMutableRawPointer(sink.pointer))
        typealias Callback = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GstBuffer>?, UnsafeMutablePointer<GstPad>?, UnsafeMutableRawPointer?) -> Void
        let callback: Callback = { _, buffer, pad, data in
            guard let buffer, let data else { return }
            Unmanaged<TextSinkTap>.fromOpaque(data).takeUnretainedValue().received(buffer, pad: pad)
        }
        handlerID = cgst_signal_connect(UnsafeMutableRawPointer(sink.pointer), "handoff", unsafeBitCast(callback, to: GCallback.self),
                                        Unmanaged.passRetained(self).toOpaque(),
                                        { data, _ in Unmanaged<TextSinkTap>.fromOpaque(data!).release() })
    }

    /// The sink element to give playbin3 as `text-sink` (a new reference).
    public var sink: Element? {
        guard let sinkPointer else { return nil }
        gst_object_ref(UnsafeMutableRawPointer(sinkPointer))
        return Element(owning: sinkPointer)
    }

    private func received(_ buffer: UnsafeMutablePointer<GstBuffer>, pad: UnsafeMutablePointer<GstPad>?) {
        var pts: guint64 = 0, duration: guint64 = 0, markup: gboolean = 0
        guard let bytes = cgst_text_buffer(buffer, pad, &pts, &duration, &markup) else { return }
        let text = String(cString: bytes)
        g_free(bytes)
        func seconds(_ ns: guint64) -> Double? { ns == cgst_clock_time_none ? nil : Double(ns) / Double(cgst_second) }
        var streamID: String?
        if let pad, let id = gst_pad_get_stream_id(pad) {
            streamID = String(cString: id)
            g_free(id)
        }
        handler(TextBuffer(text: text, isMarkup: markup != 0, start: seconds(pts), duration: seconds(duration), streamID: streamID))
    }

    /// Stops the handoffs. Call once the pipeline is in NULL.
    public func disconnect() {
        guard let sinkPointer else { return }
        self.sinkPointer = nil
        g_signal_handler_disconnect(UnsafeMutableRawPointer(sinkPointer), handlerID)
        gst_object_unref(UnsafeMutableRawPointer(sinkPointer))
    }
}
