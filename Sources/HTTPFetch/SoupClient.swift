import CSoup
import FoundationEssentials

/// A libsoup client session bound to the thread-default main context of the thread that
/// made it: requests must be started there, and completions run there. `HTTPFetcher` is
/// this on the GLib thread; the header proxy has one on its own `ServiceThread`.
public final class SoupClient: @unchecked Sendable {
    let session: UnsafeMutablePointer<SoupSession>
    private let userAgent: String
    /// Bodies read whole above this are refused: playlists and keys are tiny (the header
    /// proxy streams segments and files through, `SoupClient.open`).
    public static let maxBodyBytes = 64 << 20

    /// One request in flight; `cancel()` on the client's thread.
    public final class Request: @unchecked Sendable {
        let cancellable: UnsafeMutablePointer<GCancellable>
        init() { cancellable = g_cancellable_new() }
        deinit { g_object_unref(UnsafeMutableRawPointer(cancellable)) }
        public func cancel() { g_cancellable_cancel(cancellable) }
    }

    public init(userAgent: String, timeoutSeconds: UInt32) {
        // No session-wide user agent: libsoup would put it over a client's own User-Agent,
        // so each request carries ours only when the session did not ask for another.
        session = csoup_session_new(nil, timeoutSeconds)!  // only fails out of memory
        self.userAgent = userAgent
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(session))
    }

    /// Sends one request with extra `headers` (validated by the caller: no CR/LF) and reads
    /// the whole body. `completion` runs once, on the client's thread, never inline.
    public func send(_ method: String, _ url: String, headers: [String: String], body: (Data, String)? = nil,
                     completion: @escaping (Result<FetchedResource, FetchError>) -> Void) -> Request {
        let request = Request()
        guard let message = soup_message_new(method, url) else {
            let failure = FetchError(message: "not a valid URL: \(url)")
            completeLater { completion(.failure(failure)) }
            return request
        }
        if let (data, contentType) = body {
            let bytes = data.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
            soup_message_set_request_body_from_bytes(message, contentType, bytes)
            g_bytes_unref(bytes)
        }
        addHeaders(headers, to: message)
        let pending = PendingFetch(message: message, url: url, request: request, completion: completion)
        soup_session_send_and_read_async(session, message, G_PRIORITY_DEFAULT, request.cancellable, { source, result, data in
            let pending = Unmanaged<PendingFetch>.fromOpaque(data!).takeRetainedValue()
            var error: UnsafeMutablePointer<GError>? = nil
            let bytes = soup_session_send_and_read_finish(UnsafeMutableRawPointer(source)?.assumingMemoryBound(to: SoupSession.self), result, &error)
            let outcome = pending.outcome(bytes: bytes, error: error)
            if let bytes { g_bytes_unref(bytes) }
            if let error { g_error_free(error) }
            pending.completion(outcome)
        }, Unmanaged.passRetained(pending).toOpaque())
        return request
    }

    /// The request's `headers`, and our User-Agent unless they name another.
    func addHeaders(_ headers: [String: String], to message: OpaquePointer) {
        let requestHeaders = soup_message_get_request_headers(message)
        for (name, value) in headers { soup_message_headers_replace(requestHeaders, name, value) }
        if !headers.keys.contains(where: { $0.lowercased() == "user-agent" }) {
            soup_message_headers_replace(requestHeaders, "User-Agent", userAgent)
        }
    }

    /// Runs `completion` on the client's thread from an idle source: never inline.
    func completeLater(_ completion: @escaping () -> Void) {
        let box = Unmanaged.passRetained(Completion(completion)).toOpaque()
        let idle = g_idle_source_new()!
        g_source_set_callback(idle, { data in
            Unmanaged<Completion>.fromOpaque(data!).takeUnretainedValue().run()
            return 0
        }, box, { Unmanaged<Completion>.fromOpaque($0!).release() })
        g_source_attach(idle, g_main_context_get_thread_default())
        g_source_unref(idle)
    }
}

private final class Completion {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

/// One request in flight: owns the message and the cancellable until the callback.
private final class PendingFetch {
    let message: OpaquePointer
    let url: String
    let request: SoupClient.Request
    let completion: (Result<FetchedResource, FetchError>) -> Void

    init(message: OpaquePointer, url: String, request: SoupClient.Request, completion: @escaping (Result<FetchedResource, FetchError>) -> Void) {
        self.message = message
        self.url = url
        self.request = request
        self.completion = completion
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(message))
    }

    func outcome(bytes: OpaquePointer?, error: UnsafeMutablePointer<GError>?) -> Result<FetchedResource, FetchError> {
        let status = Int(soup_message_get_status(message).rawValue)
        if let error {
            let text = error.pointee.message.map { String(cString: $0) } ?? "request failed"
            return .failure(FetchError(message: text, status: status == 0 ? nil : status))
        }
        guard (200..<300).contains(status) else {
            return .failure(FetchError(message: "the server answered \(status) for \(url)", status: status))
        }
        var size = 0
        var body = Data()
        if let bytes, let pointer = g_bytes_get_data(bytes, &size) {
            guard size <= SoupClient.maxBodyBytes else {
                return .failure(FetchError(message: "\(url) is larger than \(SoupClient.maxBodyBytes) bytes", status: status))
            }
            body = Data(bytes: pointer, count: size)
        }
        let responseHeaders = soup_message_get_response_headers(message)
        let contentType = soup_message_headers_get_content_type(responseHeaders, nil).map { String(cString: $0) }
        let finalURL = soup_message_get_uri(message).flatMap { g_uri_to_string($0) }.map { p -> String in
            defer { g_free(p) }
            return String(cString: p)
        } ?? url
        let contentRange = soup_message_headers_get_one(responseHeaders, "Content-Range").map { String(cString: $0) }
        return .success(FetchedResource(status: status, contentType: contentType, body: body, finalURL: finalURL,
                                        contentRange: contentRange))
    }
}
