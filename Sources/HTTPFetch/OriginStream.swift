import CSoup
import FoundationEssentials
import TextSupport

/// What an origin answered before its body: enough to pass the response on.
public struct ResponseHead: Sendable {
    public var status: Int
    /// The media type without parameters, lowercased ("video/mp4"); nil when not sent.
    public var mediaType: String?
    /// Content-Type as sent, parameters included: passed on unchanged.
    public var contentType: String?
    /// How many bytes the body stream delivers, when known: the Content-Length of a body
    /// that is not content-encoded (libsoup decodes gzip and deflate, which changes it).
    public var contentLength: Int64?
    public var contentRange: String?
    public var acceptRanges: String?
    /// The URL after redirects: relative URIs in a playlist resolve against it.
    public var finalURL: String
}

/// One body chunk as libsoup read it (a GBytes reference): handed to a server message
/// without a copy. The client's thread only.
public final class BodyChunk {
    let bytes: OpaquePointer
    init(taking bytes: OpaquePointer) { self.bytes = bytes }
    deinit { g_bytes_unref(bytes) }
    public var count: Int { Int(g_bytes_get_size(bytes)) }
    public var data: Data {
        var size = 0
        guard let pointer = g_bytes_get_data(bytes, &size), size > 0 else { return Data() }
        return Data(bytes: pointer, count: size)
    }
}

/// A response whose body is read chunk by chunk, when the reader asks: nothing is read
/// ahead, so a slow reader holds the origin back through TCP instead of filling memory.
/// The client's thread only; dropping it (or `cancel()`) closes the origin connection.
public final class OriginStream {
    public let head: ResponseHead
    private let message: OpaquePointer
    private let input: UnsafeMutablePointer<GInputStream>
    private let request: SoupClient.Request

    init(head: ResponseHead, message: OpaquePointer, input: UnsafeMutablePointer<GInputStream>, request: SoupClient.Request) {
        self.head = head
        self.message = message
        self.input = input
        self.request = request
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(input))
        g_object_unref(UnsafeMutableRawPointer(message))
    }

    /// Reads up to `maxBytes`. `completion` runs once, on the client's thread, never inline:
    /// an empty chunk at the end of the body, a failure when the origin broke off (or on
    /// `cancel()`). One read at a time.
    public func read(maxBytes: Int, completion: @escaping (Result<BodyChunk, FetchError>) -> Void) {
        let pending = PendingRead(stream: self, completion: completion)
        g_input_stream_read_bytes_async(input, gsize(maxBytes), G_PRIORITY_DEFAULT, request.cancellable, { source, result, data in
            let pending = Unmanaged<PendingRead>.fromOpaque(data!).takeRetainedValue()
            var error: UnsafeMutablePointer<GError>? = nil
            let bytes = g_input_stream_read_bytes_finish(UnsafeMutableRawPointer(source)?.assumingMemoryBound(to: GInputStream.self), result, &error)
            if let bytes {
                pending.completion(.success(BodyChunk(taking: bytes)))
            } else {
                let text = error?.pointee.message.map { String(cString: $0) } ?? "the body could not be read"
                if let error { g_error_free(error) }
                pending.completion(.failure(FetchError(message: text, status: pending.stream.head.status)))
            }
        }, Unmanaged.passRetained(pending).toOpaque())
    }

    /// Stops the read in flight (its completion reports a failure); later reads fail at once.
    public func cancel() { request.cancel() }
}

/// A read in flight: keeps its stream alive until the callback.
private final class PendingRead {
    let stream: OriginStream
    let completion: (Result<BodyChunk, FetchError>) -> Void
    init(stream: OriginStream, completion: @escaping (Result<BodyChunk, FetchError>) -> Void) {
        self.stream = stream
        self.completion = completion
    }
}

extension SoupClient {
    /// GETs `url` with extra `headers` (validated by the caller: no CR/LF) and completes once
    /// the response head arrived, with the body still to read (`OriginStream`). Any status
    /// outside 2xx is a failure with `status` (its body is dropped). `completion` runs once,
    /// on the client's thread, never inline; `Request.cancel()` stops it until then.
    public func open(_ url: String, headers: [String: String],
                     completion: @escaping (Result<OriginStream, FetchError>) -> Void) -> Request {
        let request = Request()
        guard let message = soup_message_new("GET", url) else {
            let failure = FetchError(message: "not a valid URL: \(url)")
            completeLater { completion(.failure(failure)) }
            return request
        }
        addHeaders(headers, to: message)
        let pending = PendingOpen(message: message, url: url, request: request, completion: completion)
        soup_session_send_async(session, message, G_PRIORITY_DEFAULT, request.cancellable, { source, result, data in
            let pending = Unmanaged<PendingOpen>.fromOpaque(data!).takeRetainedValue()
            var error: UnsafeMutablePointer<GError>? = nil
            let input = soup_session_send_finish(UnsafeMutableRawPointer(source)?.assumingMemoryBound(to: SoupSession.self), result, &error)
            pending.finish(input: input, error: error)
            if let error { g_error_free(error) }
        }, Unmanaged.passRetained(pending).toOpaque())
        return request
    }
}

/// An open in flight: owns the message until the head arrived.
private final class PendingOpen {
    let message: OpaquePointer
    let url: String
    let request: SoupClient.Request
    let completion: (Result<OriginStream, FetchError>) -> Void

    init(message: OpaquePointer, url: String, request: SoupClient.Request,
         completion: @escaping (Result<OriginStream, FetchError>) -> Void) {
        self.message = message
        self.url = url
        self.request = request
        self.completion = completion
    }

    func finish(input: UnsafeMutablePointer<GInputStream>?, error: UnsafeMutablePointer<GError>?) {
        let status = Int(soup_message_get_status(message).rawValue)
        guard let input else {
            g_object_unref(UnsafeMutableRawPointer(message))
            let text = error?.pointee.message.map { String(cString: $0) } ?? "request failed"
            return completion(.failure(FetchError(message: text, status: status == 0 ? nil : status)))
        }
        guard (200..<300).contains(status) else {
            g_object_unref(UnsafeMutableRawPointer(input))
            g_object_unref(UnsafeMutableRawPointer(message))
            return completion(.failure(FetchError(message: "the server answered \(status) for \(url)", status: status)))
        }
        let headers = soup_message_get_response_headers(message)
        func header(_ name: String) -> String? { soup_message_headers_get_one(headers, name).map { String(cString: $0) } }
        let encoded = header("Content-Encoding").map { $0.trimmingHorizontalWhitespace().lowercased() != "identity" } ?? false
        let length: Int64? = !encoded && soup_message_headers_get_encoding(headers) == SOUP_ENCODING_CONTENT_LENGTH
            ? Int64(soup_message_headers_get_content_length(headers)) : nil
        let finalURL = soup_message_get_uri(message).flatMap { g_uri_to_string($0) }.map { p -> String in
            defer { g_free(p) }
            return String(cString: p)
        } ?? url
        let head = ResponseHead(
            status: status,
            mediaType: soup_message_headers_get_content_type(headers, nil).map { String(cString: $0).lowercased() },
            contentType: header("Content-Type"), contentLength: length,
            contentRange: header("Content-Range"), acceptRanges: header("Accept-Ranges"), finalURL: finalURL)
        completion(.success(OriginStream(head: head, message: message, input: input, request: request)))
    }
}

extension OriginStream {
    /// Reads the body whole when it is an HLS playlist (by type, else by its first bytes:
    /// `ProxiedBody`), at most `SoupClient.maxBodyBytes`; any other body only until that is
    /// known (its first bytes come back), so a progressive file is not downloaded to be told
    /// apart from a playlist. `completion` runs once, on the client's thread.
    public func readIfPlaylist(completion: @escaping (Result<FetchedResource, FetchError>) -> Void) {
        readIfPlaylist(body: [], decided: false, completion: completion)
    }

    private func readIfPlaylist(body: [UInt8], decided playlist: Bool, completion: @escaping (Result<FetchedResource, FetchError>) -> Void) {
        func resource(_ body: [UInt8]) -> FetchedResource {
            FetchedResource(status: head.status, contentType: head.contentType, body: Data(body), finalURL: head.finalURL,
                            contentRange: head.contentRange)
        }
        if !playlist {
            switch ProxiedBody.kind(mediaType: head.mediaType, prefix: body, complete: false) {
            case .passThrough:
                cancel()
                return completion(.success(resource(body)))
            case .playlist:
                return readIfPlaylist(body: body, decided: true, completion: completion)
            case .undecided:
                break
            }
        }
        read(maxBytes: 64 << 10) { [self] result in
            switch result {
            case .failure(let failure):
                completion(.failure(failure))
            case .success(let chunk) where chunk.count == 0:
                completion(.success(resource(body)))
            case .success(let chunk):
                guard body.count + chunk.count <= SoupClient.maxBodyBytes else {
                    return completion(.failure(FetchError(message: "\(head.finalURL) is larger than \(SoupClient.maxBodyBytes) bytes",
                                                          status: head.status)))
                }
                readIfPlaylist(body: body + chunk.data, decided: playlist, completion: completion)
            }
        }
    }
}

extension OriginStream {
    /// Reads the body to its end, at most `maxBytes`: a Content-Length above it is refused
    /// before any read, a body that grows past it as soon as it does (`FetchError.tooLarge`,
    /// the connection closed). `completion` runs once, on the client's thread.
    public func readWhole(upTo maxBytes: Int, completion: @escaping (Result<FetchedResource, FetchError>) -> Void) {
        if let length = head.contentLength, length > Int64(maxBytes) {
            cancel()
            return completion(.failure(tooLarge(maxBytes)))
        }
        readWhole(into: BodyBuffer(), upTo: maxBytes, completion: completion)
    }

    private func readWhole(into body: BodyBuffer, upTo maxBytes: Int, completion: @escaping (Result<FetchedResource, FetchError>) -> Void) {
        read(maxBytes: 64 << 10) { [self] result in
            switch result {
            case .failure(let failure):
                completion(.failure(failure))
            case .success(let chunk) where chunk.count == 0:
                completion(.success(FetchedResource(status: head.status, contentType: head.contentType, body: body.data,
                                                    finalURL: head.finalURL, contentRange: head.contentRange)))
            case .success(let chunk):
                guard body.data.count + chunk.count <= maxBytes else {
                    cancel()
                    return completion(.failure(tooLarge(maxBytes)))
                }
                body.data.append(chunk.data)
                readWhole(into: body, upTo: maxBytes, completion: completion)
            }
        }
    }

    private func tooLarge(_ maxBytes: Int) -> FetchError {
        var failure = FetchError(message: "\(head.finalURL) is larger than \(maxBytes) bytes", status: head.status)
        failure.tooLarge = true
        return failure
    }
}

/// The body read so far, appended in place (a `Data` passed along would be copied per chunk).
private final class BodyBuffer {
    var data = Data()
}
