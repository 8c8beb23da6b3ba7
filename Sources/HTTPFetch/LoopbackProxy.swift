import CSoup
import FoundationEssentials
import TextSupport
import GLibRuntime

/// Sends per-session request headers on every request a player makes. hlsdemux2 (GStreamer
/// 1.22) downloads playlists, segments and keys with its own client and has no property for
/// request headers, so a session that needs them plays through this proxy on 127.0.0.1:
/// playlists come back with every URI rewritten to point here, and each request goes to the
/// origin with the session's headers (plus its key headers for EXT-X-KEY URIs).
///
/// Each request is fetched whole before it is answered: simple, but it adds a segment's
/// download time to its delivery, and hlsdemux2 measures loopback speed rather than the
/// origin's, so adaptive mode may pick higher variants than the network sustains.
///
/// The server and its origin client run on a `ServiceThread` of their own, never on the
/// GLib thread: hlsdemux2 waits for these requests while the GLib thread may be inside a
/// call into its pipeline (`ServiceThread` has the 20 s freeze this caused). Sessions are
/// registered from any thread; all methods are thread-safe.
public final class LoopbackProxy: @unchecked Sendable {
    public struct Session: Sendable {
        public var headers: [String: String]
        public var keyHeaders: [String: String]
        /// A session playing a URL from the URL resolver: asks it again on 401/403.
        public var reauthorizer: ProxyReauthorizer?
        /// Keys come from here, never from the key URIs (`KeyDelivery`); nil: fetched as written.
        public var keyService: KeyService?
        /// Told once, on the proxy's thread, with the session's token, why a key was refused
        /// (playback cannot go on).
        public var onKeyRefused: (@Sendable (_ token: String, _ reason: String) -> Void)?
        public init(headers: [String: String], keyHeaders: [String: String], keyService: KeyService? = nil,
                    onKeyRefused: (@Sendable (_ token: String, _ reason: String) -> Void)? = nil) {
            self.headers = headers
            self.keyHeaders = keyHeaders
            self.keyService = keyService
            self.onKeyRefused = onKeyRefused
        }
    }

    private let thread = ServiceThread(name: "marquee-proxy")
    private let userAgent: String
    private let lock = ThreadLock()
    // Guarded by `lock`:
    private var server: LoopbackServer?
    private var sessions: [String: Session] = [:]
    /// The origin client: made and used on the proxy's thread only.
    private let origins: OriginClient
    /// Sessions with a key service get their keys here.
    private let keys: KeyDelivery

    public init(userAgent: String) {
        self.userAgent = userAgent
        origins = OriginClient(userAgent: userAgent)
        keys = KeyDelivery(thread: thread, userAgent: userAgent)
    }

    /// Starts the listener on first use (bound here, served on the proxy's thread; nothing
    /// waits for that thread). Returns the token that names the session.
    public func register(_ session: Session) throws -> String {
        try startIfNeeded()
        let token = (0..<16).map { _ in String(printf: "%02x", UInt8.random(in: 0...255)) }.joined()
        lock.withLock { sessions[token] = session }
        if session.keyService != nil { keys.begin(token) }
        return token
    }

    public func unregister(_ token: String) {
        lock.withLock { sessions[token] = nil }
        keys.forget(token)
    }

    /// Why the session's key service refused a key, once it has: playback cannot go on.
    public func keyRefusal(for token: String) -> String? {
        keys.refusal(for: token)
    }

    private var baseURL: String { lock.withLock { server?.baseURL ?? "" } }

    /// The proxy URL that fetches `origin` for the session.
    public func url(for origin: String, token: String, isKey: Bool = false) -> String {
        let encoded = Data(origin.utf8).base64EncodedString()
            .replacing("+", with: "-").replacing("/", with: "_")
            .replacing("=", with: "")
        return "\(baseURL)/\(isKey ? "k" : "p")/\(token)/\(encoded)"
    }

    /// The origin URL behind a proxy URL, or the URL itself when it is not one of ours.
    public func origin(of url: String) -> String {
        guard url.hasPrefix(baseURL + "/"), let (_, _, origin) = Self.parse(path: String(url.dropFirst(baseURL.count))) else { return url }
        return origin
    }

    private static func parse(path: String) -> (isKey: Bool, token: String, origin: String)? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == 3, parts[0] == "p" || parts[0] == "k" else { return nil }
        var b64 = String(parts[2]).replacing("-", with: "+").replacing("_", with: "/")
        while b64.count % 4 != 0 { b64 += "=" }
        guard let data = Data(base64Encoded: b64), let origin = String(data: data, encoding: .utf8) else { return nil }
        return (parts[0] == "k", String(parts[1]), origin)
    }

    private func startIfNeeded() throws {
        try lock.withLock {
            guard server == nil else { return }
            server = try LoopbackServer(on: thread) { [weak self] message, path in self?.handle(message, path: path) }
        }
    }

    /// On the proxy's thread.
    private func handle(_ msg: OpaquePointer, path: String) {
        guard let (isKey, token, origin) = Self.parse(path: path),
              let session = lock.withLock({ sessions[token] }) else {
            soup_server_message_set_status(msg, 404, nil)
            return
        }
        if isKey, let service = session.keyService {
            keys.answer(msg, keyURI: origin, token: token, service: service, onRefused: session.onKeyRefused)
            return
        }
        var headers = session.headers
        if isKey { headers.merge(session.keyHeaders) { _, key in key } }
        // EXT-X-BYTERANGE segments are fetched with Range: pass it on, and the 206 back.
        if let range = soup_message_headers_get_one(soup_server_message_get_request_headers(msg), "Range") {
            headers["Range"] = String(cString: range)
        }
        g_object_ref(UnsafeMutableRawPointer(msg))
        soup_server_message_pause(msg)
        // hlsdemux2 cancels downloads on seek and stop: when its request goes away first,
        // the origin fetch is cancelled and the message is never touched again (libsoup
        // refuses to unpause a finished message).
        let exchange = ProxyExchange()
        let client = origins.client
        weak let proxy = self
        func respond(_ result: Result<FetchedResource, FetchError>) {
            exchange.responded = true
            defer {
                g_signal_handler_disconnect(UnsafeMutableRawPointer(msg), exchange.finishedHandler)
                soup_server_message_unpause(msg)
                g_object_unref(UnsafeMutableRawPointer(msg))
            }
            switch result {
            case .failure(let failure):
                soup_server_message_set_status(msg, UInt32(failure.status ?? 502), nil)
            case .success(let resource):
                var body = resource.body
                var type = resource.contentType ?? "application/octet-stream"
                if let proxy, isPlaylist(resource), let text = String(data: body, encoding: .utf8),
                   let base = URL(string: resource.finalURL) {
                    body = Data(PlaylistRewriter.rewrite(text, base: base) { proxy.url(for: $0, token: token, isKey: $1) }.utf8)
                    type = "application/vnd.apple.mpegurl"
                }
                soup_server_message_set_status(msg, UInt32(resource.status), nil)
                if let range = resource.contentRange {
                    soup_message_headers_replace(soup_server_message_get_response_headers(msg), "Content-Range", range)
                }
                body.withUnsafeBytes { bytes in
                    soup_server_message_set_response(msg, type, SOUP_MEMORY_COPY,
                                                     bytes.baseAddress?.assumingMemoryBound(to: CChar.self), UInt(bytes.count))
                }
            }
        }
        // A session from the URL resolver may have a fresh entry URL and headers, and asks the
        // resolver again once when the origin refuses (ProxyReauthorizer).
        let reauthorizer = session.reauthorizer
        func fetch(retried: Bool) {
            let route = reauthorizer?.route(origin, headers: headers)
            exchange.fetch = client.send("GET", route?.url ?? origin, headers: route?.headers ?? headers) { result in
                guard !exchange.clientGone else { return }
                if !retried, let reauthorizer, let route, case .failure(let failure) = result,
                   reauthorizer.refreshes(status: failure.status, for: route.url) {
                    reauthorizer.refresh(since: route.generation, using: client) { renewed in
                        guard !exchange.clientGone else { return }
                        if renewed { fetch(retried: true) } else { respond(result) }
                    }
                    return
                }
                respond(result)
            }
        }
        if let reauthorizer {
            reauthorizer.prepare(origin, using: client) { if !exchange.clientGone { fetch(retried: false) } }
        } else {
            fetch(retried: false)
        }
        exchange.finishedHandler = connectFinished(onServerThread: msg) {
            guard !exchange.responded, !exchange.clientGone else { return }
            exchange.clientGone = true
            exchange.fetch?.cancel()
            g_object_unref(UnsafeMutableRawPointer(msg))
        }
    }
}

private func isPlaylist(_ resource: FetchedResource) -> Bool {
    (resource.contentType?.lowercased().contains("mpegurl") ?? false) || resource.body.starts(with: Array("#EXTM3U".utf8))
}

/// The proxy's libsoup client, made on first use on the proxy's thread (a SoupSession
/// belongs to the context it was made on) and used only there; it lives as long as the proxy.
private final class OriginClient: @unchecked Sendable {
    private let userAgent: String
    private var made: SoupClient?
    init(userAgent: String) { self.userAgent = userAgent }

    /// The proxy's thread only.
    var client: SoupClient {
        if let made { return made }
        let client = SoupClient(userAgent: userAgent, timeoutSeconds: 15)
        made = client
        return client
    }
}

/// One proxied request while its origin fetch runs. The proxy's thread only.
private final class ProxyExchange {
    var fetch: SoupClient.Request?
    var finishedHandler: UInt = 0
    /// The response was written (the completion ran).
    var responded = false
    /// The client left before the response: the completion must not touch the message.
    var clientGone = false
}
