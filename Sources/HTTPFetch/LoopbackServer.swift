import CSoup
import FoundationEssentials
import GLibRuntime

/// A libsoup server on 127.0.0.1 (a free port) on the GLib thread, for the header proxy.
/// Never exposed: it listens on loopback only, whatever the control server does. GLib
/// thread only. (The timeshift ring has a server with a thread of its own:
/// `Sources/Timeshift/RingServer.swift` says why.)
@GLibActor
public final class LoopbackServer {
    /// Handles one request: `message` is the SoupServerMessage, `path` its decoded path.
    public typealias Handler = @GLibActor (_ message: OpaquePointer, _ path: String) -> Void

    private let server: UnsafeMutablePointer<SoupServer>
    /// "http://127.0.0.1:PORT", no trailing slash.
    public let baseURL: String

    public init(handler: @escaping Handler) throws {
        guard let server = csoup_server_new() else { throw FetchError(message: "cannot create a loopback server") }
        let box = Unmanaged.passRetained(HandlerBox(handler)).toOpaque()
        soup_server_add_handler(server, "/", { _, msg, path, _, data in
            let box = Unmanaged<HandlerBox>.fromOpaque(data!).takeUnretainedValue()
            let path = path.map { String(cString: $0) } ?? "/"
            GLibActor.assumeIsolated { box.handler(msg!, path) }
        }, box, { Unmanaged<HandlerBox>.fromOpaque($0!).release() })
        var error: UnsafeMutablePointer<GError>? = nil
        guard soup_server_listen_local(server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error) != 0,
              let uris = soup_server_get_uris(server), let first = uris.pointee.data else {
            if let error { g_error_free(error) }
            g_object_unref(UnsafeMutableRawPointer(server))
            throw FetchError(message: "cannot listen on 127.0.0.1")
        }
        let port = g_uri_get_port(OpaquePointer(first))
        g_slist_free_full(uris, { g_uri_unref(OpaquePointer($0)) })
        self.server = server
        baseURL = "http://127.0.0.1:\(port)"
    }

    isolated deinit {
        soup_server_disconnect(server)
        g_object_unref(UnsafeMutableRawPointer(server))
    }
}

private final class HandlerBox {
    let handler: LoopbackServer.Handler
    init(_ handler: @escaping LoopbackServer.Handler) { self.handler = handler }
}
