import ControlAPI
import FoundationEssentials
import TextSupport
import GLibRuntime
import GStreamerKit
import Subtitles

/// A subtitle file read and parsed, before it belongs to a session.
struct LoadedSubtitle {
    let fileName: String
    let document: SubtitleDocument
}

/// An external subtitle file loaded into a session.
struct ExternalSubtitle {
    let id: String
    let title: String
    let language: String?
    let format: SubtitleFormat
    let schedule: SubtitleSchedule

    var track: Track { Track(id: id, language: language, title: title, codec: format.rawValue, selected: false) }
}

/// External subtitles: loading SRT, SAMI and WebVTT files, drawing the cue on screen in the
/// output stage and publishing it as a `cue` event. The player wakes at cue boundaries
/// (computed from the position and rate), not on a polling tick.
extension Player {
    static let maxSubtitleFileBytes = 16 << 20

    /// Reads, parses and selects a local subtitle file for the loaded session (an http(s)
    /// one is fetched first: `addSubtitle(uri:completion:)`).
    func addSubtitle(uri: String) throws(APIError) {
        let session = try requireSource()
        if SourceResolver.isRemoteSubtitle(uri) {
            throw APIError(.invalidState, "an http(s) subtitle is fetched before it is added: addSubtitle(uri:completion:)")
        }
        try selectExternalSubtitle(attach(try loadSubtitleFile(uri), to: session, language: nil))
    }

    /// Reads and parses a subtitle file; nothing changes in the player.
    /// `language`: the open's `subtitleLanguage`, which helps tell a legacy encoding (Korean).
    func loadSubtitleFile(_ uri: String, language: String? = nil) throws(APIError) -> LoadedSubtitle {
        let file = try configuration.resolver.localFile(uri)
        let data: Data
        do {
            // Read at most one byte past the limit rather than trust the size: files such as
            // those under /proc say 0 and have no end.
            data = try FilePrefix.read(file, upTo: Self.maxSubtitleFileBytes + 1)
            if data.count > Self.maxSubtitleFileBytes {
                throw APIError(.subtitleError, "\(file.lastPathComponent) is larger than 16 MiB: not a subtitle file")
            }
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError(.subtitleError, "cannot read \(file.lastPathComponent): \(error)")
        }
        return try Self.parseSubtitle(data, name: file.lastPathComponent, format: Self.subtitleFormat(forExtension: file.pathExtension),
                                      language: language)
    }

    /// Parses subtitle bytes read from a file or fetched (`format` nil: the content decides;
    /// `charset`, a Content-Type's, and `language` help with legacy encodings).
    static func parseSubtitle(_ data: Data, name: String, format: SubtitleFormat?, charset: String? = nil,
                              language: String? = nil) throws(APIError) -> LoadedSubtitle {
        do {
            return LoadedSubtitle(fileName: name, document: try SubtitleDocument.parse(data, format: format, charset: charset, language: language))
        } catch {
            throw APIError(.subtitleError, "\(name) is not a readable SRT, SAMI or WebVTT file: \(error)")
        }
    }

    /// Adds a parsed file to a session's tracks (not selected) and returns the id of the
    /// one to show: the first whose language matches `language` (`subtitleLanguage`), else
    /// the first.
    func attach(_ loaded: LoadedSubtitle, to session: PlaybackSession, language: String?) -> String {
        let added = session.subtitles.add(loaded)
        let chosen = language.flatMap { LanguageTag.firstMatch($0, in: added.map(\.language)) }.map { added[$0] } ?? added[0]
        log.info("subtitle file", ["ids": added.map(\.id).joined(separator: ","), "shown": chosen.id,
                                   "format": loaded.document.format.rawValue, "cues": "\(loaded.document.cues.count)"])
        return chosen.id
    }

    /// The extension decides the format when it names one; otherwise the content does.
    static func subtitleFormat(forExtension pathExtension: String) -> SubtitleFormat? {
        switch pathExtension.lowercased() {
        case "srt": return .srt
        case "smi", "sami": return .sami
        case "vtt": return .webvtt
        default: return nil
        }
    }

    /// Selects an external track (and deselects embedded subtitles), or nil: none.
    func selectExternalSubtitle(_ id: String?) throws(APIError) {
        let session = try requireSource()
        if let id, !session.subtitles.external.contains(where: { $0.id == id }) {
            throw APIError(.unknownTrack, "no subtitle track '\(id)'")
        }
        session.subtitles.selectedExternal = id
        if id != nil {
            let isText = { (streamID: String) in session.streams.first { $0.id == streamID }?.kind == .text }
            if currentSelection().contains(where: isText) { sendSelection(currentSelection().filter { !isText($0) }) }
        }
        publish(.tracks(tracks()))
        refreshCue()
    }

    var shownSchedule: SubtitleSchedule? { session?.subtitles.selectedSchedule }

    /// Puts the cue for the current position on screen, publishes it when it changed, and
    /// wakes up again at the next cue boundary while playing. Called after anything that
    /// moves the playhead or its speed (state changes, seeks, rate, track changes).
    func refreshCue() {
        cueTimer?.cancel()
        cueTimer = nil
        guard let session, let position = session.position else {
            showCue(nil)
            return
        }
        // `subtitleDelay`: the file's timeline runs that much behind the player's.
        let delay = settings.subtitleDelay
        if let schedule = shownSchedule {
            showCue(schedule.shown(at: position - delay).map { $0.delayed(by: delay) })
            if let next = schedule.nextChange(after: position - delay) { wake(at: next + delay, from: position) }
            return
        }
        // An embedded cue arrives from the text sink when due; only its end is timed here,
        // and a seek away from it clears it.
        guard let shown = shownCue else { return }
        if position >= shown.end || position < shown.start - 0.25 {
            showCue(nil)
        } else {
            wake(at: shown.end, from: position)
        }
    }

    private func wake(at time: Double, from position: Double) {
        guard machine.state == .playing else { return }
        let rate = max(0.1, settings.rate)
        // A few ms late rather than early: an early wake finds the old cue and goes again.
        let delay = min(5000, max(5, ((time - position) / rate) * 1000 + 5))
        cueTimer = OneShotTimer(milliseconds: UInt32(delay)) { [weak self] in self?.refreshCue() }
    }

    /// Embedded subtitle text, as playbin3's text sink receives it at its time (only the
    /// loaded session's: `SessionSubtitles` drops what arrives after its session closed).
    func showEmbeddedCue(_ buffer: TextSinkTap.TextBuffer) {
        guard let session, session.subtitles.selectedExternal == nil else { return }
        if let awaited = session.awaitedSubtitleStream {
            // Text of a stream the open's `subtitleLanguage` did not choose, still arriving
            // while the selection takes effect: not shown.
            guard buffer.streamID == awaited else { return }
            session.awaitedSubtitleStream = nil
        }
        let position = session.position ?? 0
        let start = buffer.start ?? position
        // A cue without a duration stays up to 5 s (or until the next one replaces it).
        let cue = Subtitles.Cue(start: start, end: start + (buffer.duration ?? 5),
                                text: buffer.isMarkup ? buffer.text : BasicMarkup.escape(buffer.text))
        let trimmed = cue.plainText.trimmingWhitespace()
        let shown = SubtitleSchedule.Shown(plainText: cue.plainText, markup: cue.basicMarkup, start: cue.start, end: cue.end)
        if trimmed.isEmpty { showCue(nil) } else { showEmbeddedCueWhenDue(shown.delayed(by: settings.subtitleDelay), in: session) }
        refreshCue()
    }

    /// An embedded cue moved by `subtitleDelay`: shown once the playhead reaches its start
    /// (at once when it is already there), dropped when a seek left it. The wait is the
    /// session's (`SessionSubtitles.hold`): it ends with the session.
    private func showEmbeddedCueWhenDue(_ shown: SubtitleSchedule.Shown, in session: PlaybackSession) {
        guard let position = session.position else { return }
        guard position < shown.end, shown.start - position <= abs(settings.subtitleDelay) + 1 else { return }
        guard position < shown.start - 0.01 else {
            showCue(shown)
            refreshCue()
            return
        }
        let wait = machine.state == .playing ? (shown.start - position) / max(0.1, settings.rate) : 0.25
        session.subtitles.hold(milliseconds: UInt32(wait * 1000) + 5) { [weak self, weak session] in
            guard let self, let session else { return }
            self.showEmbeddedCueWhenDue(shown, in: session)
        }
    }

    func showCue(_ shown: SubtitleSchedule.Shown?) {
        guard shown != shownCue else { return }
        shownCue = shown
        output.subtitles.markup = shown?.markup ?? ""
        publish(.cue(currentCue))
    }

    /// The cue on screen, in the API's timeline.
    var currentCue: ControlAPI.Cue? {
        shownCue.map { ControlAPI.Cue(text: $0.plainText, start: $0.start + timelineOffset, end: $0.end + timelineOffset) }
    }
}

extension SubtitleSchedule.Shown {
    /// The same cue `delay` seconds later in the player's timeline.
    func delayed(by delay: Double) -> Self {
        var moved = self
        moved.start += delay
        moved.end += delay
        return moved
    }
}
