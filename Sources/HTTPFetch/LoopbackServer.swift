import CSoup
import FoundationEssentials
import GLibRuntime

/// A libsoup server on 127.0.0.1 (a free port) that serves on a `ServiceThread`, never on
/// the daemon's GLib thread (`ServiceThread` says why). Never exposed: it listens on
/// loopback only, whatever the control server does. Lives as long as the process: the
/// SoupServer is made on the service thread, owned there, and never released.
///
/// Made without waiting for the service thread: the listening socket is bound and its port
/// read on the caller's thread (two local system calls), so `baseURL` is known at once; the
/// SoupServer takes the socket over on the service thread, and a connection that arrives
/// before then waits in the socket's backlog.
public final class LoopbackServer: Sendable {
    /// "http://127.0.0.1:PORT", no trailing slash.
    public let baseURL: String

    /// `handler` runs on `thread` for each request: the SoupServerMessage and its decoded path.
    public init(on thread: ServiceThread,
                handler: @escaping @Sendable (_ message: OpaquePointer, _ path: String) -> Void) throws {
        var error: UnsafeMutablePointer<GError>? = nil
        guard let socket = g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error) else {
            if let error { g_error_free(error) }
            throw FetchError(message: "cannot create a loopback socket")
        }
        let loopback = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4)
        let any = g_inet_socket_address_new(loopback, 0)
        defer {
            g_object_unref(UnsafeMutableRawPointer(any))
            g_object_unref(UnsafeMutableRawPointer(loopback))
        }
        guard g_socket_bind(socket, any, 1, &error) != 0, g_socket_listen(socket, &error) != 0,
              let local = g_socket_get_local_address(socket, &error) else {
            if let error { g_error_free(error) }
            g_object_unref(UnsafeMutableRawPointer(socket))
            throw FetchError(message: "cannot listen on 127.0.0.1")
        }
        let port = g_inet_socket_address_get_port(UnsafeMutablePointer<GInetSocketAddress>(OpaquePointer(local)))
        g_object_unref(UnsafeMutableRawPointer(local))
        baseURL = "http://127.0.0.1:\(port)"
        let listening = ListeningSocket(socket)  // its reference goes to the server's thread
        thread.perform {
            Self.serve(listening, handler: handler)
        }
    }

    /// On the service thread: a SoupServer over the bound socket, on the thread's context.
    private static func serve(_ listening: ListeningSocket,
                              handler: @escaping @Sendable (_ message: OpaquePointer, _ path: String) -> Void) {
        defer { g_object_unref(UnsafeMutableRawPointer(listening.socket)) }
        guard let server = csoup_server_new() else { return }
        let box = Unmanaged.passRetained(HandlerBox(handler)).toOpaque()
        soup_server_add_handler(server, "/", { _, msg, path, _, data in
            // One request per connection. A keep-alive connection that its client closed
            // (souphttpsrc at every pipeline's NULL) was never closed by libsoup 3.2 on a
            // server running on a context of its own: one descriptor per timeshift session
            // stayed open for the life of the daemon (5 of 5 in a test; the control server
            // on the default context closes them).
            soup_message_headers_replace(soup_server_message_get_response_headers(msg), "Connection", "close")
            let box = Unmanaged<HandlerBox>.fromOpaque(data!).takeUnretainedValue()
            box.handler(msg!, path.map { String(cString: $0) } ?? "/")
        }, box, { Unmanaged<HandlerBox>.fromOpaque($0!).release() })
        var error: UnsafeMutablePointer<GError>? = nil
        if soup_server_listen_socket(server, listening.socket, SoupServerListenOptions(rawValue: 0), &error) == 0 {
            // Requests to the port then find nothing: playbin3 reports a network error.
            if let error { g_error_free(error) }
            g_object_unref(UnsafeMutableRawPointer(server))
        }
        // Otherwise the server (and its handler) live as long as the process.
    }
}

/// A bound, listening socket on its way to the service thread (one reference, released
/// there once the server holds its own).
private struct ListeningSocket: @unchecked Sendable {
    let socket: UnsafeMutablePointer<GSocket>
    init(_ socket: UnsafeMutablePointer<GSocket>) { self.socket = socket }
}

private final class HandlerBox {
    let handler: @Sendable (_ message: OpaquePointer, _ path: String) -> Void
    init(_ handler: @escaping @Sendable (_ message: OpaquePointer, _ path: String) -> Void) { self.handler = handler }
}
