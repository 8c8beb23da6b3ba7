import Foundation
import XCTest
import ControlAPI

final class WebSocketMessageTests: XCTestCase {
    enum Expected {
        case success(id: MessageID?, Command)
        case failure(id: MessageID?, ErrorCode, mentions: String?)
    }

    struct Row {
        var text: String
        var expected: Expected
        var line: UInt
        init(_ text: String, _ expected: Expected, line: UInt = #line) {
            self.text = text
            self.expected = expected
            self.line = line
        }
    }

    static let rows: [Row] = [
        Row(#"{"id": 7, "command": "seek", "args": {"position": 12.5}}"#,
            .success(id: .number(7), .seek(SeekRequest(position: 12.5)))),
        Row(#"{"id": 1.5, "command": "play"}"#, .success(id: .number(1.5), .play)),
        Row(#"{"id": -3, "command": "pause"}"#, .success(id: .number(-3), .pause)),
        Row(#"{"id": "abc", "command": "play"}"#, .success(id: .string("abc"), .play)),
        Row(#"{"id": "7", "command": "stop"}"#, .success(id: .string("7"), .stop)),
        // A boolean is not an id: the message is still carried out, the reply has no id.
        Row(#"{"id": true, "command": "play"}"#, .success(id: nil, .play)),
        Row(#"{"id": false, "command": "play"}"#, .success(id: nil, .play)),
        Row(#"{"id": null, "command": "play"}"#, .success(id: nil, .play)),
        Row(#"{"id": {"a": 1}, "command": "play"}"#, .success(id: nil, .play)),
        Row(#"{"command": "play"}"#, .success(id: nil, .play)),
        Row(#"{"id": 2, "command": "play", "args": null}"#, .success(id: .number(2), .play)),
        Row(#"{"id": 2, "command": "play", "args": {}}"#, .success(id: .number(2), .play)),
        Row(#"{"id": 3, "command": "set", "args": {"volume": 0.5}}"#, .success(id: .number(3), .set(settingsPatch(("volume", 0.5))))),
        Row(#"{"id": 4, "command": "subtitle", "args": {"id": null}}"#, .success(id: .number(4), .subtitle(SubtitleRequest(id: nil)))),
        Row(#"{"id": 5, "command": "subtitle", "args": {"uri": "/media/a.en.vtt"}}"#,
            .success(id: .number(5), .subtitle(SubtitleRequest(uri: "/media/a.en.vtt")))),
        // The output stage's names.
        Row(#"{"id": 10, "command": "pip.start", "args": {"uri": "/media/b.mp4", "rect": {"x": 0.7, "y": 0.7, "width": 0.25, "height": 0.25}}}"#,
            .success(id: .number(10), .pipStart(PipStartRequest(uri: "/media/b.mp4", rect: Rect(x: 0.7, y: 0.7, width: 0.25, height: 0.25))))),
        Row(#"{"id": 11, "command": "pip.update", "args": {"muted": false}}"#, .success(id: .number(11), .pipUpdate(PipUpdateRequest(muted: false)))),
        Row(#"{"id": 12, "command": "pip.swap"}"#, .success(id: .number(12), .pipSwap)),
        Row(#"{"id": 13, "command": "pip.stop", "args": null}"#, .success(id: .number(13), .pipStop)),
        Row(#"{"id": "w", "command": "watermark", "args": {"text": "LIVE", "position": "random", "interval": 5}}"#,
            .success(id: .string("w"), .watermark(WatermarkRequest(text: "LIVE", position: .random, interval: 5)))),
        Row(#"{"id": "w2", "command": "watermark.remove", "args": {}}"#, .success(id: .string("w2"), .watermarkRemove)),
        Row(#"{"id": 3, "command": "set", "args": {"subtitleStyle": {"align": "center"}}}"#,
            .success(id: .number(3), .set(settingsPatch(("subtitleStyle", SubtitleStylePatch(align: .center)))))),

        Row(#"{"id": 3}"#, .failure(id: .number(3), .invalidArgument, mentions: "'command'")),
        Row(#"{"id": "x", "command": 5}"#, .failure(id: .string("x"), .invalidArgument, mentions: "'command'")),
        Row(#"{"id": 4, "command": "seek", "args": [1]}"#, .failure(id: .number(4), .invalidArgument, mentions: "'args'")),
        Row(#"{"id": 4, "command": "seek", "args": "position=1"}"#, .failure(id: .number(4), .invalidArgument, mentions: "'args'")),
        Row(#"{"id": 4, "command": "seek", "args": 12}"#, .failure(id: .number(4), .invalidArgument, mentions: "'args'")),
        Row(#"{"id": 6, "command": "seek", "args": {"position": "x"}}"#, .failure(id: .number(6), .invalidArgument, mentions: "'position'")),
        Row(#"{"id": 6, "command": "seek"}"#, .failure(id: .number(6), .invalidArgument, mentions: nil)),
        Row(#"{"id": 8, "command": "nope"}"#, .failure(id: .number(8), .invalidArgument, mentions: "'nope'")),
        Row(#"{"id": 8, "command": "pip"}"#, .failure(id: .number(8), .invalidArgument, mentions: "'pip'")),
        Row(#"{"id": 8, "command": "pip_start"}"#, .failure(id: .number(8), .invalidArgument, mentions: "'pip_start'")),
        Row(#"{"id": 8, "command": "Pip.Swap"}"#, .failure(id: .number(8), .invalidArgument, mentions: "'Pip.Swap'")),
        Row(#"{"id": 14, "command": "pip.start"}"#, .failure(id: .number(14), .invalidArgument, mentions: "'uri'")),
        Row(#"{"id": 15, "command": "pip.update", "args": {}}"#, .failure(id: .number(15), .invalidArgument, mentions: "'rect'")),
        Row(#"{"id": 16, "command": "watermark", "args": {"text": "a", "image": "/b.png"}}"#,
            .failure(id: .number(16), .invalidArgument, mentions: "exactly one")),
        Row(#"{"id": 17, "command": "subtitle", "args": {}}"#, .failure(id: .number(17), .invalidArgument, mentions: "'uri'")),
        Row(#"{"id": true, "command": "nope"}"#, .failure(id: nil, .invalidArgument, mentions: "'nope'")),
        Row(#"{"id": 9, "command": "set", "args": {"volum": 1}}"#, .failure(id: .number(9), .invalidArgument, mentions: "'volum'")),
        Row("not json", .failure(id: nil, .invalidJSON, mentions: nil)),
        Row(#"{"id": 7, "command": "play""#, .failure(id: nil, .invalidJSON, mentions: nil)),
        Row("", .failure(id: nil, .invalidJSON, mentions: nil)),
        Row(#"[{"id": 1, "command": "play"}]"#, .failure(id: nil, .invalidJSON, mentions: nil)),
        Row(#""play""#, .failure(id: nil, .invalidJSON, mentions: nil)),
        Row("42", .failure(id: nil, .invalidJSON, mentions: nil)),
    ]

    func testDecodeRows() {
        for row in Self.rows {
            let result = WebSocketCommand.decode(row.text)
            switch (row.expected, result) {
            case (.success(let id, let command), .success(let got)):
                XCTAssertEqual(got.id, id, row.text, line: row.line)
                XCTAssertEqual(got.command, command, row.text, line: row.line)
            case (.failure(let id, let code, let mentions), .failure(let got)):
                XCTAssertEqual(got.id, id, row.text, line: row.line)
                XCTAssertEqual(got.error.code, code, "\(row.text): \(got.error.message)", line: row.line)
                if let mentions {
                    XCTAssertTrue(got.error.message.contains(mentions), "\(row.text): '\(got.error.message)' should mention \(mentions)", line: row.line)
                }
            case (.success, .failure(let got)):
                XCTFail("\(row.text): expected success, got \(got.error)", line: row.line)
            case (.failure, .success(let got)):
                XCTFail("\(row.text): expected failure, got \(got.command)", line: row.line)
            }
        }
    }

    func testReplyEncoding() {
        XCTAssertEqual(encodedText(WebSocketReply(id: .number(7))), #"{"id":7,"ok":true}"#)
        XCTAssertEqual(encodedText(WebSocketReply(id: .string("a/b"))), #"{"id":"a/b","ok":true}"#)
        XCTAssertEqual(encodedText(WebSocketReply(id: .number(1.5))), #"{"id":1.5,"ok":true}"#)
        XCTAssertEqual(encodedText(WebSocketReply(id: .number(-2))), #"{"id":-2,"ok":true}"#)
        // Without an id the key is still there, as null, so a client can tell what it answers.
        XCTAssertEqual(encodedText(WebSocketReply(id: nil)), #"{"id":null,"ok":true}"#)

        let error = APIError(.notSeekable, "this source cannot seek")
        let failed = JSONCoding.encode(WebSocketReply(id: .number(7), error: error))
        assertJSONEqual(failed, #"{"id": 7, "ok": false, "error": {"code": "not_seekable", "message": "this source cannot seek"}}"#)
        assertJSONEqual(JSONCoding.encode(WebSocketReply(id: nil, error: APIError(.invalidJSON, "bad"))),
                        #"{"id": null, "ok": false, "error": {"code": "invalid_json", "message": "bad"}}"#)
        XCTAssertFalse(WebSocketReply(id: nil, error: error).ok)
        XCTAssertTrue(WebSocketReply(id: nil).ok)
    }

    func testDecodedIDEchoesInReply() {
        for (text, reply) in [
            (#"{"id": 7, "command": "play"}"#, #"{"id":7,"ok":true}"#),
            (#"{"id": "req-1", "command": "play"}"#, #"{"id":"req-1","ok":true}"#),
            (#"{"id": 12345678901, "command": "play"}"#, #"{"id":12345678901,"ok":true}"#),
        ] {
            guard case .success(let message) = WebSocketCommand.decode(text) else {
                XCTFail("\(text) should decode")
                continue
            }
            XCTAssertEqual(encodedText(WebSocketReply(id: message.id)), reply)
        }
    }

    func testMessageIDRoundTrip() throws {
        for id in [MessageID.number(7), .number(0.25), .string("x"), .string("")] {
            XCTAssertEqual(try JSONDecoder().decode(MessageID.self, from: JSONCoding.encode(id)), id)
        }
    }
}
