import FoundationEssentials

/// One Server-Sent Event.
public struct SSEEvent: Equatable, Sendable {
    /// The `event:` field, nil when the server sent none (the spec's default type "message").
    public var event: String?
    /// The `id:` field of this event, nil when it had none. `SSEClient.lastEventID` keeps the
    /// most recent one across events.
    public var id: String?
    /// The `data:` lines joined with "\n".
    public var data: String

    public init(event: String? = nil, id: String? = nil, data: String) {
        self.event = event
        self.id = id
        self.data = data
    }

    /// `data` parsed into a `JSONTree` (Marquee sends `{"seq", "type", "data"}`).
    public func jsonTree() throws -> Any {
        do {
            return try JSONTree.parse(Data(data.utf8))
        } catch {
            throw ClientError.protocolError("event data is not JSON: \(data.prefix(200))")
        }
    }
}

/// A Server-Sent Events client (`GET` with `Accept: text/event-stream`), for `/v1/events`.
///
/// Blocking: `connect` and `next` wait on the calling thread up to their timeouts. Not
/// thread-safe: use an instance from one thread at a time (`close` included).
public final class SSEClient {
    public let baseURL: String
    public let token: String?
    /// The latest `id:` received, kept across events as the SSE spec does.
    public private(set) var lastEventID: String?

    private var conn: TCPConnection?
    private var body = BodyDecoder(.none)
    private var ended = false

    // Parser state lives in the instance so a `next` that times out mid-event resumes cleanly.
    private var pending: [UInt8] = []
    private var scanFrom = 0
    /// A CR ended the last line; an LF right after it belongs to the same line break.
    private var skipLF = false
    private var atStreamStart = true
    private var eventType: String?
    private var eventID: String?
    private var dataLines: [String] = []
    private var hasData = false

    public init(baseURL: String, token: String? = nil) {
        self.baseURL = baseURL
        self.token = token
    }

    deinit { close() }

    /// Opens the stream: sends the request and reads the response head. Throws
    /// `ClientError.http(status:body:)` for a non-2xx answer and `.protocolError` for a 2xx
    /// answer that is not `text/event-stream`. A previous stream is closed first.
    public func connect(path: String = "/v1/events", timeout: Double = 10) throws {
        close()
        let endpoint = try Endpoint(baseURL: baseURL)
        let deadline = Deadline(timeout: timeout)
        var fields: [(String, String)] = [
            ("Host", endpoint.hostHeader),
            ("User-Agent", "marquee-client"),
            ("Accept", "text/event-stream"),
            ("Cache-Control", "no-cache"),
            ("Connection", "close"),
        ]
        if let token { fields.append(("Authorization", "Bearer \(token)")) }
        let request = try RequestHead.serialize(method: "GET", target: try endpoint.target(path), headers: fields)

        let conn = try TCPConnection(host: endpoint.host, port: endpoint.port, deadline: deadline)
        do {
            try conn.write(request, deadline: deadline)
            let head = try ResponseHead.read(from: conn, deadline: deadline)
            var decoder = BodyDecoder(try BodyFraming(head: head, requestMethod: "GET"))
            guard (200..<300).contains(head.status) else {
                throw ClientError.http(status: head.status, body: Data(decoder.readAllLeniently(from: conn, deadline: deadline)))
            }
            let type = head.headers["content-type"]?.lowercased() ?? ""
            guard type.hasPrefix("text/event-stream") else {
                throw ClientError.protocolError("expected text/event-stream, got '\(type)'")
            }
            self.conn = conn
            self.body = decoder
        } catch {
            conn.close()
            throw error
        }
    }

    /// The next event, waiting up to `timeout` seconds. Returns nil when the stream has ended
    /// cleanly (an unfinished event at the end is dropped, as the spec says); throws `.timeout`
    /// when nothing complete arrived in time (calling again continues the same stream), and
    /// `.closed` if the connection broke mid-chunk or was never opened.
    public func next(timeout: Double) throws -> SSEEvent? {
        let deadline = Deadline(timeout: timeout)
        while true {
            while let line = nextLine() {
                if let event = process(line) { return event }
            }
            if ended { return nil }
            guard let conn else { throw ClientError.closed }
            guard let bytes = try body.readSome(from: conn, deadline: deadline) else {
                ended = true
                conn.close()
                self.conn = nil
                return nil
            }
            pending += bytes
            if pending.count - scanFrom > 16 * 1024 * 1024 {
                throw ClientError.protocolError("event line longer than 16 MiB")
            }
        }
    }

    /// Closes the connection; `next` then throws `.closed`. Idempotent.
    public func close() {
        conn?.close()
        conn = nil
        body = BodyDecoder(.none)
        ended = false
        pending.removeAll()
        scanFrom = 0
        skipLF = false
        atStreamStart = true
        resetEvent()
    }

    // MARK: - Private

    /// Splits off one line ended by CR LF, LF or CR, as the SSE grammar allows all three.
    private func nextLine() -> [UInt8]? {
        if skipLF, let first = pending.first {
            if first == 0x0A {
                pending.removeFirst()
                scanFrom = 0
            }
            skipLF = false
        }
        if atStreamStart && pending.count >= 3 {
            if pending[0] == 0xEF && pending[1] == 0xBB && pending[2] == 0xBF {
                pending.removeFirst(3)
                scanFrom = 0
            }
            atStreamStart = false
        }
        guard let end = pending[scanFrom...].firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) else {
            scanFrom = pending.count
            return nil
        }
        // A byte-order mark can only be checked once three bytes are in; a line shorter than that
        // cannot start with one.
        atStreamStart = false
        let line = Array(pending[0..<end])
        skipLF = pending[end] == 0x0D
        pending.removeFirst(end + 1)
        scanFrom = 0
        return line
    }

    private func process(_ lineBytes: [UInt8]) -> SSEEvent? {
        if lineBytes.isEmpty {
            defer { resetEvent() }
            guard hasData else { return nil }
            return SSEEvent(event: eventType, id: eventID, data: dataLines.joined(separator: "\n"))
        }
        if lineBytes[0] == UInt8(ascii: ":") { return nil }  // comment / keepalive

        let line = String(decoding: lineBytes, as: UTF8.self)
        let field: Substring
        var value: Substring
        if let colon = line.firstIndex(of: ":") {
            field = line[..<colon]
            value = line[line.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
        } else {
            field = Substring(line)
            value = ""
        }
        switch field {
        case "event":
            eventType = String(value)
        case "data":
            dataLines.append(String(value))
            hasData = true
        case "id":
            if !value.contains("\0") {
                eventID = String(value)
                lastEventID = String(value)
            }
        default:
            break  // "retry" and unknown fields: nothing for a client that does not reconnect
        }
        return nil
    }

    private func resetEvent() {
        eventType = nil
        eventID = nil
        dataLines = []
        hasData = false
    }
}
