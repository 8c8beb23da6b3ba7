import ControlAPI
import FoundationEssentials
import GLibRuntime
import HTTPFetch
import Logging
import Storage

/// Records playback analytics events in the durable outbox and posts them to the collector,
/// one at a time, in `seq` order. An event is committed to disk before `record` returns;
/// delivery never blocks playback (libsoup, asynchronous, on the GLib loop). A 2xx answer
/// marks it sent; a 4xx marks it failed (the collector refuses it: sending it again cannot
/// help); anything else (5xx, no connection, a timeout) is retried after 1, 2, 4 … 60 s,
/// the queue waiting behind it so order holds. Pending events from a previous run are sent
/// first, at start. GLib thread only.
@GLibActor
public final class AnalyticsReporter {
    public struct Configuration: Sendable {
        public var url: String
        /// Seconds between `playing` events while playing.
        public var interval: Double
        /// Sent on every POST to the collector (`--analytics-header`, an `Authorization`
        /// for example); never logged.
        public var headers: [String: String]
        public init(url: String, interval: Double, headers: [String: String] = [:]) {
            self.url = url
            self.interval = interval
            self.headers = headers
        }
    }

    /// `interval` changes at run time (`PATCH /v1/analytics`).
    private(set) var configuration: Configuration
    /// False after `PATCH /v1/analytics {"enabled": false}`: nothing new is recorded.
    private(set) var isEnabled = true
    /// `POST /v1/analytics/flush` replies waiting for the outbox to empty, or for the
    /// failure that stops it.
    private var flushWaiters: [(Result<Void, APIError>) -> Void] = []
    private let outbox: AnalyticsOutbox
    private let fetcher: HTTPFetcher
    private let log = Logger(category: "analytics")
    /// Told about each delivery outcome (the player publishes it as an `analytics` event).
    var onUpdate: ((AnalyticsUpdate) -> Void)?

    private var inFlight: FetchHandle?
    /// Bumped by `dropPending`: the outcome of a post sent before it no longer matters.
    private var generation = 0
    private var retryTimer: OneShotTimer?
    private var backoffSeconds: Double = 0
    private(set) var lastError: String?

    static let maxBackoffSeconds = 60.0

    public init(configuration: Configuration, outbox: AnalyticsOutbox) {
        self.configuration = configuration
        self.outbox = outbox
        // Its own session: a slow collector never holds connections HLS fetches need.
        fetcher = HTTPFetcher(userAgent: "marquee/\(MarqueeVersion.current)", timeoutSeconds: 10)
    }

    /// Sends what a previous run left pending.
    public func start() {
        deliverNext()
    }

    /// Commits the event, then starts delivering if idle. Throws when the outbox cannot
    /// write (a full disk): the caller logs it; playback goes on.
    func record(_ event: AnalyticsEvent) throws {
        let body = JSONCoding.encode(event)
        let seq = try outbox.append(event: body, kind: event.event.rawValue)
        log.debug("recorded", ["seq": "\(seq)", "event": event.event.rawValue])
        deliverNext()
    }

    func status() -> AnalyticsStatus {
        let counters = try? outbox.counters()
        let pending = counters?.pending ?? 0
        return AnalyticsStatus(enabled: isEnabled, url: configuration.url, interval: configuration.interval,
                               pending: pending, sent: counters?.sent ?? 0, failed: counters?.failed ?? 0,
                               dropped: counters?.dropped ?? 0, lastError: pending > 0 ? lastError : nil)
    }

    /// `PATCH /v1/analytics`.
    func update(enabled: Bool?, interval: Double?) {
        if let enabled, enabled != isEnabled {
            isEnabled = enabled
            log.info(enabled ? "analytics on" : "analytics off")
        }
        if let interval { configuration.interval = interval }
    }

    /// Sends what is pending now, without waiting out a retry's backoff; `completion` runs
    /// once nothing is pending, or with `network_error` when a delivery fails (the collector
    /// is down: the retries go on as usual). Events the collector refuses (4xx) are not
    /// pending afterwards: they count as failed and the flush goes on.
    func flush(completion: @escaping (Result<Void, APIError>) -> Void) {
        guard ((try? outbox.counters().pending) ?? 0) > 0 else { return completion(.success(())) }
        flushWaiters.append(completion)
        if retryTimer != nil {
            retryTimer?.cancel()
            retryTimer = nil
            backoffSeconds = 0
        }
        deliverNext()
    }

    private func finishFlush(_ result: Result<Void, APIError>) {
        let waiters = flushWaiters
        flushWaiters.removeAll()
        for waiter in waiters { waiter(result) }
    }

    func dropPending() throws -> Int {
        let dropped = try outbox.dropPending()
        generation += 1
        retryTimer?.cancel()
        retryTimer = nil
        backoffSeconds = 0
        lastError = nil
        finishFlush(.success(()))  // nothing is pending any more
        return dropped
    }

    private func deliverNext() {
        guard inFlight == nil, retryTimer == nil else { return }
        let next: AnalyticsOutbox.Entry
        do {
            guard let entry = try outbox.nextPending(limit: 1).first else {
                finishFlush(.success(()))
                return
            }
            next = entry
        } catch {
            log.error("cannot read the outbox", ["error": "\(error)"])
            return
        }
        // The seq is the outbox's: written into the body as it goes out.
        guard var event = try? JSONDecoder().decode(AnalyticsEvent.self, from: next.body) else {
            _ = try? outbox.markFailed(next.seq, reason: "unreadable event in the outbox")
            deliverNext()
            return
        }
        event.seq = Int(next.seq)
        let sentIn = generation
        inFlight = fetcher.post(configuration.url, body: JSONCoding.encode(event), contentType: "application/json",
                                headers: configuration.headers) { [weak self] result in
            guard let self else { return }
            guard sentIn == self.generation else {
                // Dropped while it was on its way: nothing to record; go on with what is pending.
                self.inFlight = nil
                self.deliverNext()
                return
            }
            self.finished(next, kind: event.event, result: result)
        }
    }

    private func finished(_ entry: AnalyticsOutbox.Entry, kind: AnalyticsEvent.Kind, result: Result<FetchedResource, FetchError>) {
        inFlight = nil
        let outcome: AnalyticsUpdate.Outcome
        var reason: String?
        switch result {
        case .success:
            _ = try? outbox.markSent(entry.seq)
            backoffSeconds = 0
            lastError = nil
            outcome = .sent
        case .failure(let error) where (400..<500).contains(error.status ?? 0) && error.status != 408 && error.status != 429:
            reason = error.description
            _ = try? outbox.markFailed(entry.seq, reason: error.description)
            log.warning("collector refused an event", ["seq": "\(entry.seq)", "error": error.description])
            outcome = .failed
        case .failure(let error):
            reason = error.description
            lastError = error.description
            _ = try? outbox.recordAttempt(entry.seq, error: error.description)
            backoffSeconds = min(Self.maxBackoffSeconds, max(1, backoffSeconds * 2))
            log.info("collector unavailable; retrying", ["seq": "\(entry.seq)", "in": "\(backoffSeconds)", "error": error.description])
            outcome = .retrying
        }
        let pending = (try? outbox.counters().pending) ?? 0
        onUpdate?(AnalyticsUpdate(seq: Int(entry.seq), event: kind, outcome: outcome, reason: reason, pending: pending))
        if outcome == .retrying {
            finishFlush(.failure(APIError(.networkError, "the collector did not take event \(entry.seq): \(reason ?? "")")))
            retryTimer = OneShotTimer(milliseconds: UInt32(backoffSeconds * 1000)) { [weak self] in
                self?.retryTimer = nil
                self?.deliverNext()
            }
        } else {
            deliverNext()
        }
    }
}
