import ControlAPI

/// A playlist of open requests (`PUT /v1/queue`) played in order. At the end of an item the
/// next one opens (a new pipeline: a short gap, see the note in docs/API.md); `loop` (or
/// `repeat: "all"`) starts again after the last; `repeat: "one"` repeats the item. An open
/// from outside the queue ends it.
struct PlayQueue {
    var items: [OpenRequest]
    var index: Int?
    var loop: Bool

    var info: QueueInfo {
        QueueInfo(items: items.map { QueueInfo.Item(uri: $0.uri, contentId: $0.contentId) }, index: index, loop: loop)
    }
}

extension Player {
    /// `GET /v1/queue`: the queue, or an empty one.
    public var queueInfo: QueueInfo { queue?.info ?? QueueInfo(items: [], index: nil, loop: false) }

    func setQueue(_ request: QueueRequest) throws(APIError) {
        guard !request.items.isEmpty else {
            queue = nil
            updateRepeat()
            publish(.queue(nil))
            return
        }
        // Every item is checked now, so a typo in item 7 is an error here, not at 3 am.
        for (index, item) in request.items.enumerated() {
            do throws(APIError) {
                _ = try configuration.resolver.resolve(item)
            } catch {
                throw APIError(error.code, "queue item \(index): \(error.message)")
            }
        }
        queue = PlayQueue(items: request.items, index: nil, loop: request.loop)
        updateRepeat()
        try playQueueItem(0)
    }

    func nextInQueue() throws(APIError) {
        let queue = try requireQueue()
        guard let next = index(after: queue.index ?? -1, in: queue) else {
            throw APIError(.invalidArgument, "the queue is at its last item (set \"loop\": true to go round)")
        }
        try playQueueItem(next)
    }

    func previousInQueue() throws(APIError) {
        let queue = try requireQueue()
        let current = queue.index ?? 0
        let previous = current > 0 ? current - 1 : (queueLoops ? queue.items.count - 1 : 0)
        try playQueueItem(previous)
    }

    /// At the end of an item: opens the next one. False when the queue is done (or there is
    /// none): the player then ends as usual.
    func advanceQueueAtEnd() -> Bool {
        guard let queue, let next = index(after: queue.index ?? -1, in: queue) else { return false }
        do throws(APIError) {
            try playQueueItem(next)
            return true
        } catch {
            log.error("queue item failed to open", ["index": "\(next)", "error": error.description])
            publish(.error(error))
            return false
        }
    }

    var queueLoops: Bool { (queue?.loop ?? false) || settings.repeat == .all }

    /// "one" repeats the item; "all" repeats the only item when there is no queue (with a
    /// queue it loops the queue instead).
    func updateRepeat() {
        setRepeatOne(settings.repeat == .one || (settings.repeat == .all && queue == nil))
    }

    private func index(after current: Int, in queue: PlayQueue) -> Int? {
        if current + 1 < queue.items.count { return current + 1 }
        return queueLoops ? 0 : nil
    }

    private func playQueueItem(_ index: Int) throws(APIError) {
        guard var current = queue, current.items.indices.contains(index) else { return }
        current.index = index
        queue = current
        log.info("queue item", ["index": "\(index)", "uri": current.items[index].uri])
        try open(current.items[index], fromQueue: true)
        publish(.queue(current.info))
    }

    private func requireQueue() throws(APIError) -> PlayQueue {
        guard let queue else { throw APIError(.noSource, "no queue: PUT /v1/queue first") }
        return queue
    }
}
