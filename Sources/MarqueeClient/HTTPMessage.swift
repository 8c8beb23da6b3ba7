/// HTTP/1.1 message syntax shared by the plain, SSE and WebSocket clients.

/// Generous bounds that only a broken or hostile peer reaches; they keep such a peer from
/// growing our memory without end.
enum HTTPLimits {
    static let maxHeadLine = 64 * 1024
    static let maxHeadBytes = 1024 * 1024
}

enum RequestHead {
    /// Serializes a request head. Later entries replace earlier ones with the same name (ignoring
    /// case), so callers' headers override the defaults they are appended to.
    static func serialize(method: String, target: String, headers: [(String, String)]) throws -> [UInt8] {
        guard !method.isEmpty, method.utf8.allSatisfy(isTokenByte) else {
            throw ClientError.protocolError("invalid HTTP method '\(method)'")
        }
        var merged: [(String, String)] = []
        for (name, value) in headers {
            guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else {
                throw ClientError.protocolError("invalid header name '\(name)'")
            }
            // A CR or LF in a value would let it inject headers or a second request.
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw ClientError.protocolError("header '\(name)' contains a line break")
            }
            if let i = merged.firstIndex(where: { $0.0.lowercased() == name.lowercased() }) {
                merged[i] = (name, value)
            } else {
                merged.append((name, value))
            }
        }
        var text = "\(method) \(target) HTTP/1.1\r\n"
        for (name, value) in merged { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    private static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(b)
        }
    }
}

struct ResponseHead {
    var status: Int
    var headers: [String: String]

    /// Reads a status line and headers. Interim 1xx responses are skipped, except
    /// 101 Switching Protocols, which ends the HTTP exchange and is returned.
    static func read(from conn: TCPConnection, deadline: Deadline) throws -> ResponseHead {
        var total = 0
        func line() throws -> String {
            let bytes = try conn.readLineBytes(deadline, limit: HTTPLimits.maxHeadLine)
            total += bytes.count + 2
            if total > HTTPLimits.maxHeadBytes {
                throw ClientError.protocolError("response head larger than \(HTTPLimits.maxHeadBytes) bytes")
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        while true {
            let statusLine = try line()
            let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."),
                  parts[1].count == 3, let status = Int(parts[1]), (100...999).contains(status)
            else {
                throw ClientError.protocolError("bad status line '\(statusLine.prefix(200))'")
            }

            var headers: [String: String] = [:]
            var lastName: String?
            while true {
                let raw = try line()
                if raw.isEmpty { break }
                if raw.first == " " || raw.first == "\t" {
                    // Obsolete line folding: the line continues the previous header's value.
                    guard let name = lastName else { throw ClientError.protocolError("header continuation without header") }
                    headers[name, default: ""] += " " + raw.trimmingSpaces()
                    continue
                }
                guard let colon = raw.firstIndex(of: ":") else {
                    throw ClientError.protocolError("bad header line '\(raw.prefix(200))'")
                }
                let name = raw[..<colon].lowercased()
                let value = String(raw[raw.index(after: colon)...]).trimmingSpaces()
                if let existing = headers[name] {
                    headers[name] = existing + ", " + value
                } else {
                    headers[name] = value
                }
                lastName = name
            }

            if status >= 100 && status < 200 && status != 101 { continue }
            return ResponseHead(status: status, headers: headers)
        }
    }
}

/// How a response body is delimited (RFC 9112 section 6.3).
enum BodyFraming: Equatable {
    case none
    case length(Int)
    case chunked
    case untilClose

    init(head: ResponseHead, requestMethod: String) throws {
        if requestMethod == "HEAD" || head.status == 204 || head.status == 304 || head.status < 200 {
            self = .none
            return
        }
        if let te = head.headers["transfer-encoding"] {
            let codings = te.lowercased().split(separator: ",").map { String($0).trimmingSpaces() }
            // Only chunked as the final coding delimits the body; anything else runs to EOF.
            self = codings.last == "chunked" ? .chunked : .untilClose
            return
        }
        if let cl = head.headers["content-length"] {
            // Repeated identical values were joined with ", " when the head was read.
            let values = Set(cl.split(separator: ",").map { String($0).trimmingSpaces() })
            guard values.count == 1, let v = values.first, let n = Int(v), n >= 0 else {
                throw ClientError.protocolError("bad Content-Length '\(cl)'")
            }
            self = .length(n)
            return
        }
        self = .untilClose
    }
}

/// Decodes a body incrementally, so the same code serves whole responses and endless streams.
/// Each step either completes or leaves the connection's buffer as it was, so a timeout in
/// `readSome` can be retried without losing the position.
struct BodyDecoder {
    private enum State: Equatable {
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case length(remaining: Int)
        case untilClose
        case done
    }

    private var state: State

    init(_ framing: BodyFraming) {
        switch framing {
        case .none: state = .done
        case .length(let n): state = n == 0 ? .done : .length(remaining: n)
        case .chunked: state = .chunkSize
        case .untilClose: state = .untilClose
        }
    }

    var isFinished: Bool { state == .done }

    /// The next decoded bytes (never empty), or nil once the body has ended.
    mutating func readSome(from conn: TCPConnection, deadline: Deadline) throws -> [UInt8]? {
        while true {
            switch state {
            case .done:
                return nil

            case .untilClose:
                if conn.buffer.isEmpty {
                    guard try conn.fill(deadline) else {
                        state = .done
                        return nil
                    }
                }
                return conn.take(upTo: Int.max)

            case .length(let remaining):
                if conn.buffer.isEmpty {
                    guard try conn.fill(deadline) else { throw ClientError.closed }
                }
                let bytes = conn.take(upTo: remaining)
                state = remaining == bytes.count ? .done : .length(remaining: remaining - bytes.count)
                return bytes

            case .chunkSize:
                let line = String(decoding: try conn.readLineBytes(deadline, limit: HTTPLimits.maxHeadLine), as: UTF8.self)
                // Chunk extensions (";name=value") carry nothing we use.
                let sizeText = String(line.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0])
                    .trimmingSpaces()
                guard !sizeText.isEmpty, sizeText.count <= 15, let size = Int(sizeText, radix: 16), size >= 0 else {
                    throw ClientError.protocolError("bad chunk size line '\(line.prefix(100))'")
                }
                state = size == 0 ? .trailers : .chunkData(remaining: size)

            case .chunkData(let remaining):
                if conn.buffer.isEmpty {
                    guard try conn.fill(deadline) else { throw ClientError.closed }
                }
                let bytes = conn.take(upTo: remaining)
                state = remaining == bytes.count ? .chunkDataEnd : .chunkData(remaining: remaining - bytes.count)
                return bytes

            case .chunkDataEnd:
                let line = try conn.readLineBytes(deadline, limit: HTTPLimits.maxHeadLine)
                guard line.isEmpty else { throw ClientError.protocolError("chunk not followed by CRLF") }
                state = .chunkSize

            case .trailers:
                let line = try conn.readLineBytes(deadline, limit: HTTPLimits.maxHeadLine)
                if line.isEmpty { state = .done }
            }
        }
    }

    /// The rest of the body.
    mutating func readAll(from conn: TCPConnection, deadline: Deadline) throws -> [UInt8] {
        var out: [UInt8] = []
        while let bytes = try readSome(from: conn, deadline: deadline) { out += bytes }
        return out
    }

    /// As much of the rest of the body as arrives in time; for error responses, whose body is
    /// only a courtesy to the caller and must not turn into a second error.
    mutating func readAllLeniently(from conn: TCPConnection, deadline: Deadline) -> [UInt8] {
        var out: [UInt8] = []
        while out.count < 1024 * 1024, let bytes = try? readSome(from: conn, deadline: deadline) { out += bytes }
        return out
    }
}
