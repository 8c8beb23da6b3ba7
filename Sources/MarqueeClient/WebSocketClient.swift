import FoundationEssentials

/// A complete (reassembled) WebSocket data message.
public enum WebSocketMessage: Equatable, Sendable {
    case text(String)
    case binary(Data)
}

/// An RFC 6455 WebSocket client, for `/v1/events`.
///
/// Blocking: `connect`, `send`, `receive` and `close` wait on the calling thread up to their
/// timeouts. Not thread-safe: use an instance from one thread at a time; in particular do not
/// `send` from one thread while another is in `receive`.
public final class WebSocketClient {
    /// The GUID that RFC 6455 section 1.3 appends to the key before hashing.
    static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
    /// Larger messages are refused rather than buffered: Marquee's events are a few KiB.
    static let maxMessageSize = 64 * 1024 * 1024

    public let baseURL: String
    /// When set, sent as `?token=` (how the API lets WebSockets authenticate).
    public let token: String?
    /// The status code and reason of the close frame that ended the connection, from either side.
    public private(set) var closeCode: UInt16?
    public private(set) var closeReason: String?

    private var conn: TCPConnection?
    private var closeSent = false
    private var fragmentOpcode: UInt8?
    private var fragments: [UInt8] = []

    public init(baseURL: String, token: String? = nil) {
        self.baseURL = baseURL
        self.token = token
    }

    deinit { conn?.close() }

    public var isOpen: Bool { conn != nil }

    /// `Sec-WebSocket-Accept` for a `Sec-WebSocket-Key`: base64(SHA-1(key + GUID)).
    public static func acceptValue(forKey key: String) -> String {
        Data(SHA1.digest(key + acceptGUID)).base64EncodedString()
    }

    /// Performs the opening handshake. Throws `ClientError.http(status:body:)` when the server
    /// answers with something other than 101, and `.protocolError` when the 101 is not a valid
    /// WebSocket upgrade. A previous connection is dropped first.
    public func connect(path: String = "/v1/events", timeout: Double = 10) throws {
        conn?.close()
        conn = nil
        closeSent = false
        closeCode = nil
        closeReason = nil
        fragmentOpcode = nil
        fragments = []

        let endpoint = try Endpoint(baseURL: baseURL)
        let deadline = Deadline(timeout: timeout)
        var target = try endpoint.target(path)
        if let token {
            target += (target.contains("?") ? "&" : "?") + "token=" + percentEncode(token)
        }
        var keyBytes = [UInt8](repeating: 0, count: 16)
        var rng = SystemRandomNumberGenerator()
        for i in keyBytes.indices { keyBytes[i] = rng.next() }
        let key = Data(keyBytes).base64EncodedString()

        let request = try RequestHead.serialize(method: "GET", target: target, headers: [
            ("Host", endpoint.hostHeader),
            ("User-Agent", "marquee-client"),
            ("Upgrade", "websocket"),
            ("Connection", "Upgrade"),
            ("Sec-WebSocket-Key", key),
            ("Sec-WebSocket-Version", "13"),
        ])

        let conn = try TCPConnection(host: endpoint.host, port: endpoint.port, deadline: deadline)
        do {
            try conn.write(request, deadline: deadline)
            let head = try ResponseHead.read(from: conn, deadline: deadline)
            guard head.status == 101 else {
                var decoder = BodyDecoder(try BodyFraming(head: head, requestMethod: "GET"))
                throw ClientError.http(status: head.status, body: Data(decoder.readAllLeniently(from: conn, deadline: deadline)))
            }
            guard head.headers["upgrade"]?.lowercased() == "websocket" else {
                throw ClientError.protocolError("101 without Upgrade: websocket")
            }
            let connectionTokens = (head.headers["connection"] ?? "").lowercased()
                .split(separator: ",").map { String($0).trimmingSpaces() }
            guard connectionTokens.contains("upgrade") else {
                throw ClientError.protocolError("101 without Connection: Upgrade")
            }
            guard head.headers["sec-websocket-accept"] == WebSocketClient.acceptValue(forKey: key) else {
                throw ClientError.protocolError("wrong Sec-WebSocket-Accept")
            }
            // Whatever the server sent after the head is already in conn's buffer, where the
            // frame parser starts reading: a first frame sent together with the 101 is not lost.
            self.conn = conn
        } catch {
            conn.close()
            throw error
        }
    }

    /// Sends one text message in a single masked frame.
    public func send(text: String, timeout: Double = 10) throws {
        try sendFrame(opcode: 0x1, payload: Array(text.utf8), deadline: Deadline(timeout: timeout))
    }

    /// Sends one binary message in a single masked frame.
    public func send(binary: Data, timeout: Double = 10) throws {
        try sendFrame(opcode: 0x2, payload: Array(binary), deadline: Deadline(timeout: timeout))
    }

    /// Sends `object` as a JSON text message, such as a command
    /// `["id": 7, "command": "seek", "args": ["position": 12.5]]`.
    public func send(json object: [String: Any], timeout: Double = 10) throws {
        let data = try HTTPClient.encodeJSON(object)
        try send(text: String(decoding: data, as: UTF8.self), timeout: timeout)
    }

    /// The next data message, waiting up to `timeout` seconds. Pings are answered with pongs and
    /// pongs ignored on the way. Returns nil once the server has closed with a close frame
    /// (answered, then the socket is closed; see `closeCode`); throws `.closed` if the
    /// connection ended without one or was never opened, `.timeout` if no complete message
    /// arrived in time (calling again continues where it stopped), `.protocolError` for frames
    /// that break RFC 6455.
    public func receive(timeout: Double) throws -> WebSocketMessage? {
        let deadline = Deadline(timeout: timeout)
        while true {
            guard let conn else {
                if closeCode != nil || closeSent { return nil }
                throw ClientError.closed
            }
            let parsed: Frame?
            do {
                parsed = try parseFrame(from: conn)
            } catch {
                // RFC 6455 7.1.7: fail the connection, telling the server why when possible.
                try? sendFrame(opcode: 0x8, payload: [0x03, 0xEA], deadline: Deadline(timeout: 0.5))
                dropConnection()
                throw error
            }
            guard let frame = parsed else {
                let gotBytes: Bool
                do {
                    gotBytes = try conn.fill(deadline)
                } catch ClientError.closed {
                    gotBytes = false
                }
                if !gotBytes {
                    dropConnection()
                    throw ClientError.closed
                }
                continue
            }
            let message: WebSocketMessage?
            do {
                message = try handle(frame, deadline: deadline)
            } catch let error as ClientError {
                if case .protocolError = error {
                    try? sendFrame(opcode: 0x8, payload: [0x03, 0xEA], deadline: Deadline(timeout: 0.5))
                    dropConnection()
                }
                throw error
            }
            if let message { return message }
            if self.conn == nil { return nil }
        }
    }

    /// Starts the closing handshake: sends a close frame with `code` and `reason`, waits up to
    /// `timeout` seconds for the server's close frame (discarding data still in flight), then
    /// closes the socket. Never throws; idempotent.
    public func close(code: UInt16 = 1000, reason: String = "", timeout: Double = 2) {
        guard let conn else { return }
        let deadline = Deadline(timeout: timeout)
        if !closeSent {
            var payload = [UInt8(code >> 8), UInt8(code & 0xFF)]
            // Control frames carry at most 125 bytes; cut whole characters so the reason stays UTF-8.
            var kept = ""
            for ch in reason {
                if kept.utf8.count + ch.utf8.count > 123 { break }
                kept.append(ch)
            }
            payload += Array(kept.utf8)
            do {
                try sendFrame(opcode: 0x8, payload: payload, deadline: deadline)
            } catch {
                dropConnection()
                return
            }
        }
        while self.conn != nil {
            do {
                if let frame = try parseFrame(from: conn) {
                    _ = try handle(frame, deadline: deadline)
                } else if try !conn.fill(deadline) {
                    break
                }
            } catch {
                break
            }
        }
        dropConnection()
    }

    // MARK: - Frames

    private struct Frame {
        var fin: Bool
        var opcode: UInt8
        var payload: [UInt8]
    }

    /// A whole frame from the front of the buffer, or nil (consuming nothing) if it has not all
    /// arrived yet. Header rules are checked as soon as the header is in, so a bad frame is
    /// reported without waiting for a payload that may never come.
    private func parseFrame(from conn: TCPConnection) throws -> Frame? {
        let b = conn.buffer
        guard b.count >= 2 else { return nil }
        let fin = b[0] & 0x80 != 0
        let opcode = b[0] & 0x0F
        guard b[0] & 0x70 == 0 else { throw ClientError.protocolError("reserved bits set without an extension") }
        guard [0x0, 0x1, 0x2, 0x8, 0x9, 0xA].contains(opcode) else {
            throw ClientError.protocolError("unknown opcode \(opcode)")
        }
        let masked = b[1] & 0x80 != 0
        // RFC 6455 5.1: a client must fail the connection on a masked frame from the server.
        guard !masked else { throw ClientError.protocolError("masked frame from server") }
        let len7 = Int(b[1] & 0x7F)
        if opcode >= 0x8 {
            guard fin, len7 <= 125 else { throw ClientError.protocolError("fragmented or oversized control frame") }
        }

        var headerLength = 2
        var length = len7
        if len7 == 126 {
            guard b.count >= 4 else { return nil }
            length = Int(b[2]) << 8 | Int(b[3])
            headerLength = 4
        } else if len7 == 127 {
            guard b.count >= 10 else { return nil }
            var n: UInt64 = 0
            for i in 2..<10 { n = n << 8 | UInt64(b[i]) }
            guard n <= UInt64(WebSocketClient.maxMessageSize) else {
                throw ClientError.protocolError("frame of \(n) bytes exceeds the limit")
            }
            length = Int(n)
            headerLength = 10
        }
        guard fragments.count + length <= WebSocketClient.maxMessageSize else {
            throw ClientError.protocolError("message exceeds \(WebSocketClient.maxMessageSize) bytes")
        }
        guard b.count >= headerLength + length else { return nil }
        let payload = Array(b[headerLength..<(headerLength + length)])
        conn.consume(headerLength + length)
        return Frame(fin: fin, opcode: opcode, payload: payload)
    }

    /// Applies one frame; returns a message when it completes one.
    private func handle(_ frame: Frame, deadline: Deadline) throws -> WebSocketMessage? {
        switch frame.opcode {
        case 0x9:
            // Pong with the ping's payload (RFC 6455 5.5.3); none is owed once we sent close.
            if !closeSent { try sendFrame(opcode: 0xA, payload: frame.payload, deadline: deadline) }
            return nil
        case 0xA:
            return nil
        case 0x8:
            if frame.payload.count >= 2 {
                closeCode = UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1])
                closeReason = String(decoding: frame.payload[2...], as: UTF8.self)
            } else {
                closeCode = 1005  // "no status received", as RFC 6455 7.1.5 reports it
            }
            if !closeSent {
                // Echo the code, as RFC 6455 5.5.1 suggests; the server may already be gone.
                try? sendFrame(opcode: 0x8, payload: Array(frame.payload.prefix(2)), deadline: deadline)
            }
            dropConnection()
            return nil
        case 0x1, 0x2:
            guard fragmentOpcode == nil else {
                throw ClientError.protocolError("new message started inside a fragmented one")
            }
            if frame.fin { return try message(opcode: frame.opcode, payload: frame.payload) }
            fragmentOpcode = frame.opcode
            fragments = frame.payload
            return nil
        default:  // 0x0, continuation
            guard let opcode = fragmentOpcode else {
                throw ClientError.protocolError("continuation frame without a message to continue")
            }
            fragments += frame.payload
            guard frame.fin else { return nil }
            let payload = fragments
            fragmentOpcode = nil
            fragments = []
            return try message(opcode: opcode, payload: payload)
        }
    }

    private func message(opcode: UInt8, payload: [UInt8]) throws -> WebSocketMessage {
        if opcode == 0x2 { return .binary(Data(payload)) }
        guard let text = String(bytes: payload, encoding: .utf8) else {
            throw ClientError.protocolError("text message is not valid UTF-8")
        }
        return .text(text)
    }

    private func sendFrame(opcode: UInt8, payload: [UInt8], deadline: Deadline) throws {
        guard let conn, !closeSent else { throw ClientError.closed }
        var frame: [UInt8] = [0x80 | opcode]
        frame.reserveCapacity(payload.count + 14)
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame.append(0x80 | 126)
            frame.append(UInt8(payload.count >> 8))
            frame.append(UInt8(payload.count & 0xFF))
        } else {
            frame.append(0x80 | 127)
            let n = UInt64(payload.count)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8(truncatingIfNeeded: n >> UInt64(shift))) }
        }
        // Clients must mask every frame (RFC 6455 5.3) with an unpredictable key, so that a
        // client's bytes cannot be crafted to look like something else to an intermediary.
        var rng = SystemRandomNumberGenerator()
        let mask: [UInt8] = (0..<4).map { _ in rng.next() }
        frame += mask
        for (i, byte) in payload.enumerated() { frame.append(byte ^ mask[i & 3]) }
        if opcode == 0x8 { closeSent = true }
        do {
            try conn.write(frame, deadline: deadline)
        } catch {
            // A frame cut short leaves the stream unframeable; the connection cannot continue.
            dropConnection()
            throw error
        }
    }

    private func dropConnection() {
        conn?.close()
        conn = nil
        fragmentOpcode = nil
        fragments = []
    }
}
