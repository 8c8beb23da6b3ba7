import CSoup
import GLibRuntime
import HTTPFetch

/// A Server-Sent Events client: a chunked response that never completes until the client
/// leaves. Holds a reference to the message until `close()`.
@GLibActor
final class SSEOutlet: EventOutlet {
    private var message: OpaquePointer?
    private let fd: Int32
    private var finishedHandler: UInt = 0
    private var isFinished = false

    /// Starts the response (status, headers, chunked body). `onFinished` runs once when
    /// libsoup is done with the message (the client disconnected).
    init(message: OpaquePointer, onFinished: @escaping @GLibActor () -> Void) {
        g_object_ref(UnsafeMutableRawPointer(message))
        self.message = message
        fd = SoupMessage(raw: message).socketFD
        let headers = soup_server_message_get_response_headers(message)
        soup_message_headers_set_encoding(headers, SOUP_ENCODING_CHUNKED)
        soup_message_headers_replace(headers, "Content-Type", "text/event-stream")
        soup_message_headers_replace(headers, "Cache-Control", "no-cache")
        // Tells reverse proxies not to buffer the stream.
        soup_message_headers_replace(headers, "X-Accel-Buffering", "no")
        soup_server_message_set_status(message, 200, nil)
        // Written chunks are freed instead of kept for the whole life of the stream.
        soup_message_body_set_accumulate(soup_server_message_get_response_body(message), 0)
        finishedHandler = connectFinished(message) { [weak self] in
            // libsoup is done with the message: writing or unpausing it now is an error.
            self?.isFinished = true
            onFinished()
        }
        // A comment line first, so clients see the stream open before the first event.
        append(": marquee events\n\n")
    }

    func write(_ text: String) {
        append("data: \(text)\n\n")
    }

    private func append(_ text: String) {
        guard let message, !isFinished else { return }
        var bytes = Array(text.utf8)
        soup_message_body_append(soup_server_message_get_response_body(message), SOUP_MEMORY_COPY, &bytes, UInt(bytes.count))
        soup_server_message_unpause(message)
    }

    var backlogBytes: Int { unsentBytes(fd: fd) }

    /// An SSE comment line: ignored by clients, but it makes a dead connection fail.
    func heartbeat() {
        if backlogBytes == 0 { append(": keepalive\n\n") }
    }

    func close() {
        guard let message else { return }
        self.message = nil
        g_signal_handler_disconnect(UnsafeMutableRawPointer(message), finishedHandler)
        if !isFinished {
            soup_message_body_complete(soup_server_message_get_response_body(message))
            soup_server_message_unpause(message)
        }
        g_object_unref(UnsafeMutableRawPointer(message))
    }
}
