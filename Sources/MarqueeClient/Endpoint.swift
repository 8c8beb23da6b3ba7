/// Where a client connects, parsed from a base URL such as "http://127.0.0.1:8080",
/// "http://[::1]:8080", "localhost:8080" or "ws://host:port/prefix".
struct Endpoint: Sendable, Equatable {
    /// Without IPv6 brackets, as getaddrinfo wants it.
    let host: String
    let port: Int
    /// "" or a prefix such as "/marquee", without a trailing slash, put before every request path.
    let basePath: String

    init(baseURL: String) throws {
        var rest = Substring(baseURL.trimmingSpaces())
        var scheme = "http"
        if let sep = rest.firstRange(of: "://") {
            scheme = rest[..<sep.lowerBound].lowercased()
            rest = rest[sep.upperBound...]
        }
        // Only plain TCP is spoken here; ws:// is accepted because it names the same listener.
        guard scheme == "http" || scheme == "ws" else {
            throw ClientError.protocolError("unsupported URL scheme '\(scheme)' in \(baseURL)")
        }

        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var path = rest[authorityEnd...]
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<cut] }
        while path.hasSuffix("/") { path = path.dropLast() }

        guard !authority.contains("@") else {
            throw ClientError.protocolError("credentials in the URL are not supported: \(baseURL)")
        }

        var hostPart: Substring
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw ClientError.protocolError("unterminated IPv6 literal in \(baseURL)")
            }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw ClientError.protocolError("bad authority in \(baseURL)") }
                portPart = after.dropFirst()
            }
        } else {
            let colons = authority.filter { $0 == ":" }.count
            guard colons <= 1 else {
                throw ClientError.protocolError("IPv6 literals need brackets, as in http://[::1]:8080: \(baseURL)")
            }
            if let colon = authority.firstIndex(of: ":") {
                hostPart = authority[..<colon]
                portPart = authority[authority.index(after: colon)...]
            } else {
                hostPart = authority
            }
        }
        guard !hostPart.isEmpty else { throw ClientError.protocolError("no host in \(baseURL)") }

        var port = 80
        if let portPart {
            guard let p = Int(portPart), (1...65535).contains(p) else {
                throw ClientError.protocolError("bad port in \(baseURL)")
            }
            port = p
        }
        host = String(hostPart)
        self.port = port
        basePath = String(path)
    }

    /// The Host header value: brackets around IPv6 literals, and always the port, since the
    /// daemon rarely listens on 80.
    var hostHeader: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The request target for `pathAndQuery`, refusing bytes that would break the request line.
    func target(_ pathAndQuery: String) throws -> String {
        let path = pathAndQuery.hasPrefix("/") ? pathAndQuery : "/" + pathAndQuery
        let target = basePath + path
        guard !target.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw ClientError.protocolError("request target contains spaces or control characters: \(pathAndQuery)")
        }
        return target
    }
}

/// Percent-encodes everything but RFC 3986 unreserved characters; spelled out because
/// CharacterSet.alphanumerics also admits non-ASCII letters.
func percentEncode(_ s: String) -> String {
    var out = ""
    for byte in s.utf8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            out.unicodeScalars.append(Unicode.Scalar(byte))
        default:
            let hex = Array("0123456789ABCDEF".unicodeScalars)
            out.unicodeScalars.append("%")
            out.unicodeScalars.append(hex[Int(byte >> 4)])
            out.unicodeScalars.append(hex[Int(byte & 0x0F)])
        }
    }
    return out
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\n" || f == "\r" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\n" || l == "\r" { s = s.dropLast() }
        return String(s)
    }
}
