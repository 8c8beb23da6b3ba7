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

    public init(thread: ServiceThread, userAgent: String) {
        self.thread = thread
        self.userAgent = userAgent
    }

    /// The thread only. A short timeout: hlsdemux2 waits for the key.
    private var client: SoupClient {
        if let made { return made }
        let client = SoupClient(userAgent: userAgent, timeoutSeconds: 5)
        made = client
        return client
    }

    /// Asks `service` for the key of `keyURI`; `completion` runs once on the thread, unless
    /// the returned request is cancelled first. The thread only.
    public func fetch(_ keyURI: String, from service: KeyService, completion: @escaping (KeyOutcome) -> Void) -> KeyRequest {
        let request = KeyRequest()
        attempt(0, keyURI, service, request, completion)
        return request
    }

    private func attempt(_ number: Int, _ keyURI: String, _ service: KeyService, _ request: KeyRequest,
                         _ completion: @escaping (KeyOutcome) -> Void) {
        guard !request.cancelled else { return }
        request.post = client.send("POST", service.url, headers: service.headers,
                                   body: (service.requestBody(keyURI: keyURI), "application/json")) { [self] result in
            guard !request.cancelled else { return }
            switch KeyRetryPolicy.decide(result, keyURI: keyURI, attempt: number) {
            case .done(let outcome):
                completion(outcome)
            case .retry(let milliseconds):
                let retry = ThreadBound { [self] in
                    if let fired = request.timer { g_source_unref(fired) }  // ours; the context let go of it
                    request.timer = nil
                    attempt(number + 1, keyURI, service, request, completion)
                }
                request.timer = thread.after(milliseconds: milliseconds) { retry.run() }
            }
        }
    }
}

/// One key request and its retries; `cancel()` on the client's thread.
public final class KeyRequest {
    fileprivate var post: SoupClient.Request?
    fileprivate var timer: UnsafeMutablePointer<GSource>?
    fileprivate(set) var cancelled = false

    public func cancel() {
        cancelled = true
        post?.cancel()
        if let timer {
            g_source_destroy(timer)
            g_source_unref(timer)
        }
        timer = nil
    }

    deinit {
        if let timer { g_source_unref(timer) }
    }
}

/// A closure made and run on the proxy's thread, carried through `ServiceThread.after`.
private struct ThreadBound: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
