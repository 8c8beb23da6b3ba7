import CSoup
import FoundationEssentials
import GLibRuntime

/// A fetched HTTP resource: small bodies only (playlists, keys), read whole.
public struct FetchedResource: Sendable {
    public var status: Int
    public var contentType: String?
    public var body: Data
    /// The URL after redirects: relative URIs in a playlist resolve against it.
    public var finalURL: String
    /// For a 206 answer to a Range request.
    public var contentRange: String?
}

public struct FetchError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// The HTTP status, when the server answered.
    public var status: Int?
    public var description: String { status.map { "HTTP \($0): \(message)" } ?? message }
}

/// Fetches URLs with libsoup on the GLib main context: asynchronous, results delivered on
/// the GLib thread. One `SoupSession` for the daemon (connection reuse, one user agent).
/// GLib thread only; holds one reference to the session, released in `deinit`.
@GLibActor
public final class HTTPFetcher {
    private let session: UnsafeMutablePointer<SoupSession>
    private let userAgent: String
    /// Bodies above this are refused. Playlists and keys are tiny; the proxy fetches whole
    /// segments, and a 6 s segment at 40 Mb/s is 30 MB.
    public nonisolated static let maxBodyBytes = 64 << 20

    public init(userAgent: String = "marquee", timeoutSeconds: UInt32 = 15) {
        // No session-wide user agent: libsoup would put it over a client's own User-Agent,
        // so each request carries ours only when the session did not ask for another.
        session = csoup_session_new(nil, timeoutSeconds)!  // only fails out of memory
        self.userAgent = userAgent
    }

    /// GETs `url` with extra request `headers` (validated by the caller: no CR/LF).
    /// `completion` runs once on the GLib thread. Returns a handle that cancels the request.
    @discardableResult
    public func get(_ url: String, headers: [String: String] = [:],
                    completion: @escaping @GLibActor (Result<FetchedResource, FetchError>) -> Void) -> FetchHandle {
        send("GET", url, headers: headers, completion: completion)
    }

    /// HEADs `url`: whether the server would serve it, without the body (a health probe).
    @discardableResult
    public func head(_ url: String, headers: [String: String] = [:],
                     completion: @escaping @GLibActor (Result<FetchedResource, FetchError>) -> Void) -> FetchHandle {
        send("HEAD", url, headers: headers, completion: completion)
    }

    /// POSTs `body` to `url`; as `get`, and any status outside 2xx is a failure with `status`.
    @discardableResult
    public func post(_ url: String, body: Data, contentType: String, headers: [String: String] = [:],
                     completion: @escaping @GLibActor (Result<FetchedResource, FetchError>) -> Void) -> FetchHandle {
        send("POST", url, headers: headers, body: (body, contentType), completion: completion)
    }

    private func send(_ method: String, _ url: String, headers: [String: String], body: (Data, String)? = nil,
                      completion: @escaping @GLibActor (Result<FetchedResource, FetchError>) -> Void) -> FetchHandle {
        let handle = FetchHandle()
        guard let message = soup_message_new(method, url) else {
            runAfter(milliseconds: 0) { completion(.failure(FetchError(message: "not a valid URL: \(url)"))) }
            return handle
        }
        if let (data, contentType) = body {
            let bytes = data.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
            soup_message_set_request_body_from_bytes(message, contentType, bytes)
            g_bytes_unref(bytes)
        }
        let requestHeaders = soup_message_get_request_headers(message)
        for (name, value) in headers { soup_message_headers_replace(requestHeaders, name, value) }
        if !headers.keys.contains(where: { $0.lowercased() == "user-agent" }) {
            soup_message_headers_replace(requestHeaders, "User-Agent", userAgent)
        }
        let request = PendingFetch(message: message, url: url, completion: completion)
        handle.cancellable = request.cancellable
        soup_session_send_and_read_async(session, message, G_PRIORITY_DEFAULT, request.cancellable, { source, result, data in
            let request = Unmanaged<PendingFetch>.fromOpaque(data!).takeRetainedValue()
            var error: UnsafeMutablePointer<GError>? = nil
            let bytes = soup_session_send_and_read_finish(UnsafeMutableRawPointer(source)?.assumingMemoryBound(to: SoupSession.self), result, &error)
            let outcome = request.outcome(bytes: bytes, error: error)
            if let bytes { g_bytes_unref(bytes) }
            if let error { g_error_free(error) }
            GLibActor.assumeIsolated { request.completion(outcome) }
        }, Unmanaged.passRetained(request).toOpaque())
        return handle
    }

    isolated deinit {
        g_object_unref(UnsafeMutableRawPointer(session))
    }
}

/// Cancels a fetch; its completion then reports a cancelled error.
@GLibActor
public final class FetchHandle {
    fileprivate var cancellable: UnsafeMutablePointer<GCancellable>?
    public func cancel() {
        if let cancellable { g_cancellable_cancel(cancellable) }
    }
}

/// One request in flight: owns the message and the cancellable until the callback.
private final class PendingFetch {
    let message: OpaquePointer
    let url: String
    let cancellable: UnsafeMutablePointer<GCancellable>
    let completion: @GLibActor (Result<FetchedResource, FetchError>) -> Void

    init(message: OpaquePointer, url: String, completion: @escaping @GLibActor (Result<FetchedResource, FetchError>) -> Void) {
        self.message = message
        self.url = url
        self.cancellable = g_cancellable_new()
        self.completion = completion
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(message))
        g_object_unref(UnsafeMutableRawPointer(cancellable))
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
            guard size <= HTTPFetcher.maxBodyBytes else {
                return .failure(FetchError(message: "\(url) is larger than \(HTTPFetcher.maxBodyBytes) bytes", status: status))
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
