/// PUT /v1/queue: a playlist of open requests played in order; `loop` starts again after
/// the last (as does `repeat: "all"`). An empty list clears the queue.
public struct QueueRequest: Codable, Sendable, Equatable {
    /// The fields of the body.
    public static let fields = ["items", "loop"]
    public static let maxItems = 1000
    public var items: [OpenRequest]
    public var loop: Bool

    public init(items: [OpenRequest], loop: Bool = false) {
        self.items = items
        self.loop = loop
    }

    public init(from decoder: any Decoder) throws {
        try UnknownKeys.reject(in: decoder, allowed: Set(Self.fields))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        items = try c.decode([OpenRequest].self, forKey: .items)
        loop = try c.decodeIfPresent(Bool.self, forKey: .loop) ?? false
        guard items.count <= Self.maxItems else { throw APIError(.invalidArgument, "a queue holds at most \(Self.maxItems) items") }
    }
}

/// `PATCH /v1/queue`: what changes in the queue without starting it again.
public struct QueueUpdateRequest: Codable, Sendable, Equatable {
    /// The fields of the body.
    public static let fields = ["loop"]
    public var loop: Bool

    public init(loop: Bool) { self.loop = loop }

    public init(from decoder: any Decoder) throws {
        try UnknownKeys.reject(in: decoder, allowed: Set(Self.fields))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        loop = try c.decode(Bool.self, forKey: .loop)
    }
}

/// The queue as `GET /v1/queue`, the snapshot's `queue` and `queue` events show it.
public struct QueueInfo: Codable, Sendable, Equatable {
    public struct Item: Codable, Sendable, Equatable {
        public var uri: String
        public var contentId: String?
        public init(uri: String, contentId: String?) {
            self.uri = uri
            self.contentId = contentId
        }
    }
    public var items: [Item]
    /// The item playing (or last played), nil before the first.
    public var index: Int?
    public var loop: Bool

    public init(items: [Item], index: Int?, loop: Bool) {
        self.items = items
        self.index = index
        self.loop = loop
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(items, forKey: .items)
        try c.encode(index, forKey: .index)
        try c.encode(loop, forKey: .loop)
    }
}
