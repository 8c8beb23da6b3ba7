import FoundationEssentials

/// A complete HTTP response.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Header names are lowercased; repeated headers are joined with ", ".
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of header `name`, in any case.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The body decoded as UTF-8 (invalid bytes become U+FFFD).
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// True for 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The body parsed into a `JSONTree`: [String: Any], [Any], String, Bool, Int, Double or JSONNull.
    public func jsonTree() throws -> Any {
        do {
            return try JSONTree.parse(body)
        } catch {
            throw ClientError.protocolError("response body is not JSON: \(text.prefix(200))")
        }
    }

    /// Returns self for a 2xx response, else throws `ClientError.http(status:body:)`; lets a
    /// caller that needs success write `try client.get(path).requireSuccess().jsonTree()`.
    @discardableResult
    public func requireSuccess() throws -> HTTPResponse {
        guard isSuccess else { throw ClientError.http(status: status, body: body) }
        return self
    }
}

/// A minimal HTTP/1.1 client for the Marquee daemon.
///
/// Blocking: each call connects, sends one request with `Connection: close`, reads the whole
/// response and closes, all on the calling thread within `timeout` seconds. The value holds no
/// connection or other mutable state, so calls made from different threads do not interfere.
/// An HTTP error status is a response, not an error; see `HTTPResponse.requireSuccess()`.
public struct HTTPClient: Sendable {
    /// For example "http://127.0.0.1:8080" or "http://[::1]:8080"; a path here prefixes every request.
    public let baseURL: String
    /// When set, sent as `Authorization: Bearer <token>`.
    public let token: String?
    /// Seconds allowed for a whole request: connect, send and read the complete response.
    /// Give `?wait=...&timeout=S` requests more than S.
    public var timeout: Double

    public init(baseURL: String, token: String? = nil, timeout: Double = 10) {
        self.baseURL = baseURL
        self.token = token
        self.timeout = timeout
    }

    /// Sends `method pathAndQuery` with `body` (sent with Content-Length) and returns the response,
    /// whatever its status. `headers` override the defaults. `timeout` overrides `self.timeout`.
    public func request(_ method: String, _ pathAndQuery: String, body: Data? = nil,
                        headers: [String: String] = [:], timeout: Double? = nil) throws -> HTTPResponse {
        let endpoint = try Endpoint(baseURL: baseURL)
        let target = try endpoint.target(pathAndQuery)
        let deadline = Deadline(timeout: timeout ?? self.timeout)

        var fields: [(String, String)] = [
            ("Host", endpoint.hostHeader),
            ("User-Agent", "marquee-client"),
            ("Accept", "application/json, */*"),
            ("Connection", "close"),
        ]
        if let token { fields.append(("Authorization", "Bearer \(token)")) }
        // Methods that carry a body get an explicit length even when empty: some servers answer
        // 411 to a bodiless POST without one.
        if body != nil || ["POST", "PUT", "PATCH"].contains(method) {
            fields.append(("Content-Length", String(body?.count ?? 0)))
        }
        // Sorted so the request bytes do not depend on dictionary order.
        for name in headers.keys.sorted() { fields.append((name, headers[name]!)) }

        var bytes = try RequestHead.serialize(method: method, target: target, headers: fields)
        if let body { bytes += body }

        let conn = try TCPConnection(host: endpoint.host, port: endpoint.port, deadline: deadline)
        defer { conn.close() }
        do {
            try conn.write(bytes, deadline: deadline)
        } catch ClientError.closed {
            // The server may answer and close before reading a body it rejects (401, 413);
            // that answer is worth more than the write error.
        }
        let head = try ResponseHead.read(from: conn, deadline: deadline)
        if head.status == 101 {
            throw ClientError.protocolError("unexpected 101 Switching Protocols")
        }
        var decoder = BodyDecoder(try BodyFraming(head: head, requestMethod: method))
        let responseBody = try decoder.readAll(from: conn, deadline: deadline)
        return HTTPResponse(status: head.status, headers: head.headers, body: Data(responseBody))
    }

    public func get(_ pathAndQuery: String, headers: [String: String] = [:]) throws -> HTTPResponse {
        try request("GET", pathAndQuery, headers: headers)
    }

    /// POST with `json` as an `application/json` body, or no body when nil.
    public func post(_ pathAndQuery: String, json: [String: Any]? = nil) throws -> HTTPResponse {
        try send("POST", pathAndQuery, json: json)
    }

    public func patch(_ pathAndQuery: String, json: [String: Any]?) throws -> HTTPResponse {
        try send("PATCH", pathAndQuery, json: json)
    }

    public func put(_ pathAndQuery: String, json: [String: Any]?) throws -> HTTPResponse {
        try send("PUT", pathAndQuery, json: json)
    }

    public func delete(_ pathAndQuery: String) throws -> HTTPResponse {
        try request("DELETE", pathAndQuery)
    }

    private func send(_ method: String, _ pathAndQuery: String, json: [String: Any]?) throws -> HTTPResponse {
        guard let json else { return try request(method, pathAndQuery) }
        return try request(method, pathAndQuery, body: try HTTPClient.encodeJSON(json),
                           headers: ["Content-Type": "application/json"])
    }

    /// An `Any` tree as JSON, with sorted keys and unescaped slashes.
    static func encodeJSON(_ object: Any) throws -> Data {
        guard let value = JSONTree.value(object) else {
            throw ClientError.protocolError("value is not JSON-serializable")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }
}
