import ControlAPI
import GLibRuntime
import HTTPFetch

/// `open {"contentId", "resolve": true}` (API-2 §2): the URL resolver (`--url-resolver`) is
/// asked for the URL to play, on its own thread; the open is applied once it answered,
/// unless another open or a stop came meanwhile. Playback goes on untouched while it asks.
/// The source then plays through the header proxy, whose `ProxyReauthorizer` asks again on
/// 401/403 from the origin; a reconnect after an origin fault expires it so that the
/// restarted pipeline's first request asks first (`RecoveryController`).
extension Player {
    /// Asks the resolver, then opens what it answered. `completion` (a held API reply) gets
    /// the snapshot as of the applied open, or the error (playback is then untouched); without
    /// one (a queue item, a stalled open retried) an error is published and ends playback.
    /// Throws at once when there is no resolver.
    public func openResolving(_ request: OpenRequest, fromQueue: Bool = false, retrying: Bool = false, stallRetries: Int = 0,
                              completion: (@Sendable @GLibActor (Result<PlayerSnapshot, APIError>) -> Void)? = nil) throws(APIError) {
        guard let resolver = urlResolver, let contentId = request.contentId else {
            throw APIError(.resolverError, "'resolve' needs the daemon to be started with --url-resolver")
        }
        openGeneration += 1
        let generation = openGeneration
        log.info("resolving", ["contentId": contentId])
        let query = ResolverQuery(contentId: contentId, userId: request.userId, uri: request.uri)
        resolver.resolve(query) { [weak self] outcome in
            guard let self else { return }
            guard generation == self.openGeneration else {
                completion?(.failure(APIError(.invalidState, "a later command replaced this open while the URL resolver answered")))
                return
            }
            do throws(APIError) {
                let resolved = try outcome.get()
                // Opens at once, or once its http(s) subtitle arrived (Player+RemoteSubtitles.swift).
                self.openFetchingSubtitle(request, fromQueue: fromQueue, retrying: retrying, stallRetries: stallRetries,
                                          resolved: resolved, completion: completion)
            } catch {
                self.log.warning("resolved open failed", ["contentId": contentId, "code": error.code.rawValue, "message": error.message])
                if let completion { return completion(.failure(error)) }
                self.feed(.failed(error))
            }
        }
    }

    /// The proxy session's refresher for a source the resolver answered with.
    func makeReauthorizer(for request: OpenRequest, _ resolved: ResolvedURL) -> ProxyReauthorizer? {
        guard let resolver = urlResolver, let contentId = request.contentId else { return nil }
        return ProxyReauthorizer(resolver: resolver.client, contentId: contentId, userId: request.userId, resolved: resolved)
    }
}
