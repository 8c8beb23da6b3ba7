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
/// Since the URL resolver, progressive files read by souphttpsrc come through it too. Only
/// playlists are read whole; segments and files are streamed through as they arrive, with
/// flow control (`ProxyExchange`).
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

    /// Why the session's key service failed to deliver a key (past the retries), once: the
    /// caller then handles that outage (the player rides it out like a failing origin).
    public func takeKeyServiceOutage(for token: String) -> String? {
        keys.outages.take(for: token)
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
        // hlsdemux2 cancels downloads on seek and stop, souphttpsrc drops its request on a
        // seek: the exchange then cancels the origin request and lets the message be.
        let exchange = ProxyExchange(msg)
        let client = origins.client
        weak let proxy = self
        func answer(_ result: Result<OriginStream, FetchError>) {
            switch result {
            case .failure(let failure):
                exchange.fail(status: failure.status ?? 502)
            case .success(let stream):
                exchange.answer(from: stream) { text, base in
                    guard let proxy else { return text }
                    return PlaylistRewriter.rewrite(text, base: base) { proxy.url(for: $0, token: token, isKey: $1) }
                }
            }
        }
        // A session from the URL resolver may have a fresh entry URL and headers, and asks the
        // resolver again once when the origin refuses (ProxyReauthorizer): a refusal is known
        // from the response head, before any of the body is passed on.
        let reauthorizer = session.reauthorizer
        func fetch(retried: Bool) {
            let route = reauthorizer?.route(origin, headers: headers)
            exchange.fetch = client.open(route?.url ?? origin, headers: route?.headers ?? headers) { result in
                guard !exchange.finished else { return }
                if !retried, let reauthorizer, let route, case .failure(let failure) = result,
                   reauthorizer.refreshes(status: failure.status, for: route.url) {
                    reauthorizer.refresh(since: route.generation, using: client) { renewed in
                        guard !exchange.finished else { return }
                        if renewed { fetch(retried: true) } else { answer(result) }
                    }
                    return
                }
                answer(result)
            }
        }
        if let reauthorizer {
            reauthorizer.prepare(origin, using: client) { if !exchange.finished { fetch(retried: false) } }
        } else {
            fetch(retried: false)
        }
    }
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
