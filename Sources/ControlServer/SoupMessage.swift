import CSoup
import ControlAPI
import FoundationEssentials

/// A borrowed SoupServerMessage with the few accessors the server uses. Valid only while
/// libsoup is processing the message (inside a handler, or while paused and referenced).
/// GLib thread only.
struct SoupMessage {
    let raw: OpaquePointer

    var method: String { soup_server_message_get_method(raw).map { String(cString: $0) } ?? "GET" }

    var path: String {
        guard let uri = soup_server_message_get_uri(raw), let p = g_uri_get_path(uri) else { return "/" }
        return String(cString: p)
    }

    func requestHeader(_ name: String) -> String? {
        soup_message_headers_get_one(soup_server_message_get_request_headers(raw), name).map { String(cString: $0) }
    }

    /// Bytes and count of the request's headers (see the server's header limits).
    var requestHeaderTally: (bytes: Int, count: Int) {
        let tally = csoup_headers_tally(soup_server_message_get_request_headers(raw))
        return (Int(tally.bytes), Int(tally.count))
    }

    /// Sets a response header ahead of the reply (kept by `respond`).
    func setResponseHeader(_ name: String, _ value: String) {
        soup_message_headers_replace(soup_server_message_get_response_headers(raw), name, value)
    }

    /// The declared body length, or nil without a Content-Length header.
    var declaredContentLength: Int? {
        let headers = soup_server_message_get_request_headers(raw)
        guard soup_message_headers_get_encoding(headers) == SOUP_ENCODING_CONTENT_LENGTH else { return nil }
        return Int(soup_message_headers_get_content_length(headers))
    }

    var requestBody: Data {
        guard let body = soup_server_message_get_request_body(raw), let data = body.pointee.data, body.pointee.length > 0 else {
            return Data()
        }
        return Data(bytes: data, count: Int(body.pointee.length))
    }

    var socketFD: Int32 {
        guard let socket = soup_server_message_get_socket(raw) else { return -1 }
        return g_socket_get_fd(socket)
    }

    func respond(status: Int, contentType: String, body: Data, headers: [String: String] = [:]) {
        let responseHeaders = soup_server_message_get_response_headers(raw)
        for (name, value) in headers { soup_message_headers_replace(responseHeaders, name, value) }
        // libsoup knows no reason phrase for 431 and would send "Unknown Error".
        soup_server_message_set_status(raw, UInt32(status), status == 431 ? "Request Header Fields Too Large" : nil)
        body.withUnsafeBytes { bytes in
            soup_server_message_set_response(raw, contentType, SOUP_MEMORY_COPY,
                                             bytes.baseAddress?.assumingMemoryBound(to: CChar.self), UInt(bytes.count))
        }
    }

    func respondJSON<T: Encodable>(status: Int, _ value: T, headers: [String: String] = [:]) {
        var body = JSONCoding.encode(value)
        body.append(0x0A)  // a trailing newline keeps curl output tidy in a terminal
        respond(status: status, contentType: "application/json", body: body, headers: headers)
    }

    func respondError(_ error: APIError, headers: [String: String] = [:]) {
        respondJSON(status: error.httpStatus, ErrorReply(error), headers: headers)
    }

    func pause() { soup_server_message_pause(raw) }
    func unpause() { soup_server_message_unpause(raw) }
}

/// Looks up one query parameter in libsoup's decoded form table.
func queryValue(_ table: OpaquePointer?, _ key: String) -> String? {
    guard let table else { return nil }
    return key.withCString { k in
        g_hash_table_lookup(table, k).map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
    }
}
