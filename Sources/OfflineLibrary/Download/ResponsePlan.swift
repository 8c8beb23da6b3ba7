import TextSupport

/// What a response's status and headers mean for a download that asked from `offset`
/// (with `Range: bytes=offset-` when it is above 0). Pure: the rules of a resume, apart from
/// the network, so that the tests can state them one by one.
enum ResponsePlan: Equatable {
    /// Take the body. `restart`: the origin ignored the Range request (a 200 to a resume), so
    /// what is stored goes and the body starts at byte 0. `total`: the file's size when the
    /// response tells it.
    case body(restart: Bool, total: Int64?)
    /// Nothing left to fetch: a 416 to a resume from the file's very end.
    case complete(total: Int64)
    /// A 416 anywhere else: the file at the origin is no longer the one stored (it shrank);
    /// drop what is stored and ask again from byte 0.
    case startOver
    /// A fault worth another try (5xx, 408, 429, a range that is not the one asked for);
    /// `retryAfter` when the origin said how long to wait.
    case retry(DownloadFailure, retryAfter: Duration?)
    /// A refusal that another try will not change (other 4xx, an unexpected status).
    case fail(DownloadFailure)

    struct Headers {
        var contentRange: String?
        /// nil when the body's length is not declared (chunked, or until the connection ends).
        var contentLength: Int64?
        var retryAfter: String?
    }

    static func plan(status: Int, offset: Int64, headers: Headers, knownTotal: Int64?) -> ResponsePlan {
        switch status {
        case 206:
            guard let range = ContentRange(headers.contentRange), let first = range.first, first == offset else {
                let answer = headers.contentRange.map { "\"\($0)\"" } ?? "no Content-Range"
                return .retry(DownloadFailure(code: "origin_error",
                                              message: "the origin answered bytes=\(offset)- with \(answer)",
                                              status: status), retryAfter: nil)
            }
            return .body(restart: false, total: range.total ?? headers.contentLength.map { offset + $0 })
        case 200..<300:
            return .body(restart: offset > 0, total: headers.contentLength)
        case 416:
            let total = ContentRange(headers.contentRange)?.total ?? knownTotal
            if offset > 0, total == offset { return .complete(total: offset) }
            if offset > 0 { return .startOver }
            return .fail(DownloadFailure(code: "origin_refused", message: "the origin answered 416 to a request without Range",
                                         status: status))
        case 408, 429, 500..<600:
            return .retry(DownloadFailure(code: "origin_error", message: "the origin answered \(status)", status: status),
                          retryAfter: headers.retryAfter.flatMap(Self.seconds))
        default:
            return .fail(DownloadFailure(code: "origin_refused", message: "the origin answered \(status)", status: status))
        }
    }

    /// `Retry-After` in its delay-seconds form; the HTTP-date form is ignored (the backoff
    /// applies).
    private static func seconds(_ value: String) -> Duration? {
        let trimmed = value.trimmingHorizontalWhitespace()
        guard let seconds = Int64(trimmed), seconds >= 0 else { return nil }
        return .seconds(seconds)
    }
}

/// A `Content-Range` value: `bytes FIRST-LAST/TOTAL`, `bytes FIRST-LAST/*` or `bytes */TOTAL`.
struct ContentRange: Equatable {
    var first: Int64?
    var last: Int64?
    var total: Int64?

    init(first: Int64?, last: Int64?, total: Int64?) {
        self.first = first
        self.last = last
        self.total = total
    }

    /// nil when `value` is missing or not a byte range of that form.
    init?(_ value: String?) {
        guard let value else { return nil }
        let text = value.trimmingHorizontalWhitespace()
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst(6).trimmingHorizontalWhitespace()
        let halves = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let totalText = halves[1].trimmingHorizontalWhitespace()
        if totalText == "*" {
            total = nil
        } else {
            guard let total = Int64(totalText), total >= 0 else { return nil }
            self.total = total
        }
        let rangeText = halves[0].trimmingHorizontalWhitespace()
        if rangeText == "*" {
            guard total != nil else { return nil }
            return
        }
        let bounds = rangeText.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int64(bounds[0].trimmingHorizontalWhitespace()), let last = Int64(bounds[1].trimmingHorizontalWhitespace()),
              first >= 0, last >= first, total.map({ last < $0 }) ?? true else { return nil }
        self.first = first
        self.last = last
    }
}
