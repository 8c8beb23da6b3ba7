import CGStreamer
import GStreamerSupport

extension Element {
    /// Runs `body` between two buffers of the pad `padName`: with the pad's stream lock,
    /// which the streaming thread holds while it processes a buffer there. Only when the lock
    /// is free at once; returns false (and `body` does not run) when the thread holds it.
    /// Never waits: the thread may hold it for a whole frame (a sink waiting on the clock) or
    /// for ever (a sink waiting to preroll).
    public func betweenBuffers(onPad padName: String, _ body: () -> Void) -> Bool {
        guard let pad = gst_element_get_static_pad(pointer, padName) else {
            body()  // no such pad: nothing to serialise with
            return true
        }
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        guard cgst_pad_stream_trylock(pad) != 0 else { return false }
        body()
        cgst_pad_stream_unlock(pad)
        return true
    }
}

extension Element {
    /// Sends FLUSH_START into each sink pad, so that streaming threads blocked inside this
    /// element waiting for more data return (before a state change that must stop them).
    public func flushSinkPads() {
        cgst_flush_start_sink_pads(pointer)
    }
}
