import FoundationEssentials
import GLibRuntime

/// Keeps a header-proxy session that plays a URL from the URL resolver authorised: signed
/// URLs expire (some after a single use), so when the origin answers 401 or 403 for the
/// session's entry URL or anything under it, the resolver is asked again (`uri`: the URL in
/// use) and the request is retried once with what it answered. The entry URL is then
/// mapped to the fresh one for every later request; requests for other URLs (variant
/// playlists, segments: relative to the entry, so without its query) keep their URL and
/// carry the fresh headers.
///
/// One refresh at a time: requests refused while it runs wait for it, and a request sent
/// before a refresh that completed since is retried without asking again. `expire()` makes
/// the next entry request ask first (a reconnect after an origin fault).
///
/// Refreshes run on the proxy's thread with the proxy's client (`LoopbackProxy`); the state
/// is under a lock, as the player reads and expires it from the GLib thread.
public final class ProxyReauthorizer: @unchecked Sendable {
    /// What one request sends, and which refresh it was sent after.
    struct Route {
        var url: String
        var headers: [String: String]
        var generation: Int
    }

    private let resolver: URLResolverClient
    private let contentId: String
    private let userId: String?
    private let lock = ThreadLock()
    // Guarded by `lock`:
    private var resolved: ResolvedURL
    /// Entry URLs the resolver issued before the current one: requests for them go to it.
    private var earlierEntries: Set<String> = []
    /// Completed refreshes.
    private var generation = 0
    private var expired = false
    /// Requests waiting for the refresh in flight; nil: none in flight.
    private var waiting: [(Bool) -> Void]?

    public init(resolver: URLResolverClient, contentId: String, userId: String?, resolved: ResolvedURL) {
        self.resolver = resolver
        self.contentId = contentId
        self.userId = userId
        self.resolved = resolved
    }

    /// The URL the session plays now (the entry the resolver last issued).
    public var current: ResolvedURL { lock.withLock { resolved } }

    /// Any thread: the next request for the entry asks the resolver first.
    public func expire() { lock.withLock { expired = true } }

    /// What to send for `origin` with the session's `headers`: the current entry in place of
    /// an earlier one, and the resolver's headers over the session's.
    func route(_ origin: String, headers: [String: String]) -> Route {
        lock.withLock {
            let url = earlierEntries.contains(origin) ? resolved.uri : origin
            return Route(url: url, headers: headers.merging(resolved.headers) { _, fresh in fresh }, generation: generation)
        }
    }

    /// A 401 or 403 for the entry or a URL under it (same origin, same folder).
    func refreshes(status: Int?, for url: String) -> Bool {
        guard status == 401 || status == 403 else { return false }
        return lock.withLock { covers(url) }
    }

    /// Proxy thread. Runs `then` at once, or once the resolver answered when the session was
    /// expired and `origin` is its entry.
    func prepare(_ origin: String, using client: SoupClient, then: @escaping () -> Void) {
        let due = lock.withLock { expired && (origin == resolved.uri || earlierEntries.contains(origin)) }
        guard due else { return then() }
        refresh(since: lock.withLock { generation }, using: client) { _ in then() }
    }

    /// Proxy thread. Asks the resolver again unless a refresh completed after the request
    /// (sent at `since`) went out; `completion(true)` when there is a newer URL to retry with.
    func refresh(since: Int, using client: SoupClient, completion: @escaping (Bool) -> Void) {
        enum Step { case retry, wait, ask(ResolverQuery) }
        let step: Step = lock.withLock {
            if generation > since { return .retry }
            if waiting != nil {
                waiting?.append(completion)
                return .wait
            }
            waiting = [completion]
            return .ask(ResolverQuery(contentId: contentId, userId: userId, uri: resolved.uri))
        }
        guard case .ask(let query) = step else {
            if case .retry = step { completion(true) }
            return
        }
        resolver.resolve(query, using: client) { [self] result in
            let waiters: [(Bool) -> Void] = lock.withLock {
                if case .success(let fresh) = result {
                    if fresh.uri != resolved.uri { earlierEntries.insert(resolved.uri) }
                    resolved = fresh
                    generation += 1
                    expired = false
                }
                defer { waiting = nil }
                return waiting ?? []
            }
            let renewed: Bool
            if case .success = result { renewed = true } else { renewed = false }
            for waiter in waiters { waiter(renewed) }
        }
    }

    /// Under `lock`: `url` is an entry the resolver issued, or lies in the folder of one.
    private func covers(_ url: String) -> Bool {
        let target = ResolvedURL.withoutQuery(url)
        return ([resolved.uri] + earlierEntries).contains { entry in
            let base = ResolvedURL.withoutQuery(entry)
            guard let slash = base.lastIndex(of: "/") else { return false }
            return target == base || target.hasPrefix(base[...slash])
        }
    }
}
