import ControlAPI
import GLibRuntime
import GStreamerKit

/// A session's gapless continuation (queue items that are plain local files): the hook on
/// playbin3's about-to-finish, the item it is armed with, and whether playbin3 took it (the
/// switch completes at the next STREAM_START). What the queue plays next is the player's
/// (`Player+Queue.swift`). `close()` (the session's) disconnects the hook; a switch
/// reported just before is dropped. GLib thread.
@GLibActor
final class GaplessController {
    struct Item {
        var index: Int
        var request: OpenRequest
        var source: ResolvedSource
    }

    private let playbin: Element
    private var hook: GaplessHook?
    /// The item playbin3 is armed with.
    private(set) var next: Item?
    /// playbin3 took `next` in about-to-finish: it plays from the next STREAM_START.
    private var taken = false
    private var closed = false

    init(playbin: Element) {
        self.playbin = playbin
    }

    /// Arms playbin3 with `item` (nil: none, the stream ends as usual).
    func arm(_ item: Item?) {
        guard !closed else { return }
        if hook == nil {
            hook = GaplessHook(playbin: playbin) { _ in
                Task { @GLibActor [weak self] in
                    // The streaming thread may have posted this just before `close()`.
                    guard let self, !self.closed, self.next != nil else { return }
                    self.taken = true
                }
            }
        }
        next = item
        hook?.arm(item?.source.playbackURI)
    }

    /// At STREAM_START: the item that plays now when a gapless switch completed (then
    /// nothing is armed), else nil.
    func completeSwitch() -> Item? {
        guard taken, let item = next else { return nil }
        taken = false
        next = nil
        return item
    }

    func close() {
        closed = true
        hook?.disconnect()
        hook = nil
    }
}
