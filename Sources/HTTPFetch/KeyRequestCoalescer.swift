/// Requests for the same key while it is being fetched share one fetch: the first request
/// starts it, later ones (hlsdemux2's audio and video streams needing the same key, or
/// hlsdemux2 asking again after a cancelled download) wait for its answer, and the fetch is
/// cancelled only once every waiter has gone. So the key service gets one POST per key URI
/// and session at a time, however many requests wait for it.
///
/// Pure book-keeping: `KeyDelivery` starts and cancels the fetches and answers the waiters.
struct KeyRequestCoalescer<Key: Hashable, Waiter, Fetch> {
    private struct Pending {
        var fetch: Fetch?
        var waiters: [(id: Int, waiter: Waiter)]
    }

    private var pending: [Key: Pending] = [:]
    private var nextID = 0

    /// Fetches in flight.
    var inFlight: Int { pending.count }

    /// Requests waiting for `key`'s fetch.
    func waiting(for key: Key) -> Int { pending[key]?.waiters.count ?? 0 }

    /// Adds a request for `key`. `startsFetch`: no fetch is in flight for it, the caller
    /// starts one (and hands it over with `started`); otherwise the request waits for the
    /// one in flight. `id` names the request for `leave`.
    mutating func join(_ key: Key, _ waiter: Waiter) -> (id: Int, startsFetch: Bool) {
        nextID += 1
        if pending[key] != nil {
            pending[key]?.waiters.append((nextID, waiter))
            return (nextID, false)
        }
        pending[key] = Pending(fetch: nil, waiters: [(nextID, waiter)])
        return (nextID, true)
    }

    /// The fetch started for `key` by the request that `join` told to start it.
    mutating func started(_ key: Key, fetch: Fetch) {
        pending[key]?.fetch = fetch
    }

    /// Request `id` went away before the answer. Returns the fetch to cancel when no request
    /// waits for it any more.
    mutating func leave(_ key: Key, id: Int) -> Fetch? {
        guard var entry = pending[key] else { return nil }
        entry.waiters.removeAll { $0.id == id }
        guard entry.waiters.isEmpty else {
            pending[key] = entry
            return nil
        }
        pending[key] = nil
        return entry.fetch
    }

    /// `key`'s fetch answered: every request still waiting, in arrival order, to be answered
    /// with it. A later request for `key` starts a new fetch.
    mutating func finish(_ key: Key) -> [Waiter] {
        defer { pending[key] = nil }
        return pending[key]?.waiters.map(\.waiter) ?? []
    }
}
