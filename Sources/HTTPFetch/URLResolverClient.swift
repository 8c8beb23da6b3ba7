import FoundationEssentials

/// What the URL resolver is asked: `{"contentId", "userId", "uri"?}` (API-2 §2). `userId`
/// is always sent (null when the open named none); `uri` is the URL to replace, when there
/// is one (the request's own, or the one the origin refused).
public struct ResolverQuery: Sendable, Equatable, Encodable {
    public var contentId: String
    public var userId: String?
    public var uri: String?

    public init(contentId: String, userId: String?, uri: String?) {
        self.contentId = contentId
        self.userId = userId
        self.uri = uri.flatMap { $0.isEmpty ? nil : $0 }
    }

    private enum CodingKeys: String, CodingKey { case contentId, userId, uri }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(contentId, forKey: .contentId)
        try c.encode(userId, forKey: .userId)  // null when absent: the contract names it
        try c.encodeIfPresent(uri, forKey: .uri)
    }
}

/// The resolver's answer: the URL to play and the headers its requests carry.
public struct ResolvedURL: Sendable, Equatable {
    public var uri: String
    public var headers: [String: String]
    public init(uri: String, headers: [String: String] = [:]) {
        self.uri = uri
        self.headers = headers
    }

    /// `uri` without its query and fragment: what may be shown and logged (signed URLs carry
    /// their token in the query).
    public var displayURI: String { Self.withoutQuery(uri) }

    public static func withoutQuery(_ uri: String) -> String {
        uri.firstIndex(where: { $0 == "?" || $0 == "#" }).map { String(uri[..<$0]) } ?? uri
    }
}

/// Why the resolver gave no URL: refused (its status), a reply that is not one, or no reply.
/// The message never holds the reply's URL or headers.
public struct ResolverFailure: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// `--url-resolver`'s protocol: POSTs a `ResolverQuery` and reads `{"uri", "headers"?}`.
/// Thread-neutral: it runs on whichever thread owns the `SoupClient` it is given (the
/// player's resolver thread, or the header proxy's when an origin refuses a URL).
public struct URLResolverClient: Sendable {
    public let endpoint: String

    public init(endpoint: String) {
        self.endpoint = endpoint
    }

    /// `completion` runs once on the client's thread.
    public func resolve(_ query: ResolverQuery, using client: SoupClient,
                        completion: @escaping (Result<ResolvedURL, ResolverFailure>) -> Void) {
        let body: Data
        do { body = try JSONEncoder().encode(query) } catch {
            completion(.failure(ResolverFailure(message: "cannot encode the resolver request: \(error)")))
            return
        }
        _ = client.send("POST", endpoint, headers: ["Accept": "application/json"], body: (body, "application/json")) { result in
            switch result {
            case .failure(let failure):
                let message = failure.status.map { "the URL resolver answered \($0)" } ?? "the URL resolver is unreachable: \(failure.message)"
                completion(.failure(ResolverFailure(message: message)))
            case .success(let resource):
                completion(Self.parse(resource.body))
            }
        }
    }

    private struct Reply: Decodable {
        var uri: String?
        var headers: [String: String]?
    }

    /// The reply's URL (http or https, with a host) and headers (valid names, no line
    /// breaks in values: they go onto the wire as they are).
    static func parse(_ body: Data) -> Result<ResolvedURL, ResolverFailure> {
        guard let reply = try? JSONDecoder().decode(Reply.self, from: body) else {
            return .failure(ResolverFailure(message: "the URL resolver's reply is not {\"uri\", \"headers\"?}"))
        }
        guard let uri = reply.uri, let url = URL(string: uri), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
              url.host?.isEmpty == false else {
            return .failure(ResolverFailure(message: "the URL resolver's reply has no http(s) 'uri'"))
        }
        let token = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        for (name, value) in reply.headers ?? [:] {
            guard !name.isEmpty, name.allSatisfy({ token.contains($0) }),
                  !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
                return .failure(ResolverFailure(message: "the URL resolver's reply has an invalid header"))
            }
        }
        return .success(ResolvedURL(uri: uri, headers: reply.headers ?? [:]))
    }
}
