import Foundation
import XCTest
import ControlAPI

/// Table-driven: (command name, JSON arguments) -> the command, or the error it must give.
final class CommandDecodingTests: XCTestCase {
    enum Expected {
        case command(Command)
        /// The error code, and text the message must contain (a field name, typically).
        case error(ErrorCode, mentions: String?)
    }

    struct Row {
        var name: String
        var args: String
        var expected: Expected
        var line: UInt

        init(_ name: String, _ args: String, _ expected: Expected, line: UInt = #line) {
            self.name = name
            self.args = args
            self.expected = expected
            self.line = line
        }
    }

    static func fail(_ code: ErrorCode, _ mentions: String? = nil) -> Expected { .error(code, mentions: mentions) }

    static func opening(_ configure: (inout OpenRequest) -> Void) -> Expected {
        var request = OpenRequest(uri: "")
        configure(&request)
        return .command(.open(request))
    }

    static func setting(_ configure: (inout SettingsPatch) -> Void) -> Expected {
        var patch = SettingsPatch()
        configure(&patch)
        return .command(.set(patch))
    }

    /// `{"items": [{"uri": "/media/0.mp4"}, …]}` with `count` items.
    static func queueBody(count: Int) -> String {
        #"{"items": ["# + (0..<count).map { #"{"uri": "/media/\#($0).mp4"}"# }.joined(separator: ", ") + "]}"
    }

    static func item(_ uri: String, _ configure: (inout OpenRequest) -> Void = { _ in }) -> OpenRequest {
        var request = OpenRequest(uri: uri)
        configure(&request)
        return request
    }

    static func queue(count: Int) -> QueueRequest {
        QueueRequest(items: (0..<count).map { OpenRequest(uri: "/media/\($0).mp4") })
    }

    static let rows: [Row] = [
        // open
        Row("open", #"{"uri": "/media/a.mp4"}"#, .command(.open(OpenRequest(uri: "/media/a.mp4")))),
        Row("open", #"{"uri": "file:///media/a b.mp4", "start": 12.5, "autoplay": false}"#,
            .command(.open(OpenRequest(uri: "file:///media/a b.mp4", start: 12.5, autoplay: false)))),
        Row("open", #"{"uri": "x.mp4", "start": 0}"#, .command(.open(OpenRequest(uri: "x.mp4", start: 0)))),
        Row("open", #"{"uri": "https://cdn.example/master.m3u8", "contentId": "c-1", "kind": "hls"}"#,
            opening {
                $0.uri = "https://cdn.example/master.m3u8"
                $0.contentId = "c-1"
                $0.kind = .hls
            }),
        // Contract fields whose features have not landed are refused, not ignored.
        Row("open", #"{"uri": "a.m3u8", "headers": {"X-Token": "t"}, "referer": "https://a.example/", "userAgent": "UA/1", "keyHeaders": {"Authorization": "Bearer k"}}"#,
            opening {
                $0.uri = "a.m3u8"
                $0.headers = ["X-Token": "t"]
                $0.referer = "https://a.example/"
                $0.userAgent = "UA/1"
                $0.keyHeaders = ["Authorization": "Bearer k"]
            }),
        Row("open", #"{"uri": "a.m3u8", "headers": {"Host": "evil"}}"#, fail(.invalidArgument, "'Host'")),
        Row("open", #"{"uri": "a.m3u8", "headers": {"Bad Name": "x"}}"#, fail(.invalidArgument, "'Bad Name'")),
        Row("open", #"{"uri": "a.m3u8", "keyHeaders": {"X": "a\nb"}}"#, fail(.invalidArgument, "'keyHeaders'")),
        Row("open", #"{"uri": "udp://239.1.1.1:5000", "timeshift": {"window": 300}}"#,
            opening {
                $0.uri = "udp://239.1.1.1:5000"
                $0.timeshift = TimeshiftRequest(window: 300)
            }),
        Row("open", #"{"uri": "demo://", "timeshift": {"window": 0.5}}"#, fail(.invalidArgument, "'timeshift.window'")),
        Row("open", #"{"uri": "demo://", "timeshift": {"window": 90000}}"#, fail(.invalidArgument, "'timeshift.window'")),
        // An external subtitle file (SRT, SAMI, WebVTT) drawn by Marquee.
        Row("open", #"{"uri": "/media/a.mp4", "subtitle": "/media/a.en.srt"}"#,
            opening {
                $0.uri = "/media/a.mp4"
                $0.subtitle = "/media/a.en.srt"
            }),
        Row("open", #"{"uri": "/media/a.mp4", "subtitle": "file:///media/a.en.vtt"}"#,
            opening {
                $0.uri = "/media/a.mp4"
                $0.subtitle = "file:///media/a.en.vtt"
            }),
        Row("open", #"{"uri": "/media/a.mp4", "subtitle": ""}"#, fail(.invalidArgument, "'subtitle'")),
        Row("open", #"{"uri": "/media/a.mp4", "subtitle": "  "}"#, fail(.invalidArgument, "'subtitle'")),
        Row("open", #"{"uri": "/media/a.mp4", "subtitle": 1}"#, fail(.invalidArgument, "'subtitle'")),
        Row("open", #"{"uri": "/media/a.mp4", "subtitle": null}"#, .command(.open(OpenRequest(uri: "/media/a.mp4")))),
        Row("open", #"{"uri": "a.m3u8", "contentId": "c-9", "userId": "u-1", "originalUrl": "https://portal.example/w/9", "watched": 120}"#,
            opening { $0.uri = "a.m3u8"; $0.contentId = "c-9"; $0.userId = "u-1"; $0.originalUrl = "https://portal.example/w/9"; $0.watched = 120 }),
        Row("open", #"{"uri": "a.m3u8", "watched": -1}"#, fail(.invalidArgument, "'watched'")),
        Row("open", #"{"uri": "a.m3u8", "userId": "u-2"}"#, opening { $0.uri = "a.m3u8"; $0.userId = "u-2" }),
        Row("open", #"{"uri": "a.m3u8", "originalUrl": "https://portal.example/w/1?x=1&y=2"}"#,
            opening { $0.uri = "a.m3u8"; $0.originalUrl = "https://portal.example/w/1?x=1&y=2" }),
        Row("open", #"{"uri": "a.m3u8", "watched": 0}"#, opening { $0.uri = "a.m3u8"; $0.watched = 0 }),
        Row("open", #"{"uri": "a.m3u8", "watched": 5400.25}"#, opening { $0.uri = "a.m3u8"; $0.watched = 5400.25 }),
        Row("open", #"{"uri": "a.m3u8", "userId": null, "originalUrl": null, "watched": null}"#, .command(.open(OpenRequest(uri: "a.m3u8")))),
        Row("open", #"{"uri": "a.m3u8", "userId": "\#(String(repeating: "u", count: 2048))"}"#,
            opening { $0.uri = "a.m3u8"; $0.userId = String(repeating: "u", count: 2048) }),
        Row("open", #"{"uri": "a.m3u8", "userId": "\#(String(repeating: "u", count: 2049))"}"#, fail(.invalidArgument, "'userId'")),
        Row("open", #"{"uri": "a.m3u8", "originalUrl": "\#(String(repeating: "o", count: 2049))"}"#, fail(.invalidArgument, "'originalUrl'")),
        Row("open", #"{"uri": "a.m3u8", "contentId": "\#(String(repeating: "c", count: 2049))"}"#, fail(.invalidArgument, "'contentId'")),
        Row("open", #"{"uri": "a.m3u8", "userId": 7}"#, fail(.invalidArgument, "'userId'")),
        Row("open", #"{"uri": "a.m3u8", "originalUrl": ["https://portal.example/"]}"#, fail(.invalidArgument, "'originalUrl'")),
        Row("open", #"{"uri": "a.m3u8", "watched": "120"}"#, fail(.invalidArgument, "'watched'")),
        Row("open", #"{"uri": "a.m3u8", "watched": -0.001}"#, fail(.invalidArgument, "'watched'")),
        Row("open", #"{"uri": "a.m3u8", "watched": 1e999}"#, fail(.invalidJSON)),
        Row("open", #"{"uri": "a.m3u8", "userID": "u-1"}"#, fail(.invalidArgument, "'userID'")),
        Row("open", #"{"uri": 5}"#, fail(.invalidArgument, "'uri'")),
        Row("open", #"{"uri": null}"#, fail(.invalidArgument, "'uri'")),
        Row("open", #"{}"#, fail(.invalidArgument, "'uri'")),
        Row("open", "", fail(.invalidArgument, "'uri'")),  // an empty body counts as {}
        Row("open", #"{"uri": ""}"#, fail(.invalidArgument, "'uri'")),
        Row("open", #"{"uri": "   "}"#, fail(.invalidArgument, "'uri'")),
        Row("open", #"{"uri": "a.mp4", "start": -1}"#, fail(.invalidArgument, "'start'")),
        Row("open", #"{"uri": "a.mp4", "start": "5"}"#, fail(.invalidArgument, "'start'")),
        Row("open", #"{"uri": "a.mp4", "autoplay": "yes"}"#, fail(.invalidArgument, "'autoplay'")),
        Row("open", #"{"uri": "a.mp4", "headers": {"X-A": 1}}"#, fail(.invalidArgument, "'headers.X-A'")),
        Row("open", #"{"uri": "a.mp4", "timeshift": {}}"#, fail(.invalidArgument, "'timeshift.window'")),
        Row("open", #"{"uri": "a.mp4", "kind": "rtsp"}"#, fail(.invalidArgument, "'kind'")),
        Row("open", #"{"uri": "a.mp4", "start": 1e999}"#, fail(.invalidJSON)),  // not representable: not JSON
        Row("open", #"{"uri": "a.mp4", "start": NaN}"#, fail(.invalidJSON)),
        Row("open", #"{"uri": "a.mp4""#, fail(.invalidJSON)),
        Row("open", "uri=a.mp4", fail(.invalidJSON)),
        Row("open", #"{'uri': 'a.mp4'}"#, fail(.invalidJSON)),
        Row("open", #"["a.mp4"]"#, fail(.invalidArgument)),
        Row("open", #""a.mp4""#, fail(.invalidArgument)),

        // transport: no arguments
        Row("play", "", .command(.play)),
        Row("play", "{}", .command(.play)),
        Row("pause", "", .command(.pause)),
        Row("stop", "{}", .command(.stop)),
        Row("live", "", .command(.live)),

        // seek
        Row("seek", #"{"position": 12.5}"#, .command(.seek(SeekRequest(position: 12.5)))),
        Row("seek", #"{"position": 0}"#, .command(.seek(SeekRequest(position: 0)))),
        Row("seek", #"{"position": 3, "exact": true}"#, .command(.seek(SeekRequest(position: 3, exact: true)))),
        Row("seek", #"{"offset": -10}"#, .command(.seek(SeekRequest(offset: -10)))),
        Row("seek", #"{"offset": 30.5, "exact": false}"#, .command(.seek(SeekRequest(offset: 30.5, exact: false)))),
        Row("seek", #"{"position": "x"}"#, fail(.invalidArgument, "'position'")),
        Row("seek", #"{"offset": "10"}"#, fail(.invalidArgument, "'offset'")),
        Row("seek", #"{"position": 1, "exact": 1}"#, fail(.invalidArgument, "'exact'")),
        Row("seek", #"{}"#, fail(.invalidArgument, "'position'")),
        Row("seek", "", fail(.invalidArgument, "'offset'")),
        Row("seek", #"{"position": null}"#, fail(.invalidArgument, "'position'")),
        Row("seek", #"{"position": 1, "offset": 2}"#, fail(.invalidArgument, "exactly one")),
        Row("seek", #"{"position": -0.5}"#, fail(.invalidArgument, "'position'")),
        Row("seek", #"{"position": 1e999}"#, fail(.invalidJSON)),
        Row("seek", #"{"offset": -Infinity}"#, fail(.invalidJSON)),
        Row("seek", #"{"postion": 5}"#, fail(.invalidArgument, "'postion'")),
        Row("seek", #"{"position": 5"#, fail(.invalidJSON)),

        // set (PATCH /v1/player)
        Row("set", #"{"volume": 0.5}"#, .command(.set(settingsPatch(("volume", 0.5))))),
        Row("set", #"{"rate": 2, "muted": true, "audioDelay": -0.25, "repeat": "one"}"#,
            .command(.set(settingsPatch(("rate", 2), ("muted", true), ("audioDelay", -0.25), ("repeat", RepeatMode.one))))),
        Row("set", #"{"repeat": "all"}"#, .command(.set(settingsPatch(("repeat", RepeatMode.all))))),
        Row("set", #"{}"#, .command(.set(SettingsPatch()))),
        Row("set", #"{"rate": 0.1}"#, .command(.set(settingsPatch(("rate", 0.1))))),
        Row("set", #"{"rate": 10}"#, .command(.set(settingsPatch(("rate", 10))))),
        Row("set", #"{"volume": 0}"#, .command(.set(settingsPatch(("volume", 0))))),
        Row("set", #"{"volume": 10}"#, .command(.set(settingsPatch(("volume", 10))))),
        Row("set", #"{"audioDelay": 60}"#, .command(.set(settingsPatch(("audioDelay", 60))))),
        Row("set", #"{"volum": 1}"#, fail(.invalidArgument, "'volum'")),
        Row("set", #"{"volume": 1, "speed": 2}"#, fail(.invalidArgument, "'speed'")),
        Row("set", #"{"rate": 0.09}"#, fail(.invalidArgument, "'rate'")),
        Row("set", #"{"rate": 0}"#, fail(.invalidArgument, "'rate'")),
        Row("set", #"{"rate": -1}"#, fail(.invalidArgument, "'rate'")),
        Row("set", #"{"rate": 10.01}"#, fail(.invalidArgument, "'rate'")),
        Row("set", #"{"volume": -0.1}"#, fail(.invalidArgument, "'volume'")),
        Row("set", #"{"volume": 10.5}"#, fail(.invalidArgument, "'volume'")),
        Row("set", #"{"audioDelay": -61}"#, fail(.invalidArgument, "'audioDelay'")),
        Row("set", #"{"muted": "true"}"#, fail(.invalidArgument, "'muted'")),
        Row("set", #"{"volume": "loud"}"#, fail(.invalidArgument, "'volume'")),
        Row("set", #"{"repeat": "sometimes"}"#, fail(.invalidArgument, "'repeat'")),
        Row("set", #"{"rate": 1e999}"#, fail(.invalidJSON)),
        // set: the subtitle style, any subset; fontSize is a fraction of the frame height
        Row("set", #"{"subtitleStyle": {"fontSize": 0.08}}"#, .command(.set(settingsPatch(("subtitleStyle", SubtitleStylePatch(fontSize: 0.08)))))),
        Row("set", ##"{"subtitleStyle": {"color": "#FFFF00", "align": "top"}}"##,
            .command(.set(settingsPatch(("subtitleStyle", SubtitleStylePatch(color: RGBAColor(red: 255, green: 255, blue: 0), align: .top)))))),
        Row("set", ##"{"volume": 1, "subtitleStyle": {"fontSize": 0.01, "color": "#00000080", "align": "center"}}"##,
            .command(.set(settingsPatch(("volume", 1), ("subtitleStyle", SubtitleStylePatch(fontSize: 0.01, color: RGBAColor(red: 0, green: 0, blue: 0, alpha: 0x80), align: .center)))))),
        Row("set", #"{"subtitleStyle": {"fontSize": 0.5}}"#, .command(.set(settingsPatch(("subtitleStyle", SubtitleStylePatch(fontSize: 0.5)))))),
        Row("set", #"{"subtitleStyle": {}}"#, .command(.set(settingsPatch(("subtitleStyle", SubtitleStylePatch()))))),
        Row("set", #"{"subtitleStyle": null}"#, .command(.set(SettingsPatch()))),
        Row("set", #"{"subtitleStyle": {"fontSize": 0.009}}"#, fail(.invalidArgument, "'fontSize'")),
        Row("set", #"{"subtitleStyle": {"fontSize": 0.51}}"#, fail(.invalidArgument, "'fontSize'")),
        Row("set", #"{"subtitleStyle": {"fontSize": 24}}"#, fail(.invalidArgument, "'fontSize'")),  // not points
        Row("set", #"{"subtitleStyle": {"fontSize": "big"}}"#, fail(.invalidArgument, "'subtitleStyle.fontSize'")),
        Row("set", #"{"subtitleStyle": {"align": "middle"}}"#, fail(.invalidArgument, "'subtitleStyle.align'")),
        Row("set", #"{"subtitleStyle": {"color": "yellow"}}"#, fail(.invalidArgument, "#RRGGBBAA")),
        Row("set", #"{"subtitleStyle": {"size": 0.05}}"#, fail(.invalidArgument, "'size'")),
        Row("set", #"{"subtitleStyle": 0.05}"#, fail(.invalidArgument, "'subtitleStyle'")),
        // set: the A-B loop; {"a", "b"} in seconds, 0 <= a, b - a >= 0.1; null ends it
        Row("set", #"{"abLoop": {"a": 10, "b": 20}}"#, setting { $0.abLoop = ABLoop(a: 10, b: 20) }),
        Row("set", #"{"abLoop": {"a": 0, "b": 0.1}}"#, setting { $0.abLoop = ABLoop(a: 0, b: 0.1) }),
        Row("set", #"{"abLoop": {"a": 2.5, "b": 3600}, "rate": 2}"#, setting { $0 = try! $0.with("rate", 2); $0.abLoop = ABLoop(a: 2.5, b: 3600) }),
        Row("set", #"{"abLoop": null}"#, setting { $0.clearsABLoop = true }),
        Row("set", #"{"abLoop": null, "volume": 1}"#, setting { $0 = try! $0.with("volume", 1); $0.clearsABLoop = true }),
        Row("set", #"{"abLoop": {"a": -1, "b": 5}}"#, fail(.invalidArgument, "'abLoop'")),
        Row("set", #"{"abLoop": {"a": -0.01, "b": 5}}"#, fail(.invalidArgument, "'abLoop'")),
        Row("set", #"{"abLoop": {"a": 20, "b": 10}}"#, fail(.invalidArgument, "'abLoop'")),
        Row("set", #"{"abLoop": {"a": 5, "b": 5}}"#, fail(.invalidArgument, "'abLoop'")),
        Row("set", #"{"abLoop": {"a": 1, "b": 1.05}}"#, fail(.invalidArgument, "'abLoop'")),
        Row("set", #"{"abLoop": {"a": 1}}"#, fail(.invalidArgument, "'abLoop.b'")),
        Row("set", #"{"abLoop": {"b": 1}}"#, fail(.invalidArgument, "'abLoop.a'")),
        Row("set", #"{"abLoop": {}}"#, fail(.invalidArgument, "'abLoop.a'")),
        Row("set", #"{"abLoop": {"a": "1", "b": 2}}"#, fail(.invalidArgument, "'abLoop.a'")),
        Row("set", #"{"abLoop": {"a": 1, "b": null}}"#, fail(.invalidArgument, "'abLoop.b'")),
        Row("set", #"{"abLoop": {"a": 1, "b": 2, "c": 3}}"#, fail(.invalidArgument, "'c'")),
        Row("set", #"{"abLoop": [1, 2]}"#, fail(.invalidArgument, "'abLoop'")),
        Row("set", #"{"abLoop": true}"#, fail(.invalidArgument, "'abLoop'")),
        Row("set", #"{"abLoop": {"a": 1, "b": 1e999}}"#, fail(.invalidJSON)),

        // variant / audio
        Row("variant", #"{"id": "auto"}"#, .command(.variant(decoded(VariantRequest.self, #"{"id": "auto"}"#)))),
        Row("variant", #"{"id": "720p"}"#, .command(.variant(decoded(VariantRequest.self, #"{"id": "720p"}"#)))),
        Row("variant", #"{}"#, fail(.invalidArgument, "'id'")),
        Row("variant", #"{"id": 3}"#, fail(.invalidArgument, "'id'")),
        Row("audio", #"{"id": "audio-1"}"#, .command(.audio(TrackRequest(id: "audio-1")))),
        Row("audio", #"{}"#, fail(.invalidArgument, "'id'")),
        Row("audio", #"{"id": null}"#, fail(.invalidArgument, "'id'")),

        // subtitle: exactly one of "id" (null turns subtitles off) or "uri" (an external file)
        Row("subtitle", #"{"id": "subtitle-1"}"#, .command(.subtitle(SubtitleRequest(id: "subtitle-1")))),
        Row("subtitle", #"{"id": null}"#, .command(.subtitle(SubtitleRequest(id: nil)))),
        Row("subtitle", #"{"uri": "/media/a.en.srt"}"#, .command(.subtitle(SubtitleRequest(uri: "/media/a.en.srt")))),
        Row("subtitle", #"{"uri": "file:///media/a.de.smi"}"#, .command(.subtitle(SubtitleRequest(uri: "file:///media/a.de.smi")))),
        Row("subtitle", #"{}"#, fail(.invalidArgument, "'id'")),
        Row("subtitle", "", fail(.invalidArgument, "'uri'")),
        Row("subtitle", #"{"id": "subtitle-1", "uri": "/media/a.srt"}"#, fail(.invalidArgument, "'uri'")),
        Row("subtitle", #"{"id": null, "uri": "/media/a.srt"}"#, fail(.invalidArgument, "'id'")),
        Row("subtitle", #"{"id": 1}"#, fail(.invalidArgument, "'id'")),
        Row("subtitle", #"{"uri": ""}"#, fail(.invalidArgument, "'uri'")),
        Row("subtitle", #"{"uri": "   "}"#, fail(.invalidArgument, "'uri'")),
        Row("subtitle", #"{"uri": null}"#, fail(.invalidArgument, "'uri'")),
        Row("subtitle", #"{"uri": 7}"#, fail(.invalidArgument, "'uri'")),
        Row("subtitle", #"{"id": null, "lang": "en"}"#, fail(.invalidArgument, "'lang'")),

        // pip.start: rect in fractions of the frame, inside it
        Row("pip.start", #"{"uri": "/media/b.mp4"}"#, .command(.pipStart(PipStartRequest(uri: "/media/b.mp4")))),
        Row("pip.start", #"{"uri": "udp://239.1.1.2:5000", "rect": {"x": 0.05, "y": 0.1, "width": 0.25, "height": 0.2}, "muted": false}"#,
            .command(.pipStart(PipStartRequest(uri: "udp://239.1.1.2:5000", rect: Rect(x: 0.05, y: 0.1, width: 0.25, height: 0.2), muted: false)))),
        Row("pip.start", #"{"uri": "b.mp4", "rect": {"x": 0, "y": 0, "width": 1, "height": 1}}"#,
            .command(.pipStart(PipStartRequest(uri: "b.mp4", rect: .fullFrame)))),
        Row("pip.start", #"{"uri": "b.mp4", "rect": {"x": 0.7, "y": 0.65, "width": 0.3, "height": 0.35}}"#,
            .command(.pipStart(PipStartRequest(uri: "b.mp4", rect: Rect(x: 0.7, y: 0.65, width: 0.3, height: 0.35))))),
        // A client's rounding may overshoot 1 by far less than a billionth: tolerated.
        Row("pip.start", #"{"uri": "b.mp4", "rect": {"x": 0.5, "y": 0, "width": 0.5000000001, "height": 1}}"#,
            .command(.pipStart(PipStartRequest(uri: "b.mp4", rect: Rect(x: 0.5, y: 0, width: 0.5000000001, height: 1))))),
        Row("pip.start", #"{"uri": "b.mp4", "muted": true}"#, .command(.pipStart(PipStartRequest(uri: "b.mp4", muted: true)))),
        Row("pip.start", #"{"uri": "b.mp4", "rect": {"x": 0.5, "y": 0, "width": 0.501, "height": 1}}"#, fail(.invalidArgument, "'rect'")),
        Row("pip.start", #"{"uri": "b.mp4", "rect": {"x": 0.8, "y": 0.1, "width": 0.3, "height": 0.3}}"#, fail(.invalidArgument, "'rect'")),
        Row("pip.start", #"{"uri": "b.mp4", "rect": {"x": 0.1, "y": 0.8, "width": 0.3, "height": 0.3}}"#, fail(.invalidArgument, "'rect'")),
        Row("pip.start", #"{"uri": "b.mp4", "rect": {"x": -0.1, "y": 0, "width": 0.3, "height": 0.3}}"#, fail(.invalidArgument, "'rect'")),
        Row("pip.start", #"{"uri": "b.mp4", "rect": {"x": 0, "y": -0.01, "width": 0.3, "height": 0.3}}"#, fail(.invalidArgument, "'rect'")),
        Row("pip.start", #"{"uri": "b.mp4", "rect": {"x": 0, "y": 0, "width": 0, "height": 0.3}}"#, fail(.invalidArgument, "'rect'")),
        Row("pip.start", #"{"uri": "b.mp4", "rect": {"x": 0, "y": 0, "width": 0.3, "height": 0}}"#, fail(.invalidArgument, "'rect'")),
        Row("pip.start", #"{"uri": "b.mp4", "rect": {"x": 0, "y": 0, "width": 1.5, "height": 0.3}}"#, fail(.invalidArgument, "'rect'")),
        Row("pip.start", #"{"uri": "b.mp4", "rect": {"x": 1, "y": 0, "width": 0.1, "height": 0.1}}"#, fail(.invalidArgument, "'rect'")),
        Row("pip.start", #"{"uri": "b.mp4", "rect": {"x": 10, "y": 20, "width": 320, "height": 180}}"#, fail(.invalidArgument, "'rect'")),  // not pixels
        Row("pip.start", #"{"uri": "b.mp4", "rect": {"x": 0, "y": 0, "width": 0.3}}"#, fail(.invalidArgument, "'rect.height'")),
        Row("pip.start", #"{"uri": "b.mp4", "rect": {"x": 0, "y": 0, "width": 0.3, "height": 0.3, "z": 1}}"#, fail(.invalidArgument, "'z'")),
        Row("pip.start", #"{"uri": "b.mp4", "rect": {"x": "0", "y": 0, "width": 0.3, "height": 0.3}}"#, fail(.invalidArgument, "'rect.x'")),
        Row("pip.start", #"{"uri": "b.mp4", "rect": [0, 0, 0.3, 0.3]}"#, fail(.invalidArgument, "'rect'")),
        Row("pip.start", #"{"uri": "b.mp4", "rect": {"x": 0, "y": 0, "width": 1e999, "height": 0.3}}"#, fail(.invalidJSON)),
        Row("pip.start", #"{"uri": "b.mp4", "muted": "no"}"#, fail(.invalidArgument, "'muted'")),
        Row("pip.start", #"{"uri": ""}"#, fail(.invalidArgument, "'uri'")),
        Row("pip.start", #"{"uri": " "}"#, fail(.invalidArgument, "'uri'")),
        Row("pip.start", #"{}"#, fail(.invalidArgument, "'uri'")),
        Row("pip.start", "", fail(.invalidArgument, "'uri'")),
        Row("pip.start", #"{"uri": "b.mp4", "volume": 1}"#, fail(.invalidArgument, "'volume'")),

        // pip.update: at least one of rect and muted
        Row("pip.update", #"{"rect": {"x": 0.05, "y": 0.65, "width": 0.3, "height": 0.3}}"#,
            .command(.pipUpdate(PipUpdateRequest(rect: Rect(x: 0.05, y: 0.65, width: 0.3, height: 0.3))))),
        Row("pip.update", #"{"muted": false}"#, .command(.pipUpdate(PipUpdateRequest(muted: false)))),
        Row("pip.update", #"{"rect": {"x": 0, "y": 0, "width": 0.5, "height": 0.5}, "muted": true}"#,
            .command(.pipUpdate(PipUpdateRequest(rect: Rect(x: 0, y: 0, width: 0.5, height: 0.5), muted: true)))),
        Row("pip.update", #"{}"#, fail(.invalidArgument, "'rect'")),
        Row("pip.update", "", fail(.invalidArgument, "'muted'")),
        Row("pip.update", #"{"rect": null}"#, fail(.invalidArgument, "'rect'")),
        Row("pip.update", #"{"rect": {"x": 0.9, "y": 0, "width": 0.2, "height": 0.2}}"#, fail(.invalidArgument, "'rect'")),
        Row("pip.update", #"{"uri": "c.mp4"}"#, fail(.invalidArgument, "'uri'")),

        // pip.stop, pip.swap, watermark.remove: no arguments
        Row("pip.stop", "", .command(.pipStop)),
        Row("pip.stop", "{}", .command(.pipStop)),
        Row("pip.swap", "", .command(.pipSwap)),
        Row("pip.swap", "{}", .command(.pipSwap)),
        Row("watermark.remove", "", .command(.watermarkRemove)),
        Row("watermark.remove", "{}", .command(.watermarkRemove)),

        // watermark: exactly one of text or image; size a fraction of the frame height
        Row("watermark", #"{"text": "LIVE"}"#, .command(.watermark(WatermarkRequest(text: "LIVE")))),
        Row("watermark", #"{"image": "/srv/logo.png"}"#, .command(.watermark(WatermarkRequest(image: "/srv/logo.png")))),
        Row("watermark", #"{"image": "file:///srv/logo.jpg", "size": 0.1, "position": "random", "interval": 30, "opacity": 0.6}"#,
            .command(.watermark(WatermarkRequest(image: "file:///srv/logo.jpg", size: 0.1, position: .random, interval: 30, opacity: 0.6)))),
        Row("watermark", ##"{"text": "LIVE", "color": "#FF0000", "position": "top-left"}"##,
            .command(.watermark(WatermarkRequest(text: "LIVE", color: RGBAColor(red: 255, green: 0, blue: 0, alpha: 255), position: .topLeft)))),
        Row("watermark", ##"{"text": "LIVE", "color": "#ff000080"}"##,
            .command(.watermark(WatermarkRequest(text: "LIVE", color: RGBAColor(red: 255, green: 0, blue: 0, alpha: 0x80))))),
        Row("watermark", #"{"text": "a", "size": 0.01, "interval": 0.5, "opacity": 0}"#,
            .command(.watermark(WatermarkRequest(text: "a", size: 0.01, interval: 0.5, opacity: 0)))),
        Row("watermark", #"{"text": "a", "size": 0.5, "interval": 3600, "opacity": 1}"#,
            .command(.watermark(WatermarkRequest(text: "a", size: 0.5, interval: 3600, opacity: 1)))),
        Row("watermark", #"{"text": "\#(String(repeating: "é", count: 200))"}"#,
            .command(.watermark(WatermarkRequest(text: String(repeating: "é", count: 200))))),
        Row("watermark", #"{"text": "LIVE", "image": "/srv/logo.png"}"#, fail(.invalidArgument, "exactly one")),
        Row("watermark", #"{}"#, fail(.invalidArgument, "exactly one")),
        Row("watermark", "", fail(.invalidArgument, "exactly one")),
        Row("watermark", #"{"size": 0.1}"#, fail(.invalidArgument, "exactly one")),
        Row("watermark", #"{"text": ""}"#, fail(.invalidArgument, "'text'")),
        Row("watermark", #"{"text": "\#(String(repeating: "x", count: 201))"}"#, fail(.invalidArgument, "'text'")),
        Row("watermark", #"{"text": 5}"#, fail(.invalidArgument, "'text'")),
        Row("watermark", #"{"text": "a", "size": 0.009}"#, fail(.invalidArgument, "'size'")),
        Row("watermark", #"{"text": "a", "size": 0.51}"#, fail(.invalidArgument, "'size'")),
        Row("watermark", #"{"text": "a", "size": 32}"#, fail(.invalidArgument, "'size'")),  // not points
        Row("watermark", #"{"text": "a", "interval": 0.4}"#, fail(.invalidArgument, "'interval'")),
        Row("watermark", #"{"text": "a", "interval": 3601}"#, fail(.invalidArgument, "'interval'")),
        Row("watermark", #"{"text": "a", "opacity": -0.1}"#, fail(.invalidArgument, "'opacity'")),
        Row("watermark", #"{"text": "a", "opacity": 1.1}"#, fail(.invalidArgument, "'opacity'")),
        Row("watermark", #"{"text": "a", "position": "middle"}"#, fail(.invalidArgument, "'position'")),
        Row("watermark", #"{"text": "a", "position": "bottom_right"}"#, fail(.invalidArgument, "'position'")),
        Row("watermark", ##"{"text": "a", "color": "#FFF"}"##, fail(.invalidArgument, "#RRGGBBAA")),
        Row("watermark", ##"{"text": "a", "color": "#FFFFFFF"}"##, fail(.invalidArgument, "#RRGGBBAA")),
        Row("watermark", ##"{"text": "a", "color": "#FFFFFFFFF"}"##, fail(.invalidArgument, "#RRGGBBAA")),
        Row("watermark", ##"{"text": "a", "color": "#GG0000"}"##, fail(.invalidArgument, "#RRGGBBAA")),
        Row("watermark", ##"{"text": "a", "color": "#-FFFFF"}"##, fail(.invalidArgument, "#RRGGBBAA")),
        Row("watermark", #"{"text": "a", "color": "white"}"#, fail(.invalidArgument, "#RRGGBBAA")),
        Row("watermark", #"{"text": "a", "color": ""}"#, fail(.invalidArgument, "#RRGGBBAA")),
        Row("watermark", #"{"text": "a", "color": 16777215}"#, fail(.invalidArgument, "'color'")),
        Row("watermark", #"{"text": "a", "font": "Sans"}"#, fail(.invalidArgument, "'font'")),

        // queue.set (PUT /v1/queue): "items" (open bodies, at most 1000) is required; "loop" defaults to false
        Row("queue.set", #"{"items": [{"uri": "/media/a.mp4"}, {"uri": "/media/b.mp4", "start": 5, "contentId": "c-2"}], "loop": true}"#,
            .command(.queueSet(QueueRequest(items: [item("/media/a.mp4"), item("/media/b.mp4") { $0.start = 5; $0.contentId = "c-2" }],
                                            loop: true)))),
        Row("queue.set", #"{"items": [{"uri": "a.mp4"}]}"#, .command(.queueSet(QueueRequest(items: [OpenRequest(uri: "a.mp4")])))),
        Row("queue.set", #"{"items": [{"uri": "a.mp4"}], "loop": false}"#, .command(.queueSet(QueueRequest(items: [OpenRequest(uri: "a.mp4")])))),
        Row("queue.set", #"{"items": [{"uri": "a.mp4", "userId": "u-1", "watched": 30}], "loop": null}"#,
            .command(.queueSet(QueueRequest(items: [item("a.mp4") { $0.userId = "u-1"; $0.watched = 30 }])))),
        // An empty list is valid: it clears the queue.
        Row("queue.set", #"{"items": []}"#, .command(.queueSet(QueueRequest(items: [])))),
        Row("queue.set", #"{"items": [], "loop": true}"#, .command(.queueSet(QueueRequest(items: [], loop: true)))),
        Row("queue.set", queueBody(count: QueueRequest.maxItems), .command(.queueSet(queue(count: QueueRequest.maxItems)))),
        Row("queue.set", queueBody(count: QueueRequest.maxItems + 1), fail(.invalidArgument, "1000")),
        Row("queue.set", #"{"items": [], "shuffle": true}"#, fail(.invalidArgument, "'shuffle'")),
        Row("queue.set", #"{"items": [{"uri": "a.mp4", "title": "A"}]}"#, fail(.invalidArgument, "'title'")),
        Row("queue.set", #"{}"#, fail(.invalidArgument, "'items'")),
        Row("queue.set", "", fail(.invalidArgument, "'items'")),
        Row("queue.set", #"{"loop": true}"#, fail(.invalidArgument, "'items'")),
        Row("queue.set", #"{"items": null}"#, fail(.invalidArgument, "'items'")),
        Row("queue.set", #"{"items": {"uri": "a.mp4"}}"#, fail(.invalidArgument, "'items'")),
        Row("queue.set", #"{"items": ["a.mp4"]}"#, fail(.invalidArgument, "'items.[0]'")),
        Row("queue.set", #"{"items": [{"uri": "a.mp4"}, {"start": 1}]}"#, fail(.invalidArgument, "'items.[1].uri'")),
        Row("queue.set", #"{"items": [{"uri": "a.mp4"}, {"uri": " "}]}"#, fail(.invalidArgument, "'uri'")),
        Row("queue.set", #"{"items": [{"uri": "a.mp4", "watched": -5}]}"#, fail(.invalidArgument, "'watched'")),
        Row("queue.set", #"{"items": [{"uri": "a.mp4"}], "loop": "yes"}"#, fail(.invalidArgument, "'loop'")),
        Row("queue.set", #"{"items": [{"uri": "a.mp4"}]"#, fail(.invalidJSON)),
        Row("queue.set", #"[{"uri": "a.mp4"}]"#, fail(.invalidArgument)),
        // queue.next, queue.previous: no arguments
        Row("queue.next", "", .command(.queueNext)),
        Row("queue.next", "{}", .command(.queueNext)),
        Row("queue.previous", "", .command(.queuePrevious)),
        Row("queue.previous", "{}", .command(.queuePrevious)),

        // hostile bodies: nesting, lengths, numbers JSON does not have
        Row("open", String(repeating: "[", count: 33) + String(repeating: "]", count: 33), fail(.invalidJSON, "32 levels")),
        Row("open", #"{"uri": "demo://", "headers": {"x": "#  + String(repeating: "[", count: 40) + "]", fail(.invalidJSON, "32 levels")),
        Row("open", #"{"uri": "[[[[{{{{\"[["}"#, opening { $0.uri = #"[[[[{{{{"[["# }),  // brackets inside a string do not count
        Row("open", #"{"uri": "/"# + String(repeating: "a", count: 8192) + #""}"#, fail(.invalidArgument, "'uri'")),
        Row("open", #"{"uri": "a.mp4", "subtitle": "/"# + String(repeating: "a", count: 8192) + #""}"#, fail(.invalidArgument, "'subtitle'")),
        Row("pip.start", #"{"uri": "/"# + String(repeating: "a", count: 8192) + #""}"#, fail(.invalidArgument, "'uri'")),
        Row("seek", #"{"position": NaN}"#, fail(.invalidJSON)),
        Row("seek", #"{"position": 1e400}"#, fail(.invalidJSON)),
        Row("seek", #"{"position": -Infinity}"#, fail(.invalidJSON)),

        // unknown names
        Row("rewind", "{}", fail(.invalidArgument, "'rewind'")),
        Row("queue", "{}", fail(.invalidArgument, "'queue'")),
        Row("queue.skip", "{}", fail(.invalidArgument, "'queue.skip'")),
        Row("Play", "", fail(.invalidArgument, "'Play'")),
        Row("", "", fail(.invalidArgument)),
    ]

    func testRows() {
        for row in Self.rows {
            let label = "\(row.name) \(row.args)"
            let result = Result { () throws(APIError) -> Command in
                try Command.decode(name: row.name, arguments: Data(row.args.utf8))
            }
            switch (row.expected, result) {
            case (.command(let want), .success(let got)):
                XCTAssertEqual(got, want, label, line: row.line)
            case (.command(let want), .failure(let error)):
                XCTFail("\(label): expected \(want), got error \(error)", line: row.line)
            case (.error(let code, _), .success(let got)):
                XCTFail("\(label): expected \(code.rawValue), got \(got)", line: row.line)
            case (.error(let code, let mentions), .failure(let error)):
                XCTAssertEqual(error.code, code, "\(label): \(error.message)", line: row.line)
                XCTAssertFalse(error.message.isEmpty, label, line: row.line)
                if let mentions {
                    XCTAssertTrue(error.message.contains(mentions), "\(label): '\(error.message)' should mention \(mentions)", line: row.line)
                }
            }
        }
    }

    func testEveryCommandNameDecodesToThatCommand() throws {
        let args: [String: String] = [
            "open": #"{"uri": "a.mp4"}"#, "seek": #"{"position": 1}"#, "set": "{}",
            "variant": #"{"id": "auto"}"#, "audio": #"{"id": "audio-1"}"#, "subtitle": #"{"id": null}"#,
            "pip.start": #"{"uri": "b.mp4"}"#, "pip.update": #"{"muted": false}"#, "watermark": #"{"text": "LIVE"}"#,
            "queue.set": #"{"items": [{"uri": "a.mp4"}]}"#, "queue.update": #"{"loop": true}"#,
        ]
        XCTAssertEqual(Set(Command.names).count, Command.names.count, "names are unique")
        for name in Command.names {
            let command = try Command.decode(name: name, arguments: Data((args[name] ?? "").utf8))
            XCTAssertEqual(command.name, name)
        }
    }

    func testQueueCommandNames() {
        for name in ["queue.set", "queue.next", "queue.previous", "queue.update"] {
            XCTAssertTrue(Command.names.contains(name), name)
        }
        XCTAssertEqual(Command.queueSet(QueueRequest(items: [])).name, "queue.set")
        XCTAssertEqual(Command.queueNext.name, "queue.next")
        XCTAssertEqual(Command.queuePrevious.name, "queue.previous")
        XCTAssertEqual(Command.queueUpdate(QueueUpdateRequest(loop: true)).name, "queue.update")
        XCTAssertThrowsError(try Command.decode(name: "queue.update", arguments: Data("{}".utf8)), "loop is required")
        XCTAssertEqual(QueueRequest.maxItems, 1000)
    }

    func testSettingsPatchTellsAClearedABLoopFromNone() throws {
        let cleared = try JSONCoding.decodeBody(SettingsPatch.self, from: Data(#"{"abLoop": null}"#.utf8))
        XCTAssertNil(cleared.abLoop)
        XCTAssertTrue(cleared.clearsABLoop)
        let untouched = try JSONCoding.decodeBody(SettingsPatch.self, from: Data(#"{"volume": 1}"#.utf8))
        XCTAssertNil(untouched.abLoop)
        XCTAssertFalse(untouched.clearsABLoop, "a patch without abLoop leaves the loop alone")
        let armed = try JSONCoding.decodeBody(SettingsPatch.self, from: Data(#"{"abLoop": {"a": 1, "b": 2}}"#.utf8))
        XCTAssertEqual(armed.abLoop, ABLoop(a: 1, b: 2))
        XCTAssertFalse(armed.clearsABLoop)
    }

    func testSubtitleRequestEncodesExplicitNull() {
        XCTAssertEqual(encodedText(SubtitleRequest(id: nil)), #"{"id":null}"#)
        XCTAssertEqual(encodedText(SubtitleRequest(id: "subtitle-2")), #"{"id":"subtitle-2"}"#)
        XCTAssertEqual(encodedText(SubtitleRequest(uri: "/media/a b.srt")), #"{"uri":"/media/a b.srt"}"#)
    }

    func testOutputStageCommandNames() {
        for name in ["pip.start", "pip.update", "pip.stop", "pip.swap", "watermark", "watermark.remove"] {
            XCTAssertTrue(Command.names.contains(name), name)
        }
        XCTAssertEqual(Command.pipStop.name, "pip.stop")
        XCTAssertEqual(Command.pipSwap.name, "pip.swap")
        XCTAssertEqual(Command.watermarkRemove.name, "watermark.remove")
        XCTAssertEqual(Command.pipStart(PipStartRequest(uri: "b.mp4")).name, "pip.start")
        XCTAssertEqual(Command.pipUpdate(PipUpdateRequest(muted: true)).name, "pip.update")
        XCTAssertEqual(Command.watermark(WatermarkRequest(text: "x")).name, "watermark")
    }

    func testWatermarkDefaults() throws {
        let request = try JSONCoding.decodeBody(WatermarkRequest.self, from: Data(#"{"text": "LIVE"}"#.utf8))
        XCTAssertEqual(request.size, 0.05)
        XCTAssertEqual(request.color.text, "#FFFFFFB3")
        XCTAssertEqual(request.position, .bottomRight)
        XCTAssertEqual(request.interval, 10)
        XCTAssertEqual(request.opacity, 1)
        XCTAssertNil(request.image)
        XCTAssertEqual(WatermarkPosition.allCases.map(\.rawValue),
                       ["top-left", "top", "top-right", "left", "center", "right", "bottom-left", "bottom", "bottom-right", "random"])
    }

    func testSubtitleStyleDefaultsAndMerge() {
        var style = SubtitleStyle()
        XCTAssertEqual(style.fontSize, 0.05)
        XCTAssertEqual(style.color.text, "#FFFFFFFF")
        XCTAssertEqual(style.align, .bottom)
        style.merge(SubtitleStylePatch(fontSize: 0.08))
        XCTAssertEqual(style.fontSize, 0.08)
        XCTAssertEqual(style.color.text, "#FFFFFFFF", "what the patch does not give is kept")
        XCTAssertEqual(style.align, .bottom)
        style.merge(SubtitleStylePatch(color: RGBAColor(red: 255, green: 255, blue: 0), align: .top))
        XCTAssertEqual(style.fontSize, 0.08)
        XCTAssertEqual(style.color.text, "#FFFF00FF")
        XCTAssertEqual(style.align, .top)
        style.merge(SubtitleStylePatch())
        XCTAssertEqual(style.fontSize, 0.08)
        XCTAssertEqual(style.align, .top)
    }

    func testRectDefaults() {
        XCTAssertEqual(Rect.defaultInset, Rect(x: 0.65, y: 0.65, width: 0.3, height: 0.3))
        XCTAssertEqual(Rect.fullFrame, Rect(x: 0, y: 0, width: 1, height: 1))
        XCTAssertEqual(encodedText(Rect.defaultInset), #"{"height":0.3,"width":0.3,"x":0.65,"y":0.65}"#)
    }
}

final class RGBAColorTests: XCTestCase {
    func testParsesBothFormsAndNormalises() throws {
        let rows: [(String, RGBAColor, String)] = [
            ("#FF8000", RGBAColor(red: 0xFF, green: 0x80, blue: 0x00, alpha: 0xFF), "#FF8000FF"),
            ("#ff8000", RGBAColor(red: 0xFF, green: 0x80, blue: 0x00, alpha: 0xFF), "#FF8000FF"),
            ("#FF800080", RGBAColor(red: 0xFF, green: 0x80, blue: 0x00, alpha: 0x80), "#FF800080"),
            ("#0a0B0c0D", RGBAColor(red: 0x0A, green: 0x0B, blue: 0x0C, alpha: 0x0D), "#0A0B0C0D"),
            ("#00000000", RGBAColor(red: 0, green: 0, blue: 0, alpha: 0), "#00000000"),
            ("#FFFFFFFF", RGBAColor(red: 255, green: 255, blue: 255), "#FFFFFFFF"),
        ]
        for (text, color, normal) in rows {
            XCTAssertEqual(RGBAColor(text: text), color, text)
            XCTAssertEqual(color.text, normal, text)
            let decoded = try JSONDecoder().decode(RGBAColor.self, from: Data(#""\#(text)""#.utf8))
            XCTAssertEqual(decoded, color, text)
            XCTAssertEqual(encodedText(decoded), #""\#(normal)""#, "replies write #RRGGBBAA in upper case")
        }
    }

    func testRejectsOtherText() {
        for text in ["", "#", "#FFF", "#FFFF", "#FFFFF", "#FFFFFFF", "#FFFFFFFFF", "#FFFFFFFFFF", "#GG0000", "#12345Z",
                     "#-12345", "#+12345", "# FFFFF", "#FFFFFF ", " #FFFFFF", "red", "0x00FF00", "#１２３４５６"] {
            XCTAssertNil(RGBAColor(text: text), "'\(text)' is not a colour")
            XCTAssertThrowsError(try JSONCoding.decodeBody(RGBAColor.self, from: Data(#""\#(text)""#.utf8)), text) { error in
                XCTAssertEqual((error as? APIError)?.code, .invalidArgument, text)
            }
        }
    }

    func testARGBForTextOverlays() {
        XCTAssertEqual(RGBAColor(red: 0x11, green: 0x22, blue: 0x33, alpha: 0x44).argb, 0x4411_2233)
        XCTAssertEqual(RGBAColor(text: "#FFFFFF")?.argb, 0xFFFF_FFFF)
        XCTAssertEqual(WatermarkRequest.defaultColor.argb, 0xB3FF_FFFF)
    }
}
