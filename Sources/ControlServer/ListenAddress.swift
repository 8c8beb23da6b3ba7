/// `HOST:PORT` as given to `--listen` ("127.0.0.1:8080", "[::1]:0", "localhost:8080", ":8080").
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init?(_ text: String) {
        var hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            hostPart = text[text.index(after: text.startIndex)..<close]
            portPart = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            if hostPart.contains(":") { return nil }  // an IPv6 address needs brackets
        }
        guard let port = UInt16(portPart) else { return nil }
        if hostPart.isEmpty { hostPart = "127.0.0.1" }
        host = hostPart == "localhost" ? "127.0.0.1" : String(hostPart)
        self.port = port
    }

    /// Loopback addresses need no token: only this machine can reach them.
    public var isLoopback: Bool {
        host == "::1" || host.hasPrefix("127.")
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
