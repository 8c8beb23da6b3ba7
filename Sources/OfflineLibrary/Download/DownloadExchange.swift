import CSoup

/// One GET of a download and its body stream, on libsoup: the glue, apart from the policy in
/// `FileDownload`. Made, used and closed on the session's thread.
///
/// Every asynchronous call holds the exchange until its callback, and a callback that
/// arrives after `close()` only releases what it got: its completion never runs. Closing
/// while the body is unfinished drops the connection instead of reading the rest (libsoup
/// 3.2 marks a response read to its end as the only reusable kind), so a cancel or a stall
/// costs no more transfer.
final class DownloadExchange {
    enum Response {
        /// The response's head arrived; its body follows through `read`.
        case head(status: Int, ResponsePlan.Headers)
        /// No response: refused, reset, timed out, a name that does not resolve, TLS.
        case failed(String)
    }

    enum Chunk {
        /// Body bytes, valid during the completion only.
        case bytes(UnsafeRawBufferPointer)
        /// The body ended (as the connection framed it: not necessarily all of it).
        case end
        case failed(String)
    }

    private let message: OpaquePointer
    private let cancellable: UnsafeMutablePointer<GCancellable>
    private var stream: UnsafeMutablePointer<GInputStream>?
    /// A send or read is in flight: its callback still has to run.
    private var busy = false
    private(set) var closed = false

    /// nil when `url` is not one libsoup can request. `headers` are the caller's, already
    /// validated; `offset` above 0 adds `Range: bytes=offset-`.
    init?(url: String, headers: [String: String], userAgent: String, offset: Int64) {
        guard let message = soup_message_new("GET", url) else { return nil }
        self.message = message
        cancellable = g_cancellable_new()
        let requestHeaders = soup_message_get_request_headers(message)
        // Ours win over the caller's: the byte ranges must count the bytes as stored.
        let reserved: Set<String> = ["range", "accept-encoding", "if-range"]
        for (name, value) in headers where !reserved.contains(name.lowercased()) {
            soup_message_headers_replace(requestHeaders, name, value)
        }
        if !headers.keys.contains(where: { $0.lowercased() == "user-agent" }) {
            soup_message_headers_replace(requestHeaders, "User-Agent", userAgent)
        }
        soup_message_headers_replace(requestHeaders, "Accept-Encoding", "identity")
        if offset > 0 {
            soup_message_headers_replace(requestHeaders, "Range", "bytes=\(offset)-")
        }
    }

    deinit {
        closeStream()
        g_object_unref(UnsafeMutableRawPointer(cancellable))
        g_object_unref(UnsafeMutableRawPointer(message))
    }

    /// Sends the request; `completion` runs once on the thread, never inline.
    func send(on session: DownloadSession, _ completion: @escaping (Response) -> Void) {
        precondition(!busy && !closed && stream == nil, "one send per exchange")
        busy = true
        let call = PendingCall(self, completion)
        soup_session_send_async(session.soup, message, G_PRIORITY_DEFAULT, cancellable, { source, result, data in
            let call = Unmanaged<PendingCall<Response>>.fromOpaque(data!).takeRetainedValue()
            var error: UnsafeMutablePointer<GError>?
            let stream = soup_session_send_finish(UnsafeMutableRawPointer(source)?.assumingMemoryBound(to: SoupSession.self),
                                                  result, &error)
            call.exchange.sent(stream: stream, error: error, completion: call.completion)
        }, Unmanaged.passRetained(call).toOpaque())
    }

    private func sent(stream: UnsafeMutablePointer<GInputStream>?, error: UnsafeMutablePointer<GError>?,
                      completion: (Response) -> Void) {
        busy = false
        self.stream = stream
        defer { if let error { g_error_free(error) } }
        if closed {
            closeStream()
            return
        }
        guard stream != nil else {
            completion(.failed(Self.text(of: error, otherwise: "the request failed")))
            return
        }
        let headers = soup_message_get_response_headers(message)
        var parsed = ResponsePlan.Headers()
        parsed.contentRange = soup_message_headers_get_one(headers, "Content-Range").map { String(cString: $0) }
        parsed.retryAfter = soup_message_headers_get_one(headers, "Retry-After").map { String(cString: $0) }
        if soup_message_headers_get_encoding(headers) == SOUP_ENCODING_CONTENT_LENGTH {
            parsed.contentLength = Int64(soup_message_headers_get_content_length(headers))
        }
        completion(.head(status: Int(soup_message_get_status(message).rawValue), parsed))
    }

    /// Reads up to `count` body bytes; `completion` runs once on the thread, never inline.
    func read(count: Int, _ completion: @escaping (Chunk) -> Void) {
        precondition(!busy && !closed, "one read at a time, before close()")
        guard let stream else { preconditionFailure("read before the response's head") }
        busy = true
        let call = PendingCall(self, completion)
        g_input_stream_read_bytes_async(stream, gsize(count), G_PRIORITY_DEFAULT, cancellable, { source, result, data in
            let call = Unmanaged<PendingCall<Chunk>>.fromOpaque(data!).takeRetainedValue()
            var error: UnsafeMutablePointer<GError>?
            let bytes = g_input_stream_read_bytes_finish(UnsafeMutableRawPointer(source)?.assumingMemoryBound(to: GInputStream.self),
                                                         result, &error)
            call.exchange.readDone(bytes: bytes, error: error, completion: call.completion)
        }, Unmanaged.passRetained(call).toOpaque())
    }

    private func readDone(bytes: OpaquePointer?, error: UnsafeMutablePointer<GError>?, completion: (Chunk) -> Void) {
        busy = false
        defer {
            if let bytes { g_bytes_unref(bytes) }
            if let error { g_error_free(error) }
        }
        if closed {
            closeStream()
            return
        }
        guard let bytes else {
            completion(.failed(Self.text(of: error, otherwise: "reading the body failed")))
            return
        }
        var size: gsize = 0
        let data = g_bytes_get_data(bytes, &size)
        if size == 0 {
            completion(.end)
        } else {
            completion(.bytes(UnsafeRawBufferPointer(start: data, count: Int(size))))
        }
    }

    /// Ends the exchange: no completion runs after this. An operation in flight is cancelled
    /// and the stream closed when its callback comes back; otherwise at once.
    func close() {
        guard !closed else { return }
        closed = true
        if busy {
            g_cancellable_cancel(cancellable)
        } else {
            closeStream()
        }
    }

    private func closeStream() {
        guard let stream else { return }
        self.stream = nil
        // Does no I/O: an unfinished body is abandoned (the connection with it), not drained.
        g_input_stream_close(stream, nil, nil)
        g_object_unref(UnsafeMutableRawPointer(stream))
    }

    private static func text(of error: UnsafeMutablePointer<GError>?, otherwise fallback: String) -> String {
        error?.pointee.message.map { String(cString: $0) } ?? fallback
    }
}

/// What a libsoup or GIO callback carries: the exchange (kept alive until the callback) and
/// the completion to run.
private final class PendingCall<Outcome> {
    let exchange: DownloadExchange
    let completion: (Outcome) -> Void
    init(_ exchange: DownloadExchange, _ completion: @escaping (Outcome) -> Void) {
        self.exchange = exchange
        self.completion = completion
    }
}
