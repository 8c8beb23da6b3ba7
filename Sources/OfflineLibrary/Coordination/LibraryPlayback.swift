import ControlAPI
import FoundationEssentials
import GLibRuntime
import PlayerCore

/// The library on the player's side (a `PlayerFeature`): an open that names a content id
/// with a copy plays the copy, after the licence check; a play counts when playback begins,
/// and play time counts while playing, saved every few seconds so a crash cannot reset it.
/// A licence whose play time runs out while playing stops the player with `license_expired`.
@GLibActor
public final class LibraryPlayback: PlayerFeature {
    /// Play time is saved this often while playing (and when playing stops).
    static let saveInterval: UInt32 = 5_000

    private let library: Library
    private weak var player: Player?
    /// The item that plays now, if the loaded content is a library copy.
    private var current: String?
    private var counted = false
    private var playingSince: ContinuousClock.Instant?
    private var ticker: LoopTimer?

    public init(library: Library) { self.library = library }

    public func attached(to player: Player) { self.player = player }

    public func prepareOpen(_ request: inout OpenRequest, replacing current: PlaybackProgress?) throws(APIError) {
        guard let contentId = request.contentId else { return }
        let onlyContent = request.uri.isEmpty
        guard let item = library.record(contentId: contentId, userId: request.userId) else {
            if onlyContent { throw APIError(.notInLibrary, "'\(contentId)' is not in the offline library") }
            return
        }
        guard item.state == .complete else {
            // With a uri the network plays meanwhile; without one there is nothing to play.
            if onlyContent {
                throw APIError(.downloadIncomplete, "the copy of '\(contentId)' is \(item.state.rawValue) (\(item.storedBytes) bytes stored)")
            }
            return
        }
        library.noteTime()
        let verdict = library.verdict(item)
        if verdict.expired {
            // Opens from the API renew first (the control server asks `mayRenew`); one from the
            // queue cannot wait, so the renewal runs now for the next time.
            if library.mayRenew(before: request) { library.renew(before: request) {} }
            throw APIError(.licenseExpired, verdict.message ?? "the licence of '\(contentId)' is spent")
        }
        request.localCopy = LocalCopy(playbackURI: try library.playbackURL(item), kind: item.kind == .hls ? .hls : .file)
        if request.uri.isEmpty { request.uri = item.uri }
        // The copy is on loopback: the origin's headers have nothing to do there.
        request.headers = nil
        request.keyHeaders = nil
        request.referer = nil
        request.userAgent = nil
    }

    public func playerNoticed(_ notice: PlayerNotice) {
        switch notice {
        case .loaded(let progress):
            stopClock()
            current = progress.source.offline == true ? progress.source.contentId.flatMap { library.record(contentId: $0, userId: progress.source.userId)?.id } : nil
            counted = false
        case .stateChanged(let change, _):
            guard current != nil else { return }
            if change.state == .playing { startClock() } else { stopClock() }
        case .closing:
            stopClock()
            current = nil
        case .queriesAnswered:
            break
        }
    }

    private func startClock() {
        guard let id = current else { return }
        if !counted {
            counted = true
            library.countPlay(id)
        }
        guard playingSince == nil else { return }
        playingSince = .now
        ticker = LoopTimer(milliseconds: Self.saveInterval) { [weak self] in self?.save(stillPlaying: true) }
    }

    private func stopClock() {
        save(stillPlaying: false)
        ticker?.cancel()
        ticker = nil
    }

    private func save(stillPlaying: Bool) {
        guard let id = current, let since = playingSince else { return }
        let now = ContinuousClock.now
        let elapsed = now - since
        playingSince = stillPlaying ? now : nil
        library.addPlayTime(id, seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        library.noteTime()
        guard stillPlaying, let item = try? library.record(id) else { return }
        let verdict = library.verdict(item)
        if verdict.reason == .playTime, let player {
            // The licence ran out while playing: stop, and say why.
            ticker?.cancel()
            ticker = nil
            playingSince = nil
            current = nil
            _ = try? player.send(.stop)
            player.publishFeatureEvent(.error(APIError(.licenseExpired, verdict.message ?? "the licence's play time is used")))
        }
    }
}
