import CSoup
import FoundationEssentials
import GLibRuntime

/// POSTs for keys to a key service, retrying a failing one (`KeyRetryPolicy`), on one
/// `ServiceThread` (the proxy's, the library's downloads'): its libsoup client is made there on
/// first use and used only there.
public final class KeyServiceClient: @unchecked Sendable {
    private let thread: ServiceThread
    private let userAgent: String
    private var made: SoupClient?
    /// Seconds a key request may take in all (`KeyRetryPolicy.deadlineSeconds`).
    private let deadline: Double

    public init(thread: ServiceThread, userAgent: String, deadline: Double = KeyRetryPolicy.deadlineSeconds) {
        self.thread = thread
        self.userAgent = userAgent
        self.deadline = deadline
    }

    /// The thread only. A short timeout: hlsdemux2 waits for the key.
    private var client: SoupClient {
        if let made { return made }
        let client = SoupClient(userAgent: userAgent, timeoutSeconds: 5)
        made = client
        return client
    }

    /// Asks `service` for the key of `keyURI`; `completion` runs once on the thread, within
    /// `deadline` seconds, unless the returned request is cancelled first. The thread only.
    public func fetch(_ keyURI: String, from service: KeyService, completion: @escaping (KeyOutcome) -> Void) -> KeyRequest {
        let request = KeyRequest()
        let overdue = ThreadBound {
            if let fired = request.deadline { g_source_unref(fired) }  // ours; the context let go of it
            request.deadline = nil
            guard !request.cancelled else { return }
            request.cancel()  // the POST in flight or the retry waiting
            completion(.overdue(keyURI, seconds: self.deadline))
        }
        request.deadline = thread.after(milliseconds: UInt32(deadline * 1000)) { overdue.run() }
        attempt(0, keyURI, service, request, started: .now, deadline: deadline) { outcome in
            request.cancel()  // the deadline
            completion(outcome)
        }
        return request
    }

    private func attempt(_ number: Int, _ keyURI: String, _ service: KeyService, _ request: KeyRequest,
                         started: ContinuousClock.Instant, deadline: Double, _ completion: @escaping (KeyOutcome) -> Void) {
        guard !request.cancelled else { return }
        request.post = client.send("POST", service.url, headers: service.headers,
                                   body: (service.requestBody(keyURI: keyURI), "application/json")) { [self] result in
            guard !request.cancelled else { return }
            let elapsed = Double((ContinuousClock.now - started).components.seconds)
                + Double((ContinuousClock.now - started).components.attoseconds) / 1e18
            switch KeyRetryPolicy.decide(result, keyURI: keyURI, attempt: number, elapsed: elapsed, deadline: deadline) {
            case .done(let outcome):
                completion(outcome)
            case .retry(let milliseconds):
                let retry = ThreadBound { [self] in
                    if let fired = request.timer { g_source_unref(fired) }  // ours; the context let go of it
                    request.timer = nil
                    attempt(number + 1, keyURI, service, request, started: started, deadline: deadline, completion)
                }
                request.timer = thread.after(milliseconds: milliseconds) { retry.run() }
            }
        }
    }
}

/// One key request and its retries; `cancel()` on the client's thread.
public final class KeyRequest {
    fileprivate var post: SoupClient.Request?
    /// The wait before a retry.
    fileprivate var timer: UnsafeMutablePointer<GSource>?
    /// `KeyRetryPolicy.deadlineSeconds` after the first POST.
    fileprivate var deadline: UnsafeMutablePointer<GSource>?
    fileprivate(set) var cancelled = false

    public func cancel() {
        cancelled = true
        post?.cancel()
        for source in [timer, deadline].compactMap({ $0 }) {
            g_source_destroy(source)
            g_source_unref(source)
        }
        timer = nil
        deadline = nil
    }

    deinit {
        if let timer { g_source_unref(timer) }
        if let deadline { g_source_unref(deadline) }
    }
}

/// A closure made and run on the proxy's thread, carried through `ServiceThread.after`.
private struct ThreadBound: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
