import CGStreamer
import FoundationEssentials
import GLibRuntime

/// Watches playbin3's `element-setup` signal, which fires for every element playbin3 creates
/// (sources, demuxers, decoders), on whichever thread creates it. `configure` runs there, at
/// once, so a property set in it is in place before the element handles any data; elements of
/// the watched factories are also kept so the GLib thread can change them later.
/// Thread-safe; `disconnect()` before the playbin goes away.
public final class ElementSetupHook: @unchecked Sendable {
    private let lock = ThreadLock()
    private var kept: [String: UnsafeMutablePointer<GstElement>] = [:]  // one reference each
    private let factories: Set<String>
    private let configure: @Sendable (String, Element) -> Void
    private var playbin: UnsafeMutablePointer<GstElement>?
    private var handlerID: UInt = 0

    /// `configure(factoryName, element)` runs for elements of `factories`, on the creating thread.
    public init(playbin: Element, factories: Set<String>, configure: @escaping @Sendable (String, Element) -> Void) {
        self.factories = factories
        self.configure = configure
        self.playbin = playbin.pointer
        gst_object_ref(UnsafeMutableRawPointer(playbin.pointer))
        typealias Callback = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GstElement>?, UnsafeMutableRawPointer?) -> Void
        let callback: Callback = { _, element, data in
            guard let element, let data else { return }
            Unmanaged<ElementSetupHook>.fromOpaque(data).takeUnretainedValue().setUp(element)
        }
        handlerID = cgst_signal_connect(UnsafeMutableRawPointer(playbin.pointer), "element-setup",
                                        unsafeBitCast(callback, to: GCallback.self),
                                        Unmanaged.passRetained(self).toOpaque(),
                                        { data, _ in Unmanaged<ElementSetupHook>.fromOpaque(data!).release() })
    }

    private func setUp(_ element: UnsafeMutablePointer<GstElement>) {
        guard let factory = gst_element_get_factory(element),
              let cName = gst_object_get_name(UnsafeMutableRawPointer(factory).assumingMemoryBound(to: GstObject.self)) else { return }
        let name = String(cString: cName)
        g_free(cName)
        guard factories.contains(name) else { return }
        gst_object_ref(UnsafeMutableRawPointer(element))
        lock.lock()
        if let old = kept[name] { gst_object_unref(UnsafeMutableRawPointer(old)) }
        kept[name] = element
        lock.unlock()
        gst_object_ref(UnsafeMutableRawPointer(element))
        configure(name, Element(owning: element))
    }

    /// The latest element created from `factory`, if any (a new reference).
    public func element(factory: String) -> Element? {
        lock.lock()
        defer { lock.unlock() }
        guard let element = kept[factory] else { return nil }
        gst_object_ref(UnsafeMutableRawPointer(element))
        return Element(owning: element)
    }

    /// Stops watching and drops the kept elements. Call on the thread that owns the playbin.
    public func disconnect() {
        lock.lock()
        let playbin = self.playbin
        self.playbin = nil
        let elements = Array(kept.values)
        kept.removeAll()
        lock.unlock()
        guard let playbin else { return }
        g_signal_handler_disconnect(UnsafeMutableRawPointer(playbin), handlerID)
        for element in elements { gst_object_unref(UnsafeMutableRawPointer(element)) }
        gst_object_unref(UnsafeMutableRawPointer(playbin))
    }
}
