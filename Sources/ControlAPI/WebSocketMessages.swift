import FoundationEssentials

/// A command sent over the events WebSocket: `{"id": 7, "command": "seek", "args": {...}}`.
/// The id is echoed back as given (number or string).
public struct WebSocketCommand: Sendable {
    public var id: MessageID?
    public var command: Command

    /// Decodes one text frame. On failure the error carries the id when one could be read,
    /// so the reply can still name the message it answers.
    public static func decode(_ text: String) -> Result<WebSocketCommand, WebSocketCommandError> {
        guard case .object(let message)? = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
            return .failure(WebSocketCommandError(id: nil, error: APIError(.invalidJSON, "a message must be a JSON object")))
        }
        // JSONDecoder reads the id: it tells numbers from booleans reliably on every platform.
        let id = (try? JSONDecoder().decode(IDOnly.self, from: Data(text.utf8)))?.id
        guard case .string(let name)? = message["command"] else {
            return .failure(WebSocketCommandError(id: id, error: APIError(.invalidArgument, "missing field 'command'")))
        }
        var arguments = Data("{}".utf8)
        if let args = message["args"], args != .null {
            guard case .object = args, let data = try? JSONEncoder().encode(args) else {
                return .failure(WebSocketCommandError(id: id, error: APIError(.invalidArgument, "'args' must be an object")))
            }
            arguments = data
        }
        do {
            return .success(WebSocketCommand(id: id, command: try Command.decode(name: name, arguments: arguments)))
        } catch {
            return .failure(WebSocketCommandError(id: id, error: error))
        }
    }
}

public struct WebSocketCommandError: Error, Sendable {
    public var id: MessageID?
    public var error: APIError
}

/// A client-chosen message id: a number or a string.
public enum MessageID: Codable, Sendable, Equatable {
    case number(Double)
    case string(String)

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .number(let n):
            if n == n.rounded(), abs(n) < 1e15 { try c.encode(Int(n)) } else { try c.encode(n) }
        case .string(let s): try c.encode(s)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let n = try? c.decode(Double.self) { self = .number(n) } else { self = .string(try c.decode(String.self)) }
    }
}

private struct IDOnly: Decodable {
    var id: MessageID?
    private enum CodingKeys: String, CodingKey { case id }
    init(from decoder: any Decoder) throws {
        id = try? decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(MessageID.self, forKey: .id)
    }
}

/// The reply to a WebSocket command: `{"id": 7, "ok": true}` or with `"error"`.
public struct WebSocketReply: Encodable, Sendable {
    public var id: MessageID?
    public var ok: Bool
    public var error: APIError?

    public init(id: MessageID?, error: APIError? = nil) {
        self.id = id
        self.ok = error == nil
        self.error = error
    }

    private enum Keys: String, CodingKey { case id, ok, error }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(id, forKey: .id)
        try c.encode(ok, forKey: .ok)
        try c.encodeIfPresent(error, forKey: .error)
    }
}
