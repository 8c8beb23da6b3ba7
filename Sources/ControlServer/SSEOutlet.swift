import CSoup
import Glibc
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
    /// The response body was completed (the client left): nothing more is written.
    private var isComplete = false
    /// The GLib watch that notices the client leaving (see `watchForHangUp`); 0 when none.
    private var hangUpWatch: UInt32 = 0

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
        watchForHangUp()
    }

    /// libsoup does not read the socket while it streams a response, so a client that
    /// closes its connection is noticed only when a write fails: with nothing playing, at
    /// the next heartbeat (up to 15 s). Meanwhile its socket, message and hub slot stay
    /// taken, and a client that reconnects in a loop piles them up (100 connect/disconnect
    /// cycles on an idle daemon held 100 descriptors; see LongLifeTests). A read watch on
    /// the socket sees the end-of-file at once; the stream is then ended, libsoup finishes
    /// the message (`onFinished`) and closes the connection. The watch only peeks, and stops
    /// if the client sends anything (a pipelined request stays libsoup's to read).
    private func watchForHangUp() {
        guard fd >= 0, let channel = g_io_channel_unix_new(fd) else { return }
        let box = Unmanaged.passRetained(HangUpBox { [weak self] in self?.readable() ?? false }).toOpaque()
        let conditions = G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue | G_IO_NVAL.rawValue
        hangUpWatch = g_io_add_watch_full(channel, G_PRIORITY_DEFAULT, GIOCondition(rawValue: conditions), { _, _, data in
            let box = Unmanaged<HangUpBox>.fromOpaque(data!).takeUnretainedValue()
            return GLibActor.assumeIsolated { box.action() } ? 1 : 0  // G_SOURCE_CONTINUE : G_SOURCE_REMOVE
        }, box, { data in Unmanaged<HangUpBox>.fromOpaque(data!).release() })
        // The watch holds its own reference; the channel never closes the descriptor (libsoup's).
        g_io_channel_unref(channel)
    }

    /// The socket is readable: the client left, or sent bytes. Returns whether to keep watching.
    private func readable() -> Bool {
        guard message != nil, !isFinished, !isComplete else {
            hangUpWatch = 0
            return false
        }
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return true }  // a spurious wake-up
        hangUpWatch = 0
        // Bytes to read (n > 0) are libsoup's: stop watching, the heartbeat remains.
        if n <= 0 { complete() }  // end of file, or the connection failed
        return false
    }

    /// Ends the response: libsoup writes the last chunk (or fails to), finishes the message
    /// and lets the connection go. Nothing is appended afterwards.
    private func complete() {
        guard let message, !isFinished, !isComplete else { return }
        isComplete = true
        soup_message_body_complete(soup_server_message_get_response_body(message))
        soup_server_message_unpause(message)
    }

    func write(_ text: String) {
        append("data: \(text)\n\n")
    }

    private func append(_ text: String) {
        guard let message, !isFinished, !isComplete else { return }
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
        if hangUpWatch != 0 { g_source_remove(hangUpWatch) }
        hangUpWatch = 0
        self.message = nil
        g_signal_handler_disconnect(UnsafeMutableRawPointer(message), finishedHandler)
        if !isFinished && !isComplete {
            soup_message_body_complete(soup_server_message_get_response_body(message))
            soup_server_message_unpause(message)
        }
        g_object_unref(UnsafeMutableRawPointer(message))
    }
}

private final class HangUpBox {
    let action: @GLibActor () -> Bool
    init(_ action: @escaping @GLibActor () -> Bool) { self.action = action }
}
