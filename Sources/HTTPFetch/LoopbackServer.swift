import CSoup
import FoundationEssentials
import GLibRuntime

/// A libsoup server on 127.0.0.1 (a free port), serving on the thread-default main context
/// of the thread that makes it: make it on a `ServiceThread` (in its setup or `perform`),
/// never on the daemon's GLib thread (`ServiceThread` says why). Never exposed: it listens
/// on loopback only, whatever the control server does. Lives as long as the process.
public final class LoopbackServer: @unchecked Sendable {
    /// Handles one request on the server's thread: `message` is the SoupServerMessage,
    /// `path` its decoded path.
    public typealias Handler = (_ message: OpaquePointer, _ path: String) -> Void

    private let server: UnsafeMutablePointer<SoupServer>
    /// "http://127.0.0.1:PORT", no trailing slash.
    public let baseURL: String

    public init(handler: @escaping Handler) throws {
        guard let server = csoup_server_new() else { throw FetchError(message: "cannot create a loopback server") }
        let box = Unmanaged.passRetained(HandlerBox(handler)).toOpaque()
        soup_server_add_handler(server, "/", { _, msg, path, _, data in
            let box = Unmanaged<HandlerBox>.fromOpaque(data!).takeUnretainedValue()
            box.handler(msg!, path.map { String(cString: $0) } ?? "/")
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

    /// Starts a server on `thread`, waiting the moment it takes to listen (called once per
    /// service, on first use). `handler` runs on that thread.
    public static func start(on thread: ServiceThread,
                             handler: @escaping @Sendable (_ message: OpaquePointer, _ path: String) -> Void) throws -> LoopbackServer {
        try thread.performAndWait { try LoopbackServer(handler: handler) }
    }
}

private final class HandlerBox {
    let handler: LoopbackServer.Handler
    init(_ handler: @escaping LoopbackServer.Handler) { self.handler = handler }
}
