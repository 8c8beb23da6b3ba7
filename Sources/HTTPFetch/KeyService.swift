import FoundationEssentials
import TextSupport

/// A session's key service (API-2 §2): every EXT-X-KEY key of the session is POSTed for here,
/// whatever the key URI's scheme (`skd://…` too), and the key URI itself is never fetched.
/// The headers often carry a bearer token: never logged, never written anywhere.
public struct KeyService: Sendable, Equatable {
    public var url: String
    public var headers: [String: String]
    public var contentId: String?
    public var userId: String?

    public init(url: String, headers: [String: String] = [:], contentId: String?, userId: String?) {
        self.url = url
        self.headers = headers
        self.contentId = contentId
        self.userId = userId
    }

    /// The POST body for one key: `{"keyUri", "contentId", "userId"}`, absent ids as null.
    public func requestBody(keyURI: String) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // A struct of three strings always encodes.
        return (try? encoder.encode(KeyRequestBody(keyUri: keyURI, contentId: contentId, userId: userId))) ?? Data()
    }

    /// Bytes an AES-128 (or SAMPLE-AES) key has: any other answer cannot decrypt anything.
    public static let keyLength = 16
}

private struct KeyRequestBody: Encodable {
    var keyUri: String
    var contentId: String?
    var userId: String?

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(keyUri, forKey: .keyUri)
        try c.encode(contentId, forKey: .contentId)  // null when absent: the shape is fixed
        try c.encode(userId, forKey: .userId)
    }

    private enum CodingKeys: String, CodingKey { case keyUri, contentId, userId }
}

/// What one key request came to, after its retries.
public enum KeyOutcome: Sendable, Equatable {
    case key(Data)
    /// The key service refused this key (a 4xx) or answered something that is not a key:
    /// playback cannot go on (`key_error`). The message names the key URI, never the key.
    case refused(String)
    /// The key service kept failing (5xx, timeout, refused connection): an origin fault,
    /// which the player's recovery rides out like a failing segment.
    case unavailable(String)

    /// No answer within `seconds` (`KeyRetryPolicy.deadlineSeconds`), retries included.
    static func overdue(_ keyURI: String, seconds: Double) -> KeyOutcome {
        .unavailable("the key service did not answer for \(keyURI) within \(String(printf: "%g", seconds)) s")
    }
}

/// When a key request is tried again: a pure decision on each answer.
public enum KeyRetryPolicy {
    /// Milliseconds before each retry of a failing key service; then it is `unavailable`.
    /// Short: hlsdemux2 waits for the key while the segment waits for it.
    public static let delays: [UInt32] = [500, 1000, 2000]

    /// Seconds a key request may take in all, retries included: then it is `unavailable`
    /// (`KeyServiceClient` cancels the POST in flight). hlsdemux2 (GStreamer 1.22) gives up on
    /// a key after 10 s (measured: a key service that never answers, the stream error came
    /// 10.0 s after the key request) and reports it as broken media; the proxy must answer
    /// before that so the player knows it was the key service and rides it out. Without the
    /// bound a hanging service took 4 x 5 s timeouts + 3.5 s.
    public static let deadlineSeconds = 8.0

    public enum Decision: Sendable, Equatable {
        case done(KeyOutcome)
        case retry(afterMilliseconds: UInt32)
    }

    /// `attempt` counts from 0: the first request; `elapsed`: seconds since it was sent.
    public static func decide(_ result: Result<FetchedResource, FetchError>, keyURI: String, attempt: Int,
                              elapsed: Double = 0, deadline: Double = deadlineSeconds) -> Decision {
        switch result {
        case .success(let resource):
            guard resource.body.count == KeyService.keyLength else {
                return .done(.refused("the key service answered \(resource.body.count) bytes for \(keyURI); an AES-128 key is \(KeyService.keyLength)"))
            }
            return .done(.key(resource.body))
        case .failure(let failure):
            if let status = failure.status, (400..<500).contains(status) {
                return .done(.refused("the key service refused \(keyURI) with HTTP \(status)"))
            }
            // A retry that would start past the deadline is not tried.
            guard attempt < delays.count, elapsed + Double(delays[attempt]) / 1000 < deadline else {
                let what = failure.status.map { "HTTP \($0)" } ?? "no answer"
                return .done(.unavailable("the key service failed for \(keyURI) (\(what))"))
            }
            return .retry(afterMilliseconds: delays[attempt])
        }
    }
}
