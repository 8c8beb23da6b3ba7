import CGStreamer
import FoundationEssentials
import GLibRuntime

/// playbin3's `about-to-finish`: fired on a streaming thread shortly before the current URI
/// runs out. Setting `uri` there, at once, makes playbin3 go on to it without a gap. The next
/// URI is armed ahead from the owner's thread (`arm`); the hook takes it once, sets it, and
/// calls `switched` (on the streaming thread). Thread-safe; `disconnect()` before dropping.
public final class GaplessHook: @unchecked Sendable {
    private let lock = ThreadLock()
    private var nextURI: String?
    private var playbin: UnsafeMutablePointer<GstElement>?
    private var handlerID: UInt = 0
    private let switched: @Sendable (String) -> Void

    public init(playbin: Element, switched: @escaping @Sendable (String) -> Void) {
        self.switched = switched
        self.playbin = playbin.pointer
        gst_object_ref(UnsafeMutableRawPointer(playbin.pointer))
        typealias Callback = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void
        let callback: Callback = { element, data in
            guard let element, let data else { return }
            Unmanaged<GaplessHook>.fromOpaque(data).takeUnretainedValue().aboutToFinish(element)
        }
        handlerID = cgst_signal_connect(UnsafeMutableRawPointer(playbin.pointer), "about-to-finish",
                                        unsafeBitCast(callback, to: GCallback.self),
                                        Unmanaged.passRetained(self).toOpaque(),
                                        { data, _ in Unmanaged<GaplessHook>.fromOpaque(data!).release() })
    }

    /// The URI to continue with (nil: none, the stream ends as usual).
    public func arm(_ uri: String?) {
        lock.lock()
        nextURI = uri
        lock.unlock()
    }

    private func aboutToFinish(_ element: UnsafeMutableRawPointer) {
        lock.lock()
        let uri = nextURI
        nextURI = nil
        lock.unlock()
        guard let uri else { return }
        cgst_set_string(element, "uri", uri)
        switched(uri)
    }

    public func disconnect() {
        guard let playbin else { return }
        self.playbin = nil
        g_signal_handler_disconnect(UnsafeMutableRawPointer(playbin), handlerID)
        gst_object_unref(UnsafeMutableRawPointer(playbin))
    }
}
