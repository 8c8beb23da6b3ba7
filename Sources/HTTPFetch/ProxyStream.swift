import CSoup
import FoundationEssentials
import GLibRuntime

/// One request GStreamer made to the header proxy, from its arrival to the end of the
/// response. A playlist is read whole and rewritten; anything else is streamed through
/// as the origin sends it (`ProxiedBody`): status, Content-Type, Content-Length,
/// Content-Range and Accept-Ranges passed on, each chunk appended to the response as it is
/// read, the next one read only once the client took the last ones (`StreamFlow`).
///
/// Streaming matters twice: a progressive file of any size plays through the proxy (one
/// read whole was capped at `SoupClient.maxBodyBytes`), and a segment's first bytes reach
/// hlsdemux2 when they arrive rather than after the whole segment did, so its start-up is
/// not delayed by a segment's download and its bandwidth estimate is the origin's.
///
/// The exchange holds the server message from its creation until libsoup finishes it
/// (response written, or the client went away: a seek, a stop), and never touches it after
/// (libsoup refuses to unpause a finished message); then the origin request is cancelled.
/// The proxy's thread only.
final class ProxyExchange {
    /// Chunk size of origin reads; `window` chunks at most wait for the client.
    static let chunkBytes = 64 << 10
    static let window = 4

    private let msg: OpaquePointer
    private var finishedHandler: UInt = 0
    private var wroteChunkHandler: UInt = 0
    /// The origin request until its head arrived.
    var fetch: SoupClient.Request?
    private var stream: OriginStream?
    private var flow = StreamFlow(window: ProxyExchange.window)
    /// libsoup finished the message: nothing may touch it any more.
    private(set) var finished = false

    /// Pauses `msg` until the exchange answers it.
    init(_ msg: OpaquePointer) {
        self.msg = msg
        g_object_ref(UnsafeMutableRawPointer(msg))
        soup_server_message_pause(msg)
        // The handler keeps the exchange alive until the message is finished.
        finishedHandler = connectFinished(onServerThread: msg) { [self] in
            finished = true
            fetch?.cancel()
            stream?.cancel()
            stream = nil
            if wroteChunkHandler != 0 { g_signal_handler_disconnect(UnsafeMutableRawPointer(msg), wroteChunkHandler) }
            g_signal_handler_disconnect(UnsafeMutableRawPointer(msg), finishedHandler)
            g_object_unref(UnsafeMutableRawPointer(msg))
        }
    }

    /// Answers with `status` and no body (the origin refused, or could not be reached).
    func fail(status: Int) {
        guard !finished else { return }
        stream = nil
        soup_server_message_set_status(msg, UInt32(status), nil)
        soup_server_message_unpause(msg)
    }

    /// Answers from the origin's response: `rewrite(text, base)` is a playlist's text as the
    /// client gets it.
    func answer(from stream: OriginStream, rewritingPlaylist rewrite: @escaping (String, URL) -> String) {
        guard !finished else { return stream.cancel() }
        self.stream = stream
        sniff(stream, read: [], bytes: [], rewrite: rewrite)
    }

    /// Reads until the body is known to be a playlist or not (no read when the type says).
    private func sniff(_ stream: OriginStream, read chunks: [BodyChunk], bytes: [UInt8],
                       rewrite: @escaping (String, URL) -> String) {
        switch ProxiedBody.kind(mediaType: stream.head.mediaType, prefix: bytes, complete: false) {
        case .playlist:
            collectPlaylist(stream, body: Data(bytes), rewrite: rewrite)
        case .passThrough:
            pass(stream.head, prefilled: chunks, ended: false)
        case .undecided:
            readNext(stream) { [self] chunk in
                guard let chunk else {
                    // The whole body is in, and shorter than the tag.
                    return pass(stream.head, prefilled: chunks, ended: true)
                }
                sniff(stream, read: chunks + [chunk], bytes: bytes + chunk.data, rewrite: rewrite)
            }
        }
    }

    /// A playlist: read whole (playlists are small; the cap guards against a mislabelled
    /// file), rewritten, answered in one piece.
    private func collectPlaylist(_ stream: OriginStream, body: Data, rewrite: @escaping (String, URL) -> String) {
        readNext(stream) { [self] chunk in
            guard let chunk else { return respondWithPlaylist(stream.head, body: body, rewrite: rewrite) }
            guard body.count + chunk.count <= SoupClient.maxBodyBytes else { return fail(status: 502) }
            collectPlaylist(stream, body: body + chunk.data, rewrite: rewrite)
        }
    }

    /// Reads the next chunk before the body is answered: `then(nil)` at the body's end; a
    /// failed read answers 502; nothing once the client went away.
    private func readNext(_ stream: OriginStream, then: @escaping (BodyChunk?) -> Void) {
        stream.read(maxBytes: Self.chunkBytes) { [self] result in
            guard !finished else { return }
            switch result {
            case .failure: fail(status: 502)
            case .success(let chunk): then(chunk.count == 0 ? nil : chunk)
            }
        }
    }

    private func respondWithPlaylist(_ head: ResponseHead, body: Data, rewrite: (String, URL) -> String) {
        var body = body
        var type = head.contentType ?? "application/octet-stream"
        if let text = String(data: body, encoding: .utf8), let base = URL(string: head.finalURL) {
            body = Data(rewrite(text, base).utf8)
            type = "application/vnd.apple.mpegurl"
        }
        soup_server_message_set_status(msg, UInt32(head.status), nil)
        if let range = head.contentRange {
            soup_message_headers_replace(soup_server_message_get_response_headers(msg), "Content-Range", range)
        }
        body.withUnsafeBytes { bytes in
            soup_server_message_set_response(msg, type, SOUP_MEMORY_COPY,
                                             bytes.baseAddress?.assumingMemoryBound(to: CChar.self), UInt(bytes.count))
        }
        stream = nil  // the origin connection closes now
        soup_server_message_unpause(msg)
    }

    /// Anything else: the head now, the body as it comes.
    private func pass(_ head: ResponseHead, prefilled chunks: [BodyChunk], ended: Bool) {
        soup_server_message_set_status(msg, UInt32(head.status), nil)
        let headers = soup_server_message_get_response_headers(msg)
        if let type = head.contentType { soup_message_headers_replace(headers, "Content-Type", type) }
        if let range = head.contentRange { soup_message_headers_replace(headers, "Content-Range", range) }
        if let ranges = head.acceptRanges { soup_message_headers_replace(headers, "Accept-Ranges", ranges) }
        if let length = head.contentLength {
            soup_message_headers_set_content_length(headers, goffset(length))
        } else {
            soup_message_headers_set_encoding(headers, SOUP_ENCODING_CHUNKED)
        }
        // Written chunks are dropped, not kept for the whole body (libsoup's default).
        let body = soup_server_message_get_response_body(msg)
        soup_message_body_set_accumulate(body, 0)
        for chunk in chunks { soup_message_body_append_bytes(body, chunk.bytes) }
        wroteChunkHandler = connectWroteChunk(msg) { [unowned self] in
            guard !finished else { return }
            perform(flow.wroteChunk(), chunk: nil)
        }
        perform(flow.start(prefilled: chunks.count, ended: ended), chunk: nil)
        soup_server_message_unpause(msg)
    }

    private func perform(_ actions: [StreamFlow.Action], chunk: BodyChunk?) {
        let body = soup_server_message_get_response_body(msg)
        for action in actions {
            switch action {
            case .read:
                stream?.read(maxBytes: Self.chunkBytes) { [self] result in
                    guard !finished else { return }
                    switch result {
                    case .success(let chunk) where chunk.count == 0:
                        perform(flow.readFinished(.end), chunk: nil)
                    case .success(let chunk):
                        perform(flow.readFinished(.chunk), chunk: chunk)
                    case .failure:
                        perform(flow.readFinished(.failure), chunk: nil)
                    }
                }
            case .append:
                if let chunk { soup_message_body_append_bytes(body, chunk.bytes) }
                soup_server_message_unpause(msg)
            case .complete:
                stream = nil
                soup_message_body_complete(body)
                soup_server_message_unpause(msg)
            case .abort:
                // Ending the body cleanly would pass a cut file off as whole (a chunked
                // response has no length to fall short of): the connection is shut down
                // first, so the client reads a short body or an error and asks again
                // (souphttpsrc with a Range), and libsoup finishes the message.
                stream = nil
                if let socket = soup_server_message_get_socket(msg) {
                    g_socket_shutdown(socket, 1, 1, nil)
                }
                soup_message_body_complete(body)
                soup_server_message_unpause(msg)
            }
        }
    }
}

/// Calls `action` on the server's thread each time libsoup wrote one body chunk of
/// `message` to the client's socket. Returns the handler id.
private func connectWroteChunk(_ message: OpaquePointer, _ action: @escaping () -> Void) -> UInt {
    typealias WroteChunkCallback = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void
    let onWrote: WroteChunkCallback = { _, data in
        Unmanaged<SignalAction>.fromOpaque(data!).takeUnretainedValue().action()
    }
    return csoup_signal_connect(UnsafeMutableRawPointer(message), "wrote-chunk", unsafeBitCast(onWrote, to: GCallback.self),
                                Unmanaged.passRetained(SignalAction(action)).toOpaque(),
                                { data, _ in Unmanaged<SignalAction>.fromOpaque(data!).release() })
}

private final class SignalAction {
    let action: () -> Void
    init(_ action: @escaping () -> Void) { self.action = action }
}
