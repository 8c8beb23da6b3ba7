import CSoup
import FoundationEssentials
import GLibRuntime

/// The header proxy's key route for sessions with a key service: a request for a key URL
/// (`/k/TOKEN/…`) is answered from the session's `KeyCache`, else from the key service
/// (`KeyServiceClient`), never from the key URI itself. hlsdemux2 gets the raw key (200), a
/// 403 for a refused key (the session's `onKeyRefused` hears why first), or a 502 for a key
/// service that kept failing, which the player's recovery treats like a failing origin.
///
/// Caches and requests live on the proxy's thread; `refusal(for:)` and `forget` are safe from
/// any thread.
final class KeyDelivery: @unchecked Sendable {
    private let thread: ServiceThread
    private let client: KeyServiceClient
    /// The proxy's thread only.
    private var caches: [String: KeyCache] = [:]
    private let lock = ThreadLock()
    /// Guarded by `lock`: why a session's key was refused (the first refusal).
    private var refusals: [String: String] = [:]

    init(thread: ServiceThread, userAgent: String) {
        self.thread = thread
        client = KeyServiceClient(thread: thread, userAgent: userAgent)
    }

    /// The refusal that ends a session's playback, if a key was refused.
    func refusal(for token: String) -> String? {
        lock.withLock { refusals[token] }
    }

    /// A new session: its keys are cached from now on.
    func begin(_ token: String) {
        thread.perform { [self] in caches[token] = KeyCache() }
    }

    /// The session is gone: its keys leave memory.
    func forget(_ token: String) {
        lock.withLock { refusals[token] = nil }
        thread.perform { [self] in caches[token] = nil }
    }

    /// On the proxy's thread: answers `msg`, a request for `keyURI`'s key.
    func answer(_ msg: OpaquePointer, keyURI: String, token: String, service: KeyService,
                onRefused: (@Sendable (_ token: String, _ reason: String) -> Void)?) {
        if let key = caches[token]?.key(for: keyURI) {
            respond(msg, status: 200, key: key)
            return
        }
        g_object_ref(UnsafeMutableRawPointer(msg))
        soup_server_message_pause(msg)
        let exchange = KeyExchange()
        exchange.request = client.fetch(keyURI, from: service) { [self] outcome in
            guard !exchange.clientGone else { return }
            exchange.responded = true
            defer {
                g_signal_handler_disconnect(UnsafeMutableRawPointer(msg), exchange.finishedHandler)
                soup_server_message_unpause(msg)
                g_object_unref(UnsafeMutableRawPointer(msg))
            }
            switch outcome {
            case .key(let key):
                caches[token]?.store(key, for: keyURI)  // not for a session already gone
                respond(msg, status: 200, key: key)
            case .refused(let reason):
                // Recorded before hlsdemux2 hears of it: the pipeline error it causes is then
                // reported as this refusal, whichever reaches the player first.
                let first = lock.withLock { () -> Bool in
                    guard refusals[token] == nil else { return false }
                    refusals[token] = reason
                    return true
                }
                if first { onRefused?(token, reason) }
                soup_server_message_set_status(msg, 403, nil)
            case .unavailable:
                soup_server_message_set_status(msg, 502, nil)
            }
        }
        // hlsdemux2 went away first (a seek, a stop): stop asking, never touch the message again.
        exchange.finishedHandler = connectFinished(onServerThread: msg) {
            guard !exchange.responded, !exchange.clientGone else { return }
            exchange.clientGone = true
            exchange.request?.cancel()
            g_object_unref(UnsafeMutableRawPointer(msg))
        }
    }

    private func respond(_ msg: OpaquePointer, status: UInt32, key: Data) {
        soup_server_message_set_status(msg, status, nil)
        key.withUnsafeBytes { bytes in
            soup_server_message_set_response(msg, "application/octet-stream", SOUP_MEMORY_COPY,
                                             bytes.baseAddress?.assumingMemoryBound(to: CChar.self), UInt(bytes.count))
        }
    }
}

/// One key request while the key service is asked. The proxy's thread only.
private final class KeyExchange {
    var request: KeyRequest?
    var finishedHandler: UInt = 0
    var responded = false
    var clientGone = false
}
