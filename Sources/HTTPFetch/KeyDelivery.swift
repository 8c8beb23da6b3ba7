import CSoup
import FoundationEssentials
import GLibRuntime

/// The header proxy's key route for sessions with a key service: a request for a key URL
/// (`/k/TOKEN/…`) is answered from the session's `KeyCache`, else from the key service
/// (`KeyServiceClient`), never from the key URI itself. Requests for a key already being
/// fetched wait for that fetch (`KeyRequestCoalescer`): one POST per key URI and session.
/// hlsdemux2 gets the raw key (200), a 403 for a refused key (the session's `onKeyRefused`
/// hears why first), or a 502 for a key service that kept failing (`outages` notes why
/// first, so that the player rides it out like a failing origin).
///
/// Caches and requests live on the proxy's thread; `refusal(for:)` and `forget` are safe from
/// any thread.
final class KeyDelivery: @unchecked Sendable {
    private let thread: ServiceThread
    private let client: KeyServiceClient
    /// The proxy's thread only.
    private var caches: [String: KeyCache] = [:]
    /// The proxy's thread only: key requests waiting for a fetch, by session and key URI.
    private var fetches = KeyRequestCoalescer<KeyFetch, KeyWaiter, KeyRequest>()
    private let lock = ThreadLock()
    /// Guarded by `lock`: why a session's key was refused (the first refusal).
    private var refusals: [String: String] = [:]
    /// Keys the key service kept failing to deliver, until the player takes them.
    let outages = KeyServiceOutages()

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
        outages.forget(token)
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
        let waiter = KeyWaiter(msg)
        let fetch = KeyFetch(token: token, keyURI: keyURI)
        let (id, startsFetch) = fetches.join(fetch, waiter)
        if startsFetch {
            let request = client.fetch(keyURI, from: service) { [self] outcome in
                settle(fetch, outcome, onRefused: onRefused)
            }
            fetches.started(fetch, fetch: request)
        }
        // hlsdemux2 went away first (a seek, a stop): never touch the message again, and stop
        // asking once no request waits for the key.
        waiter.finishedHandler = connectFinished(onServerThread: msg) { [self] in
            guard !waiter.responded, !waiter.clientGone else { return }
            waiter.clientGone = true
            g_object_unref(UnsafeMutableRawPointer(msg))
            fetches.leave(fetch, id: id)?.cancel()
        }
    }

    /// The proxy's thread: the key service answered `fetch`; every request waiting for it
    /// gets the same answer.
    private func settle(_ fetch: KeyFetch, _ outcome: KeyOutcome, onRefused: (@Sendable (_ token: String, _ reason: String) -> Void)?) {
        let waiters = fetches.finish(fetch)
        let status: UInt32
        var key: Data?
        switch outcome {
        case .key(let fetched):
            caches[fetch.token]?.store(fetched, for: fetch.keyURI)  // not for a session already gone
            outages.clear(fetch.keyURI, token: fetch.token)
            status = 200
            key = fetched
        case .refused(let reason):
            // Recorded before hlsdemux2 hears of it: the pipeline error it causes is then
            // reported as this refusal, whichever reaches the player first.
            let first = lock.withLock { () -> Bool in
                guard refusals[fetch.token] == nil else { return false }
                refusals[fetch.token] = reason
                return true
            }
            if first { onRefused?(fetch.token, reason) }
            status = 403
        case .unavailable(let reason):
            // Noted before hlsdemux2 hears of it, as it reports a key it could not get as a
            // stream error ("Internal data stream error") whatever the status.
            outages.record(reason, keyURI: fetch.keyURI, token: fetch.token)
            status = 502
        }
        for waiter in waiters where !waiter.clientGone {
            waiter.responded = true
            g_signal_handler_disconnect(UnsafeMutableRawPointer(waiter.msg), waiter.finishedHandler)
            if let key { respond(waiter.msg, status: status, key: key) } else { soup_server_message_set_status(waiter.msg, status, nil) }
            soup_server_message_unpause(waiter.msg)
            g_object_unref(UnsafeMutableRawPointer(waiter.msg))
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

/// What one POST to the key service is for: a key of a session.
private struct KeyFetch: Hashable {
    var token: String
    var keyURI: String
}

/// One request for a key while the key service is asked. The proxy's thread only.
private final class KeyWaiter {
    let msg: OpaquePointer
    var finishedHandler: UInt = 0
    var responded = false
    var clientGone = false
    init(_ msg: OpaquePointer) { self.msg = msg }
}

/// Key services that kept failing, by session token and key URI, until the player takes
/// them: hlsdemux2 (1.22) reports a key it could not get as a stream error, or, when it was
/// buffering, not at all (a stall with a healthy origin), so the player looks here (through
/// `LoopbackProxy.takeKeyServiceOutage(for:)`) on a pipeline error and at each tick of its
/// stall watch. A key served later clears its entry; `forget` clears the session's. Any
/// thread.
final class KeyServiceOutages: @unchecked Sendable {
    private let lock = ThreadLock()
    /// Guarded by `lock`.
    private var reasons: [String: [String: String]] = [:]

    /// Why the session's key service failed for a key not served since, if it did; the
    /// outage is then the caller's to handle (one loss per outage).
    func take(for token: String) -> String? {
        lock.withLock {
            defer { reasons[token] = nil }
            return reasons[token]?.values.sorted().first
        }
    }

    func record(_ reason: String, keyURI: String, token: String) {
        lock.withLock { reasons[token, default: [:]][keyURI] = reason }
    }

    func clear(_ keyURI: String, token: String) {
        lock.withLock {
            reasons[token]?[keyURI] = nil
            if reasons[token]?.isEmpty == true { reasons[token] = nil }
        }
    }

    func forget(_ token: String) {
        lock.withLock { reasons[token] = nil }
    }
}
