import GLibRuntime
import GStreamerKit

/// A session's subtitles: the external files added to it and the one drawn, and the tap
/// that receives playbin3's embedded subtitle text when it is due. Drawing and scheduling
/// the cue is the player's (`Player+Subtitles.swift`). `close()` (the session's)
/// disconnects the tap; text already on its way to the loop is dropped. GLib thread.
@GLibActor
final class SessionSubtitles {
    /// External subtitle files added to this session, and the one drawn (by id).
    private(set) var external: [ExternalSubtitle] = []
    var selectedExternal: String?
    /// Receives embedded subtitle text as it is due (playbin3's text sink).
    private var textTap: TextSinkTap?
    private var closed = false
    /// Embedded cues held back by `subtitleDelay` until the playhead reaches them.
    private let heldCues = OneShotTimers()

    /// `onText`: embedded text as it is due, on the GLib thread, never after `close()`.
    init(onText: @escaping @GLibActor (TextSinkTap.TextBuffer) -> Void) {
        // Subtitle text goes to a tap, never to playbin3's own overlay: that textoverlay inside
        // playsink deadlocked GStreamer 1.22 when the pipeline went to NULL after the subtitle
        // track was deselected while playing (the main thread waited in playsink's
        // change_state for a lock the text streaming thread held while textoverlay waited for
        // a video frame stuck in the prerolling sink). With a text-sink given, playsink links
        // the text stream to it and builds no overlay; Marquee draws the text in its output
        // stage and sends it as `cue` events.
        textTap = TextSinkTap { [weak self] buffer in
            Task { @GLibActor in
                // The tap's streaming thread may have posted this just before `close()`.
                guard let self, !self.closed else { return }
                onText(buffer)
            }
        }
    }

    /// The sink to give playbin3 as its `text-sink` (nil: no text streams are played).
    var textSink: Element? { textTap?.sink }

    /// Adds a parsed file (not selected) and returns its tracks: one per language of a
    /// multi-language SAMI file (`SubtitleDocument.languageTracks`), titled by its class's
    /// `Name:` ("Korean", else "film.smi (ko-KR)"), else one titled by the file name.
    @discardableResult
    func add(_ loaded: LoadedSubtitle) -> [ExternalSubtitle] {
        let split = loaded.document.languageTracks
        let added = split.map { part in
            let id = "external-\(external.count + 1)"
            let title = split.count > 1 ? part.name ?? "\(loaded.fileName) (\(part.language ?? "?"))" : loaded.fileName
            let subtitle = ExternalSubtitle(id: id, title: title, language: part.language, format: loaded.document.format,
                                            schedule: SubtitleSchedule(cues: part.cues))
            external.append(subtitle)
            return subtitle
        }
        return added
    }

    /// The schedule of the external file drawn, if any.
    var selectedSchedule: SubtitleSchedule? {
        guard let id = selectedExternal else { return nil }
        return external.first { $0.id == id }?.schedule
    }

    /// A gapless switch: the files belonged to the item that ended.
    func removeExternal() {
        external = []
        selectedExternal = nil
    }

    /// Runs `action` after `milliseconds`, unless the session closed by then.
    func hold(milliseconds: UInt32, _ action: @escaping @GLibActor () -> Void) {
        guard !closed else { return }
        heldCues.after(milliseconds: milliseconds, action)
    }

    func close() {
        closed = true
        heldCues.cancelAll()
        textTap?.disconnect()
        textTap = nil
    }
}
