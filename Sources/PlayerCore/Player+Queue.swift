import ControlAPI
import GLibRuntime
import GStreamerKit

/// A playlist of open requests (`PUT /v1/queue`) played in order. From a local file to a
/// plain local file (no subtitle file, start or timeshift) the next item follows gaplessly:
/// playbin3 is given its URI in `about-to-finish` and the player switches its books at the
/// next STREAM_START. Otherwise the next item opens in a new pipeline at the end (a short
/// gap). `loop` (or `repeat: "all"`) starts again after the last; `repeat: "one"` repeats the
/// item. An open from outside the queue ends it. An item with `resolve` opens once the URL
/// resolver answered (Player+Resolve.swift), never gaplessly.
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
        // Every item is checked now, so a typo in item 7 is an error here, not at 3 am. An
        // item that names only a content id (an offline copy) is checked when it plays: its
        // licence may be renewed or spent by then; one the URL resolver names, when it plays.
        for (index, item) in request.items.enumerated() where item.resolve == true && urlResolver == nil {
            throw APIError(.resolverError, "queue item \(index): 'resolve' needs the daemon to be started with --url-resolver")
        }
        for (index, item) in request.items.enumerated() where !item.namesOnlyContent && item.resolve != true {
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

    /// `loop` on or off; the item playing goes on.
    func updateQueue(_ request: QueueUpdateRequest) throws(APIError) {
        _ = try requireQueue()
        queue?.loop = request.loop
        updateRepeat()
        publish(.queue(queueInfo))
    }

    func nextInQueue() throws(APIError) {
        let queue = try requireQueue()
        guard let next = index(after: queue.index ?? -1, in: queue) else {
            throw APIError(.invalidState, "the queue is at its last item (set \"loop\": true to go round)")
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
        armGapless()
    }

    func index(after current: Int, in queue: PlayQueue) -> Int? {
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
        armGapless()
    }

    /// Gives the session the next item to continue with gaplessly, when both are plain
    /// local files; otherwise nothing (the end of stream opens the next item).
    func armGapless() {
        // A library copy (marquee-copy://) is excluded: its play counting follows opens.
        guard let session, session.source.isLocalFile, !session.source.isLocalCopy else { return }
        session.gapless.arm(nextGaplessItem())
    }

    private func nextGaplessItem() -> GaplessController.Item? {
        guard !machine.repeatOne, let queue, let next = index(after: queue.index ?? -1, in: queue) else { return nil }
        let request = queue.items[next]
        // Items with their own watermark, protection, key service or resolver open as usual:
        // those apply at an open.
        guard request.subtitle == nil, request.start == nil, request.timeshift == nil, !request.needsRequestHeaders,
              request.watermark == nil, request.protected != true, request.keyService == nil, request.resolve != true,
              let resolved = try? configuration.resolver.resolve(request), resolved.isLocalFile else { return nil }
        return GaplessController.Item(index: next, request: request, source: resolved)
    }

    /// STREAM_START after a gapless switch: the next item plays now; the books follow.
    func finishGaplessSwitch() {
        guard let session, var current = queue, let next = session.gapless.completeSwitch() else { return }
        // The item that ended closes for features (its `end` and resume point) before the
        // next one is looked up, so a queue of the same content twice sees its point.
        notifyFeatures(progress.map { .closing($0, atEnd: machine.state == .ended) })
        var source = next.source
        source.info.userId = next.request.userId
        source.info.originalUrl = next.request.originalUrl
        // Features may carry a watched time over; the item plays from its start regardless.
        // Gapless items are plain local files (`nextGaplessItem`), which no feature refuses.
        let prepared = (try? prepareOpen(next.request, replacing: nil)) ?? next.request
        session.source = source
        session.duration = nil
        session.subtitles.removeExternal()
        session.itemWatermark = nil  // the item that ended had it; this one has none
        showWatermark()
        watchClock = WatchClock(alreadyWatched: prepared.watched ?? 0)
        watchClock.playing(machine.state == .playing)
        current.index = next.index
        queue = current
        log.info("queue item (gapless)", ["index": "\(next.index)", "uri": next.request.uri])
        publish(.source(source.info))
        publish(.queue(current.info))
        notifyFeatures(progress.map { .loaded($0) })
        armGapless()
    }

    private func requireQueue() throws(APIError) -> PlayQueue {
        guard let queue else { throw APIError(.noSource, "no queue: PUT /v1/queue first") }
        return queue
    }
}
