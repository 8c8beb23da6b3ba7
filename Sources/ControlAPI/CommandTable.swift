import FoundationEssentials

/// The name of every command: the WebSocket `command`, the name in logs, and the key of its
/// descriptor. The raw values are the only place the names are spelled.
public enum CommandName: String, CaseIterable, Sendable {
    case open, play, pause, stop, seek, live, set, variant, audio, subtitle
    case pipStart = "pip.start", pipUpdate = "pip.update", pipStop = "pip.stop", pipSwap = "pip.swap"
    case watermark, watermarkRemove = "watermark.remove"
    case queueSet = "queue.set", queueNext = "queue.next", queuePrevious = "queue.previous", queueUpdate = "queue.update"
}

/// One command, declared once (as mpv's `mp_cmds[]`): its names, HTTP route, body, the events it
/// may cause, the errors it may answer and its help. The router's routes (`Routes.all`), the
/// WebSocket decoding (`Command.decode`), the OpenAPI operations of the command routes and the
/// command index of docs/API.md are derived from `CommandDescriptor.all`.
public struct CommandDescriptor: Sendable {
    /// A request body: its JSON fields, the OpenAPI schema that describes it, and examples.
    public struct Body: Sendable {
        /// The component schema (`#/components/schemas/<schema>`).
        public var schema: String
        /// The top-level fields the decoder accepts (any other is `400 invalid_argument`).
        public var fields: [String]
        /// False when an empty body is a valid request (`PATCH /v1/player`).
        public var required = true
        /// Said about the body in OpenAPI, when there is something to say.
        public var note: String?
        /// Named examples, each a JSON text.
        public var examples: [Example] = []
    }

    public struct Example: Sendable {
        public var name: String
        public var json: String
        public var summary: String?
        public init(_ name: String, _ json: String, summary: String? = nil) {
            self.name = name
            self.json = json
            self.summary = summary
        }
    }

    public let name: CommandName
    public let method: String
    public let path: String
    /// One line: the CLI's help, the OpenAPI summary, the docs' table.
    public let help: String
    /// The OpenAPI description (Markdown); the WebSocket name and events are added to it.
    public let details: String
    public let operationID: String
    /// The OpenAPI tag: `commands`, `output` or `content`.
    public let tag: String
    public let body: Body?
    /// The event types it may cause (besides an `error` when playback fails later).
    public let events: [String]
    /// The errors it may answer besides those every command may (`invalid_json`,
    /// `invalid_argument`, `unauthorized`, `timeout`, `payload_too_large`, and with `?wait=` the
    /// player's own error).
    public let errors: [ErrorCode]
    let decode: @Sendable (Data) throws(APIError) -> Command

    /// The body's fields (none for a command without a body).
    public var fields: [String] { body?.fields ?? [] }

    /// Every command, in the documented order.
    public static let all: [CommandDescriptor] = CommandName.allCases.map(\.descriptor)

    public static func named(_ name: String) -> CommandDescriptor? {
        CommandName(rawValue: name).map(\.descriptor)
    }
}

private func decoding<Body: Decodable & SendableMetatype>(_ type: Body.Type, _ make: @escaping @Sendable (Body) -> Command) -> @Sendable (Data) throws(APIError) -> Command {
    { (data: Data) throws(APIError) -> Command in make(try JSONCoding.decodeBody(Body.self, from: data)) }
}

private func constant(_ command: Command) -> @Sendable (Data) throws(APIError) -> Command {
    // A command without a body ignores whatever is sent: `curl -d ''` and `{}` both work.
    { (_: Data) throws(APIError) -> Command in command }
}

extension CommandName {
    /// The descriptor of each name; the switch makes a name without one a compile error.
    public var descriptor: CommandDescriptor {
        switch self {
        case .open:
            return CommandDescriptor(
                name: self, method: "POST", path: "/v1/player/open", help: "Open a source",
                details: "Loads a file (`file://` or a path), an HLS stream (`http(s)://...m3u8`) or a live source, replacing the current one. `subtitle` adds an external SRT, SAMI or WebVTT file, drawn by Marquee and sent as `cue` events. When the subtitle file fails (`422 subtitle_error`: unreadable or not parsable; or `403 forbidden`, `404 not_found`, `400 unsupported_uri` for a non-local URI) the whole open is refused with that error before anything changes: what was playing goes on.",
                operationID: "openSource", tag: "commands",
                body: .init(schema: "OpenRequest", fields: OpenRequest.fields, examples: [
                    .init("file", #"{"uri":"file:///media/movie.mkv","start":30,"autoplay":true}"#),
                    .init("hls", #"{"uri":"https://example.com/live/index.m3u8","timeshift":{"window":600}}"#),
                    .init("subtitle", #"{"uri":"file:///media/movie.mkv","subtitle":"/media/movie.en.srt"}"#),
                    .init("demo", #"{"uri":"demo://"}"#, summary: "The built-in live test source (a test pattern with a clock and a tone)"),
                ]),
                events: ["state", "source", "tracks", "position", "variants", "variant", "live", "cue", "queue"],
                errors: [.unsupportedURI, .forbidden, .notFound, .subtitleError],
                decode: decoding(OpenRequest.self) { .open($0) })
        case .play:
            return CommandDescriptor(
                name: self, method: "POST", path: "/v1/player/play", help: "Play",
                details: "Starts or resumes playback; after `ended` it starts over.",
                operationID: "play", tag: "commands", body: nil,
                events: ["state", "position"], errors: [.noSource], decode: constant(.play))
        case .pause:
            return CommandDescriptor(
                name: self, method: "POST", path: "/v1/player/pause", help: "Pause",
                details: "Pauses playback.",
                operationID: "pause", tag: "commands", body: nil,
                events: ["state", "position"], errors: [.noSource], decode: constant(.pause))
        case .stop:
            return CommandDescriptor(
                name: self, method: "POST", path: "/v1/player/stop", help: "Stop",
                details: "Ends the session and unloads the source: state `idle`, `source` null.",
                operationID: "stop", tag: "commands", body: nil,
                events: ["state", "source", "cue", "queue"], errors: [], decode: constant(.stop))
        case .seek:
            return CommandDescriptor(
                name: self, method: "POST", path: "/v1/player/seek", help: "Seek",
                details: "Seeks to an absolute `position` or by a relative `offset` (exactly one), snapping to a keyframe unless `exact` is true.",
                operationID: "seek", tag: "commands",
                body: .init(schema: "SeekRequest", fields: SeekRequest.fields, examples: [
                    .init("position", #"{"position":12.5}"#), .init("offset", #"{"offset":-10,"exact":true}"#),
                ]),
                events: ["seek", "position", "state", "cue"], errors: [.noSource, .notSeekable],
                decode: decoding(SeekRequest.self) { .seek($0) })
        case .live:
            return CommandDescriptor(
                name: self, method: "POST", path: "/v1/player/live", help: "Jump to the live edge",
                details: "Jumps to the live edge of a live or timeshifted source.",
                operationID: "goLive", tag: "commands", body: nil,
                events: ["seek", "position", "live"], errors: [.noSource, .notLive], decode: constant(.live))
        case .set:
            return CommandDescriptor(
                name: self, method: "PATCH", path: "/v1/player", help: "Change settings",
                details: "Changes any subset of the settings (" + PlayerSettings.wireNames.map { "`\($0)`" }.joined(separator: ", ")
                    + "); see the `SettingsPatch` schema. `subtitleStyle` changes any subset of the subtitle font size, colour and alignment, applied to the cue on screen at once; `abLoop` loops a section of the source, `null` ends it. Out-of-range values and unknown fields are `invalid_argument`. Every change is a `settings` event.",
                operationID: "setPlayerSettings", tag: "commands",
                body: .init(schema: "SettingsPatch", fields: PlayerSettings.wireNames, required: false,
                            note: "An empty body (or none) changes nothing and answers the snapshot.", examples: [
                    .init("volume", #"{"volume":0.5,"muted":false}"#), .init("rate", #"{"rate":1.5}"#),
                    .init("subtitleStyle", ##"{"subtitleStyle":{"fontSize":0.06,"color":"#FFFF00FF","align":"bottom"}}"##),
                    .init("abLoop", #"{"abLoop":{"a":12,"b":15.5}}"#),
                ]),
                events: ["settings", "position", "cue"], errors: [.noSource, .notSeekable],
                decode: decoding(SettingsPatch.self) { .set($0) })
        case .variant:
            return CommandDescriptor(
                name: self, method: "POST", path: "/v1/player/variant", help: "Choose the HLS variant",
                details: "Pins an HLS variant by id, or returns to adaptive selection with `auto`.",
                operationID: "selectVariant", tag: "commands",
                body: .init(schema: "VariantRequest", fields: VariantRequest.fields, examples: [
                    .init("pin", #"{"id":"v2"}"#), .init("auto", #"{"id":"auto"}"#),
                ]),
                events: ["variant"], errors: [.unknownVariant, .noSource],
                decode: decoding(VariantRequest.self) { .variant($0) })
        case .audio:
            return CommandDescriptor(
                name: self, method: "POST", path: "/v1/player/tracks/audio", help: "Choose the audio track",
                details: "Selects an audio track or HLS audio rendition.",
                operationID: "selectAudioTrack", tag: "commands",
                body: .init(schema: "TrackRequest", fields: TrackRequest.fields, examples: [.init("track", #"{"id":"a1"}"#)]),
                events: ["tracks"], errors: [.unknownTrack, .noSource],
                decode: decoding(TrackRequest.self) { .audio($0) })
        case .subtitle:
            return CommandDescriptor(
                name: self, method: "POST", path: "/v1/player/tracks/subtitle", help: "Choose the subtitle track, or add a subtitle file",
                details: #"Exactly one of: `{"id": "subtitle-1"}` selects a subtitle track; `{"id": null}` turns subtitles off; `{"uri": "/media/movie.en.srt"}` adds an external SRT, SAMI or WebVTT file (a local path or `file://` URI) to the open source and selects it. An added file is listed in `tracks.subtitle` as `external-1`, `external-2`, … (title: the file name; codec: the format), so it can be selected again by id. External subtitles are drawn by Marquee in the `subtitleStyle` of the settings, and each cue on screen is sent as a `cue` event. An empty body, or both keys, is `400 invalid_argument`; the file is checked like a source (`400 unsupported_uri` for a non-local URI, `403 forbidden`, `404 not_found`); one that cannot be read or parsed is `422 subtitle_error`; with no source open, `409 no_source`."#,
                operationID: "selectSubtitleTrack", tag: "commands",
                body: .init(schema: "SubtitleRequest", fields: SubtitleRequest.fields, examples: [
                    .init("track", #"{"id":"subtitle-1"}"#), .init("off", #"{"id":null}"#), .init("file", #"{"uri":"file:///media/movie.en.vtt"}"#),
                ]),
                events: ["tracks", "cue"], errors: [.unsupportedURI, .forbidden, .notFound, .unknownTrack, .noSource, .subtitleError],
                decode: decoding(SubtitleRequest.self) { .subtitle($0) })
        case .pipStart:
            return CommandDescriptor(
                name: self, method: "POST", path: "/v1/pip", help: "Start picture-in-picture",
                details: #"Plays a second, independent source as an inset over the main video. `rect` places it in fractions of the frame (default: the bottom-right corner, `{"x": 0.65, "y": 0.65, "width": 0.3, "height": 0.3}`). Its audio is muted unless `muted` is false. A running picture-in-picture is replaced. The URI is checked like `open`'s (`400 unsupported_uri`, `403 forbidden`, `404 not_found`); a source that fails or does not start in time later shows as `pip.state` `error` with the reason in `pip.error`. No main source is needed. The snapshot's `pip` shows it, and each change of it is sent as a `pip` event."#,
                operationID: "startPip", tag: "output",
                body: .init(schema: "PipStartRequest", fields: PipStartRequest.fields, examples: [
                    .init("corner", #"{"uri":"file:///media/camera2.mp4"}"#),
                    .init("placed", #"{"uri":"udp://239.1.1.2:5000","rect":{"x":0.05,"y":0.05,"width":0.25,"height":0.25},"muted":false}"#),
                ]),
                events: ["pip"], errors: [.unsupportedURI, .forbidden, .notFound],
                decode: decoding(PipStartRequest.self) { .pipStart($0) })
        case .pipUpdate:
            return CommandDescriptor(
                name: self, method: "PATCH", path: "/v1/pip", help: "Move, resize or (un)mute the picture-in-picture",
                details: "Changes `rect` (in fractions of the frame) and/or `muted`; at least one. After a swap `rect` places the main video, which is then the inset. `409 no_pip` when no picture-in-picture runs.",
                operationID: "updatePip", tag: "output",
                body: .init(schema: "PipUpdateRequest", fields: PipUpdateRequest.fields, examples: [
                    .init("move", #"{"rect":{"x":0.05,"y":0.65,"width":0.3,"height":0.3}}"#), .init("unmute", #"{"muted":false}"#),
                ]),
                events: ["pip"], errors: [.noPip],
                decode: decoding(PipUpdateRequest.self) { .pipUpdate($0) })
        case .pipStop:
            return CommandDescriptor(
                name: self, method: "DELETE", path: "/v1/pip", help: "Stop picture-in-picture",
                details: "Stops the PiP source and removes the inset; the snapshot's `pip` becomes null and a `pip` event with `null` follows. `409 no_pip` when no picture-in-picture runs.",
                operationID: "stopPip", tag: "output", body: nil,
                events: ["pip"], errors: [.noPip], decode: constant(.pipStop))
        case .pipSwap:
            return CommandDescriptor(
                name: self, method: "POST", path: "/v1/pip/swap", help: "Swap the main video and the picture-in-picture",
                details: #"Swaps the two pictures: the PiP source fills the frame and the main video is drawn in `rect`; swapping again undoes it. `pip.swapped` says which way round they are. Audio stays with the main source unless the PiP is unmuted (`PATCH /v1/pip {"muted": false}`). `409 no_pip` when no picture-in-picture runs."#,
                operationID: "swapPip", tag: "output", body: nil,
                events: ["pip"], errors: [.noPip], decode: constant(.pipSwap))
        case .watermark:
            return CommandDescriptor(
                name: self, method: "PUT", path: "/v1/overlays/watermark", help: "Set the watermark",
                details: "Draws a text or a PNG image over the output, replacing any watermark: give exactly one of `text` or `image`. `size` is the height of the text or image as a fraction of the frame height (0.01 to 0.5, default 0.05); `position` is one of nine places in the frame, or `random`, which jumps to a new place within the frame every `interval` seconds (0.5 to 3600, default 10). A text's colour is `#RRGGBBAA` (default `#FFFFFFB3`, white at 70 %); an image's `opacity` is 0 to 1. The image is a local file checked like a source's (`403 forbidden` outside every `--media-root`, `404 not_found`); one that is not a PNG is `400 invalid_argument`. The snapshot's `watermark` shows it with every default filled in, and a `watermark` event is sent.",
                operationID: "setWatermark", tag: "output",
                body: .init(schema: "WatermarkRequest", fields: WatermarkRequest.fields, examples: [
                    .init("text", ##"{"text":"LIVE","position":"top-right","size":0.04,"color":"#FF0000CC"}"##),
                    .init("image", #"{"image":"file:///srv/logos/channel.png","position":"random","interval":30,"opacity":0.6}"#),
                ]),
                events: ["watermark"], errors: [.forbidden, .notFound],
                decode: decoding(WatermarkRequest.self) { .watermark($0) })
        case .watermarkRemove:
            return CommandDescriptor(
                name: self, method: "DELETE", path: "/v1/overlays/watermark", help: "Remove the watermark",
                details: "Removes the watermark; the snapshot's `watermark` becomes null and a `watermark` event with `null` follows. Without a watermark it does nothing and is not an error.",
                operationID: "removeWatermark", tag: "output", body: nil,
                events: ["watermark"], errors: [], decode: constant(.watermarkRemove))
        case .queueSet:
            return CommandDescriptor(
                name: self, method: "PUT", path: "/v1/queue", help: "Play a list",
                details: #"Replaces the queue and starts its first item. Every item is checked first (a missing file in any item is refused and nothing changes). At the end of an item the next one opens; after the last, `loop` (or `repeat: "all"`) starts again, otherwise the player ends. `repeat: "one"` repeats the item. An `open` from outside the queue ends it; an empty `items` clears it. Each item change is a `queue` event. From a local file to a plain local file (no `subtitle`, `start` or `timeshift`) the next item follows gaplessly (playbin3's about-to-finish; the state stays `playing`, no `eos`); other items open in a new pipeline at the end, a short gap."#,
                operationID: "setQueue", tag: "content",
                body: .init(schema: "QueueRequest", fields: QueueRequest.fields, examples: [
                    .init("list", #"{"items":[{"uri":"/media/a.mp4"},{"uri":"/media/b.mp4","contentId":"b"}],"loop":true}"#),
                ]),
                events: ["queue", "state", "source", "tracks", "position"], errors: [.unsupportedURI, .forbidden, .notFound],
                decode: decoding(QueueRequest.self) { .queueSet($0) })
        case .queueUpdate:
            return CommandDescriptor(
                name: self, method: "PATCH", path: "/v1/queue", help: "Change whether the queue loops",
                details: "Sets the queue's `loop` without starting it again: the item playing and the index stay. A `queue` event shows the change. `409 no_source` without a queue.",
                operationID: "updateQueue", tag: "content",
                body: .init(schema: "QueueUpdateRequest", fields: QueueUpdateRequest.fields, examples: [
                    .init("loop", #"{"loop":true}"#),
                ]),
                events: ["queue"], errors: [.noSource],
                decode: decoding(QueueUpdateRequest.self) { .queueUpdate($0) })
        case .queueNext:
            return CommandDescriptor(
                name: self, method: "POST", path: "/v1/queue/next", help: "Next item",
                details: "Opens the next item; after the last only with `loop`, otherwise `409 invalid_state`. `409 no_source` without a queue.",
                operationID: "queueNext", tag: "content", body: nil,
                events: ["queue", "state", "source", "tracks", "position"], errors: [.noSource, .invalidState], decode: constant(.queueNext))
        case .queuePrevious:
            return CommandDescriptor(
                name: self, method: "POST", path: "/v1/queue/previous", help: "Previous item",
                details: "Opens the previous item; from the first, the last with `loop`, else the first again. `409 no_source` without a queue.",
                operationID: "queuePrevious", tag: "content", body: nil,
                events: ["queue", "state", "source", "tracks", "position"], errors: [.noSource], decode: constant(.queuePrevious))
        }
    }
}

extension Command {
    /// The names used over the WebSocket (`{"command": "seek"}`), in the documented order.
    public static var names: [String] { CommandName.allCases.map(\.rawValue) }

    public var kind: CommandName {
        switch self {
        case .open: return .open
        case .play: return .play
        case .pause: return .pause
        case .stop: return .stop
        case .seek: return .seek
        case .live: return .live
        case .set: return .set
        case .variant: return .variant
        case .audio: return .audio
        case .subtitle: return .subtitle
        case .pipStart: return .pipStart
        case .pipUpdate: return .pipUpdate
        case .pipStop: return .pipStop
        case .pipSwap: return .pipSwap
        case .watermark: return .watermark
        case .watermarkRemove: return .watermarkRemove
        case .queueSet: return .queueSet
        case .queueNext: return .queueNext
        case .queuePrevious: return .queuePrevious
        case .queueUpdate: return .queueUpdate
        }
    }

    public var name: String { kind.rawValue }

    /// Decodes a command from its name and JSON arguments (an HTTP body or WebSocket `args`).
    public static func decode(name: String, arguments: Data) throws(APIError) -> Command {
        guard let descriptor = CommandDescriptor.named(name) else { throw APIError(.invalidArgument, "unknown command '\(name)'") }
        return try descriptor.decode(arguments)
    }
}
