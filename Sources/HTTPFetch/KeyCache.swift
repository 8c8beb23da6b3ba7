import FoundationEssentials

/// A session's keys, in memory only (never on disk), keyed by key URI: hlsdemux2 asks for the
/// key again at each segment that names it, and again after a seek or a variant switch. Bounded:
/// a long live stream that rotates keys keeps only the most recently used `capacity`.
public struct KeyCache: Sendable {
    public let capacity: Int
    private var keys: [String: Data] = [:]
    /// Key URIs, least recently used first.
    private var order: [String] = []

    public init(capacity: Int = 32) {
        self.capacity = max(1, capacity)
    }

    public var count: Int { keys.count }

    public mutating func key(for uri: String) -> Data? {
        guard let key = keys[uri] else { return nil }
        touch(uri)
        return key
    }

    public mutating func store(_ key: Data, for uri: String) {
        keys[uri] = key
        touch(uri)
        while order.count > capacity {
            keys[order.removeFirst()] = nil
        }
    }

    private mutating func touch(_ uri: String) {
        order.removeAll { $0 == uri }
        order.append(uri)
    }
}
