import CSoup
import GLibRuntime

/// A WebSocket event client. Holds one reference to the connection, released in `close()`
/// after its signal handlers are disconnected; the handlers' box is released by GLib's
/// destroy notify.
@GLibActor
final class WebSocketOutlet: EventOutlet {
    private var connection: OpaquePointer?
    private let fd: Int32
    private var handlerIDs: [UInt] = []

    /// `onText` gets each text message; `onClosed` runs once when the peer goes away.
    init(connection: OpaquePointer, fd: Int32, onText: @escaping @GLibActor (String) -> Void, onClosed: @escaping @GLibActor () -> Void) {
        g_object_ref(UnsafeMutableRawPointer(connection))
        self.connection = connection
        soup_websocket_connection_set_keepalive_interval(connection, UInt32(EventHub.heartbeatSeconds))
        self.fd = fd
        let box = Unmanaged.passRetained(WebSocketCallbacks(onText: onText, onClosed: onClosed))
        typealias MessageCallback = @convention(c) (OpaquePointer?, Int32, OpaquePointer?, UnsafeMutableRawPointer?) -> Void
        typealias ClosedCallback = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void
        let onMessage: MessageCallback = { _, type, bytes, data in
            let callbacks = Unmanaged<WebSocketCallbacks>.fromOpaque(data!).takeUnretainedValue()
            guard type == Int32(SOUP_WEBSOCKET_DATA_TEXT.rawValue), let bytes else { return }
            var size = 0
            guard let pointer = g_bytes_get_data(bytes, &size) else { return }
            let text = String(decoding: UnsafeRawBufferPointer(start: pointer, count: size), as: UTF8.self)
            GLibActor.assumeIsolated { callbacks.onText(text) }
        }
        let onClose: ClosedCallback = { _, data in
            let callbacks = Unmanaged<WebSocketCallbacks>.fromOpaque(data!).takeUnretainedValue()
            GLibActor.assumeIsolated { callbacks.onClosed() }
        }
        let raw = UnsafeMutableRawPointer(connection)
        handlerIDs.append(csoup_signal_connect(raw, "message", unsafeBitCast(onMessage, to: GCallback.self), box.retain().toOpaque(),
                                               { data, _ in Unmanaged<WebSocketCallbacks>.fromOpaque(data!).release() }))
        handlerIDs.append(csoup_signal_connect(raw, "closed", unsafeBitCast(onClose, to: GCallback.self), box.toOpaque(),
                                               { data, _ in Unmanaged<WebSocketCallbacks>.fromOpaque(data!).release() }))
    }

    func write(_ text: String) {
        guard let connection, soup_websocket_connection_get_state(connection) == SOUP_WEBSOCKET_STATE_OPEN else { return }
        soup_websocket_connection_send_text(connection, text)
    }

    var backlogBytes: Int { unsentBytes(fd: fd) }

    /// libsoup sends the pings itself (`keepalive-interval`, set at connect).
    func heartbeat() {}

    func close() {
        guard let connection else { return }
        self.connection = nil
        for id in handlerIDs { g_signal_handler_disconnect(UnsafeMutableRawPointer(connection), id) }
        handlerIDs.removeAll()
        if soup_websocket_connection_get_state(connection) == SOUP_WEBSOCKET_STATE_OPEN {
            soup_websocket_connection_close(connection, UInt16(SOUP_WEBSOCKET_CLOSE_GOING_AWAY.rawValue), nil)
        }
        g_object_unref(UnsafeMutableRawPointer(connection))
    }
}

private final class WebSocketCallbacks {
    let onText: @GLibActor (String) -> Void
    let onClosed: @GLibActor () -> Void
    init(onText: @escaping @GLibActor (String) -> Void, onClosed: @escaping @GLibActor () -> Void) {
        self.onText = onText
        self.onClosed = onClosed
    }
}
