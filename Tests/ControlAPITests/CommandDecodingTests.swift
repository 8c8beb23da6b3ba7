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
        Row("open", #"{"uri": "a.m3u8", "subtitle": "https://cdn.example/en.vtt"}"#, fail(.invalidArgument, "'subtitle'")),
        Row("open", #"{"uri": "a.m3u8", "userId": "u-1"}"#, fail(.invalidArgument, "'userId'")),
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
        Row("set", #"{"volume": 0.5}"#, .command(.set(SettingsPatch(volume: 0.5)))),
        Row("set", #"{"rate": 2, "muted": true, "audioDelay": -0.25, "repeat": "one"}"#,
            .command(.set(SettingsPatch(rate: 2, muted: true, audioDelay: -0.25, repeat: .one)))),
        Row("set", #"{"repeat": "all"}"#, .command(.set(SettingsPatch(repeat: .all)))),
        Row("set", #"{}"#, .command(.set(SettingsPatch()))),
        Row("set", #"{"rate": 0.1}"#, .command(.set(SettingsPatch(rate: 0.1)))),
        Row("set", #"{"rate": 10}"#, .command(.set(SettingsPatch(rate: 10)))),
        Row("set", #"{"volume": 0}"#, .command(.set(SettingsPatch(volume: 0)))),
        Row("set", #"{"volume": 10}"#, .command(.set(SettingsPatch(volume: 10)))),
        Row("set", #"{"audioDelay": 60}"#, .command(.set(SettingsPatch(audioDelay: 60)))),
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

        // variant / audio
        Row("variant", #"{"id": "auto"}"#, .command(.variant(decoded(VariantRequest.self, #"{"id": "auto"}"#)))),
        Row("variant", #"{"id": "720p"}"#, .command(.variant(decoded(VariantRequest.self, #"{"id": "720p"}"#)))),
        Row("variant", #"{}"#, fail(.invalidArgument, "'id'")),
        Row("variant", #"{"id": 3}"#, fail(.invalidArgument, "'id'")),
        Row("audio", #"{"id": "audio-1"}"#, .command(.audio(TrackRequest(id: "audio-1")))),
        Row("audio", #"{}"#, fail(.invalidArgument, "'id'")),
        Row("audio", #"{"id": null}"#, fail(.invalidArgument, "'id'")),

        // subtitle: the key is required; null turns subtitles off
        Row("subtitle", #"{"id": "subtitle-1"}"#, .command(.subtitle(SubtitleRequest(id: "subtitle-1")))),
        Row("subtitle", #"{"id": null}"#, .command(.subtitle(SubtitleRequest(id: nil)))),
        Row("subtitle", #"{}"#, fail(.invalidArgument, "'id'")),
        Row("subtitle", "", fail(.invalidArgument, "'id'")),
        Row("subtitle", #"{"id": 1}"#, fail(.invalidArgument, "'id'")),

        // unknown names
        Row("rewind", "{}", fail(.invalidArgument, "'rewind'")),
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
        ]
        XCTAssertEqual(Set(Command.names).count, Command.names.count, "names are unique")
        for name in Command.names {
            let command = try Command.decode(name: name, arguments: Data((args[name] ?? "").utf8))
            XCTAssertEqual(command.name, name)
        }
    }

    func testSubtitleRequestEncodesExplicitNull() {
        XCTAssertEqual(encodedText(SubtitleRequest(id: nil)), #"{"id":null}"#)
        XCTAssertEqual(encodedText(SubtitleRequest(id: "subtitle-2")), #"{"id":"subtitle-2"}"#)
    }
}
