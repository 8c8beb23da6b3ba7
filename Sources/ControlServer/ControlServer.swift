import CSoup
import ContentSessions
import ControlAPI
import FoundationEssentials
import GLibRuntime
import Logging
import OfflineLibrary
import PlayerCore

/// The HTTP, WebSocket and SSE front of the player, on libsoup-3. It is one more client of
/// `Player.send(_:)`. GLib thread only; C callbacks hold a retained box released by GLib's
/// destroy notify, and `stop()` disconnects the listeners.
@GLibActor
public final class ControlServer {
    public struct Configuration: Sendable {
        public var listen: ListenAddress
        public var access: AccessPolicy
        /// The dashboard and its vendored libraries, served at `/`.
        public var staticFiles: StaticFiles
        public var limits: Limits
        public init(listen: ListenAddress, access: AccessPolicy = AccessPolicy(), staticFiles: StaticFiles = StaticFiles(web: nil),
                    limits: Limits = Limits()) {
            self.listen = listen
            self.access = access
            self.staticFiles = staticFiles
            self.limits = limits
        }
    }

    /// What one client may take of the daemon. The defaults suit a kiosk on a shared network.
    public struct Limits: Sendable {
        /// Seconds from the start of a request (or the end of the previous one on a kept-alive
        /// connection) until its headers and body are in.
        public var requestSeconds: Double
        /// WebSocket and SSE clients at once; one more is refused with 429.
        public var eventClients: Int
        public init(requestSeconds: Double = 30, eventClients: Int = 256) {
            self.requestSeconds = requestSeconds
            self.eventClients = eventClients
        }
        public static let requestSecondsRange: ClosedRange<Double> = 1...3600
        public static let eventClientsRange: ClosedRange<Int> = 1...10_000
    }

    public enum StartError: Error, CustomStringConvertible {
        case tokenRequired(String)
        case badAccessPolicy(String)
        case listenFailed(String)
        public var description: String {
            switch self {
            case .tokenRequired(let a): return "refusing to listen on \(a) without a token (--token or MARQUEE_TOKEN); loopback needs none"
            case .badAccessPolicy(let m): return m
            case .listenFailed(let m): return "cannot listen: \(m)"
            }
        }
    }

    /// Request bodies above this are refused with 413 before they are read.
    static let maxBodyBytes = 1 << 20
    /// The header section of a request: bytes (names and values) and count. Browsers send
    /// well under this even with cookies; libsoup itself drops a connection past 64 KiB.
    static let maxHeaderBytes = 32 * 1024
    static let maxHeaderCount = 100
    /// Replies held by `?wait=` at once; each holds a connection.
    static let maxWaiters = 64

    let player: Player
    /// Analytics and resume points (`/v1/analytics`); nil: analytics disabled.
    let contentSessions: ContentSessionFeature?
    /// The offline library (`/v1/library`); nil: its routes answer 404 not_found.
    let library: Library?
    let configuration: Configuration
    let metrics = Metrics()
    let log = Logger(category: "server")
    private(set) var hub: EventHub
    private(set) var deadlines: RequestDeadlines!
    private var server: UnsafeMutablePointer<SoupServer>?
    /// WebSocket upgrades between the HTTP handler and the WebSocket handler.
    var pendingUpgrades: [OpaquePointer: PendingUpgrade] = [:]
    private(set) var waiters: [Int: Waiter] = [:]
    /// JPEG encodings in progress for `/v1/snapshot.jpg` (bounded: each holds a frame).
    var snapshotsInProgress = 0
    private var nextWaiterID = 0

    public init(player: Player, configuration: Configuration, contentSessions: ContentSessionFeature? = nil, library: Library? = nil) {
        self.player = player
        self.contentSessions = contentSessions
        self.library = library
        self.configuration = configuration
        hub = EventHub(player: player, metrics: metrics)
        deadlines = RequestDeadlines(seconds: configuration.limits.requestSeconds) { [metrics] in metrics.requestsTimedOut += 1 }
    }

    /// Binds and starts serving on the default main context. Returns the base URL, with the
    /// real port when port 0 was asked for.
    public func start() throws -> String {
        let listen = configuration.listen
        if let problem = configuration.access.configurationProblem { throw StartError.badAccessPolicy(problem) }
        if !listen.isLoopback && !configuration.access.requiresToken {
            throw StartError.tokenRequired(listen.description)
        }
        guard let server = csoup_server_new() else { throw StartError.listenFailed("soup_server_new failed") }
        self.server = server
        let box = Unmanaged.passRetained(ServerBox(self))
        func retained() -> UnsafeMutableRawPointer { box.retain().toOpaque() }
        let release: GDestroyNotify = { Unmanaged<ServerBox>.fromOpaque($0!).release() }

        soup_server_add_early_handler(server, "/", { _, msg, _, query, data in
            let box = Unmanaged<ServerBox>.fromOpaque(data!).takeUnretainedValue()
            GLibActor.assumeIsolated { box.server?.handleEarly(SoupMessage(raw: msg!), query: query) }
        }, retained(), release)
        soup_server_add_handler(server, "/", { _, msg, _, query, data in
            let box = Unmanaged<ServerBox>.fromOpaque(data!).takeUnretainedValue()
            GLibActor.assumeIsolated { box.server?.handle(SoupMessage(raw: msg!), query: query) }
        }, retained(), release)
        // libsoup runs only the early handler of the longest matching path: the events path
        // needs its own, or its bodies would be read without a limit.
        soup_server_add_early_handler(server, "/v1/events", { _, msg, _, query, data in
            let box = Unmanaged<ServerBox>.fromOpaque(data!).takeUnretainedValue()
            GLibActor.assumeIsolated { box.server?.handleEarly(SoupMessage(raw: msg!), query: query) }
        }, retained(), release)
        soup_server_add_handler(server, "/v1/events", { _, msg, _, query, data in
            let box = Unmanaged<ServerBox>.fromOpaque(data!).takeUnretainedValue()
            GLibActor.assumeIsolated { box.server?.handleEventsRequest(SoupMessage(raw: msg!), query: query) }
        }, retained(), release)
        soup_server_add_websocket_handler(server, "/v1/events", nil, nil, { _, msg, _, connection, data in
            let box = Unmanaged<ServerBox>.fromOpaque(data!).takeUnretainedValue()
            GLibActor.assumeIsolated { box.server?.acceptWebSocket(message: msg!, connection: connection!) }
        }, retained(), release)
        // Deadlines for reading each request (see RequestDeadlines), ended when the handler
        // runs or libsoup finishes the message some other way.
        let started: @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, msg, data in
            let box = Unmanaged<ServerBox>.fromOpaque(data!).takeUnretainedValue()
            GLibActor.assumeIsolated { box.server?.deadlines.started(msg!) }
        }
        let ended: @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, msg, data in
            let box = Unmanaged<ServerBox>.fromOpaque(data!).takeUnretainedValue()
            GLibActor.assumeIsolated { box.server?.deadlines.ended(msg!) }
        }
        let closureRelease: GClosureNotify = { data, _ in Unmanaged<ServerBox>.fromOpaque(data!).release() }
        csoup_signal_connect(server, "request-started", unsafeBitCast(started, to: GCallback.self), retained(), closureRelease)
        let finished: @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, msg, data in
            let box = Unmanaged<ServerBox>.fromOpaque(data!).takeUnretainedValue()
            GLibActor.assumeIsolated { box.server?.deadlines.ended(msg!) }
            // A kept-alive connection the client closes while idle must not linger (shim.h).
            if soup_server_message_get_status(msg) != 101 { csoup_watch_idle_socket(soup_server_message_get_socket(msg)) }
        }
        csoup_signal_connect(server, "request-finished", unsafeBitCast(finished, to: GCallback.self), retained(), closureRelease)
        csoup_signal_connect(server, "request-aborted", unsafeBitCast(ended, to: GCallback.self), retained(), closureRelease)
        box.release()  // the handlers hold their own references

        var error: UnsafeMutablePointer<GError>? = nil
        guard let address = g_inet_socket_address_new_from_string(listen.host, UInt32(listen.port)) else {
            throw StartError.listenFailed("'\(listen.host)' is not an IP address")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(address)) }
        let addressPointer = UnsafeMutableRawPointer(address).assumingMemoryBound(to: GSocketAddress.self)
        guard soup_server_listen(server, addressPointer, SoupServerListenOptions(rawValue: 0), &error) != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if let error { g_error_free(error) }
            throw StartError.listenFailed("\(listen): \(message)")
        }
        return boundURL() ?? "http://\(listen)"
    }

    private func boundURL() -> String? {
        guard let server, let uris = soup_server_get_uris(server) else { return nil }
        defer { g_slist_free_full(uris, { g_uri_unref(OpaquePointer($0)) }) }
        guard let first = uris.pointee.data else { return nil }
        let uri = OpaquePointer(first)
        let host = g_uri_get_host(uri).map { String(cString: $0) } ?? configuration.listen.host
        let port = g_uri_get_port(uri)
        return host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)"
    }

    /// Stops listening and closes every client. Pending waits are answered with 500 `internal_error`.
    public func stop() {
        for waiter in waiters.values { waiter.finish(.failure(APIError(.internalError, "the daemon is shutting down"))) }
        hub.closeAll()
        deadlines.closeAll()
        if let server {
            soup_server_disconnect(server)
            g_object_unref(UnsafeMutableRawPointer(server))
        }
        server = nil
    }

    // MARK: Waiters (`?wait=STATE`)

    func addWaiter(_ make: (Int) -> Waiter) {
        nextWaiterID += 1
        waiters[nextWaiterID] = make(nextWaiterID)
    }

    func removeWaiter(_ id: Int) { waiters[id] = nil }
}

/// Holds the server weakly for C callbacks, so a stopped server is not kept alive by libsoup.
final class ServerBox {
    @GLibActor weak var server: ControlServer?
    @GLibActor init(_ server: ControlServer) { self.server = server }
}
