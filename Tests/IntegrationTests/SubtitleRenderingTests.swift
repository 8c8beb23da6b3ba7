import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// External subtitle files (SRT, SAMI, WebVTT): drawn into the composed frame with the
/// `subtitleStyle`, reported as `cue` events and the snapshot's `cue`.
final class SubtitleRenderingTests: XCTestCase {
    var daemon: Daemon!

    override func setUpWithError() throws { daemon = try Daemon() }
    override func tearDown() { XCTAssertEqual(daemon.stop(), 0) }

    static let readWidth = 320, readHeight = 180
    static let topThird = FrameRect(x: 0, y: 0, width: 1, height: 1.0 / 3)
    static let bottomThird = FrameRect(x: 0, y: 2.0 / 3, width: 1, height: 1.0 / 3)
    static let middleThird = FrameRect(x: 0, y: 1.0 / 3, width: 1, height: 1.0 / 3)

    // MARK: Rendering

    func testStyleColourAndAlignmentApplyLive() throws {
        let subtitles = try OutputFixtures.longCue(.srt)
        let opened = try daemon.openPlaying(try OutputFixtures.solidClip(.black), ["subtitle": subtitles.path])
        let style = opened["subtitleStyle"] as? [String: Any]
        XCTAssertEqual(style?["fontSize"] as? Double ?? 0, 0.05, accuracy: 1e-9, "default style: \(opened)")
        XCTAssertEqual(style?["color"] as? String, "#FFFFFFFF", "default style: \(opened)")
        XCTAssertEqual(style?["align"] as? String, "bottom", "default style: \(opened)")

        // The default: white text at the bottom.
        try daemon.waitForFrame("white text in the bottom third only", width: Self.readWidth, height: Self.readHeight) {
            $0.count(in: Self.bottomThird, where: \.isLight) >= 30 && $0.count(outside: Self.bottomThird, where: \.isLight) == 0
        }
        let cue = try daemon.waitFor("the cue in the snapshot") { $0.cue != nil }.cue
        XCTAssertEqual(cue?["text"] as? String, "MWM WMW MWM")
        XCTAssertEqual(cue?["start"] as? Double ?? -1, 0, accuracy: 0.05)
        XCTAssertEqual(cue?["end"] as? Double ?? -1, 60, accuracy: 0.05)

        var (status, body) = try daemon.send("PATCH", "/v1/player",
                                             ["subtitleStyle": ["color": "#00FF00FF", "align": "top", "fontSize": 0.1]])
        XCTAssertEqual(status, 200, "\(body)")
        let patched = body["subtitleStyle"] as? [String: Any]
        XCTAssertEqual(patched?["color"] as? String, "#00FF00FF", "\(body)")
        XCTAssertEqual(patched?["align"] as? String, "top", "\(body)")
        XCTAssertEqual(patched?["fontSize"] as? Double ?? 0, 0.1, accuracy: 1e-9, "\(body)")
        try daemon.waitForFrame("green text in the top third, none in the bottom third",
                                width: Self.readWidth, height: Self.readHeight) {
            $0.count(in: Self.topThird, where: \.isGreenish) >= 100 && $0.count(in: Self.bottomThird, where: \.isGreenish) == 0
                && $0.count(in: Self.bottomThird, where: \.isLight) == 0
        }

        (status, body) = try daemon.send("PATCH", "/v1/player", ["subtitleStyle": ["align": "bottom"]])
        XCTAssertEqual(status, 200, "\(body)")
        XCTAssertEqual((body["subtitleStyle"] as? [String: Any])?["color"] as? String, "#00FF00FF",
                       "a style PATCH changes only the fields it names: \(body)")
        try daemon.waitForFrame("green text in the bottom third, none in the top third",
                                width: Self.readWidth, height: Self.readHeight) {
            $0.count(in: Self.bottomThird, where: \.isGreenish) >= 100 && $0.count(in: Self.topThird, where: \.isGreenish) == 0
        }

        (status, body) = try daemon.send("PATCH", "/v1/player", ["subtitleStyle": ["align": "center"]])
        XCTAssertEqual(status, 200, "\(body)")
        try daemon.waitForFrame("green text in the middle third only", width: Self.readWidth, height: Self.readHeight) {
            $0.count(in: Self.middleThird, where: \.isGreenish) >= 100 && $0.count(outside: Self.middleThird, where: \.isGreenish) == 0
        }
        XCTAssertEqual(try daemon.snapshot().state, "playing")
    }

    func testFontSizeScalesTheText() throws {
        let subtitles = try OutputFixtures.longCue(.webvtt)
        try daemon.openPlaying(try OutputFixtures.solidClip(.black), ["subtitle": subtitles.path])
        func textBox(fontSize: Double) throws -> FrameRect? {
            let (status, body) = try daemon.send("PATCH", "/v1/player", ["subtitleStyle": ["fontSize": fontSize, "color": "#00FF00FF"]])
            XCTAssertEqual(status, 200, "\(body)")
            let frame = try daemon.waitForFrame("green text of size \(fontSize)", width: Self.readWidth, height: Self.readHeight) {
                guard let box = $0.boundingBox(where: \.isGreenish) else { return false }
                // Capital letters fill about 0.7 of a line; allow for outlines and rounding.
                return box.height > fontSize * 0.4 && box.height < fontSize * 1.6
            }
            return frame?.boundingBox(where: \.isGreenish)
        }
        let small = try XCTUnwrap(try textBox(fontSize: 0.05))
        let large = try XCTUnwrap(try textBox(fontSize: 0.15))
        XCTAssertGreaterThan(large.height, small.height * 2, "small \(small), large \(large)")
        XCTAssertGreaterThan(large.width, small.width * 2, "small \(small), large \(large)")
    }

    func testStyleValidation() throws {
        try daemon.openPlaying(try OutputFixtures.solidClip(.black), ["subtitle": try OutputFixtures.longCue(.srt).path])
        let bad: [[String: Any]] = [
            ["fontSize": 0], ["fontSize": 0.9], ["fontSize": "big"],
            ["color": "green"], ["color": "#12345"], ["align": "left"], ["weight": "bold"],
        ]
        let (okStatus, okBody) = try daemon.send("PATCH", "/v1/player", ["subtitleStyle": ["color": "#00ff00"]])
        XCTAssertEqual(okStatus, 200, "\(okBody)")
        XCTAssertEqual((okBody["subtitleStyle"] as? [String: Any])?["color"] as? String, "#00FF00FF",
                       "#RRGGBB is opaque, and colours come back upper case: \(okBody)")
        for style in bad {
            let (status, body) = try daemon.send("PATCH", "/v1/player", ["subtitleStyle": style])
            XCTAssertEqual(status, 400, "\(style): \(body)")
            XCTAssertEqual(body.errorCode, "invalid_argument", "\(style): \(body)")
        }
        let style = try daemon.snapshot()["subtitleStyle"] as? [String: Any]
        XCTAssertEqual(style?["color"] as? String, "#00FF00FF", "refused PATCHes change nothing: \(style ?? [:])")
        XCTAssertEqual(style?["align"] as? String, "bottom")
    }

    // MARK: Cue events

    func testSRTCueEvents() throws { try assertCueEvents(.srt) }
    func testSAMICueEvents() throws { try assertCueEvents(.sami) }
    func testWebVTTCueEvents() throws { try assertCueEvents(.webvtt) }

    /// Opens the black clip with `OutputFixtures.shortCues(format)` and follows `cue` events
    /// until the last cue clears: texts in order, times within 0.05 s, a null in each gap.
    private func assertCueEvents(_ format: SubtitleFileFormat, file: StaticString = #filePath, line: UInt = #line) throws {
        let subtitles = try OutputFixtures.shortCues(format)
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        let opened = try daemon.openPlaying(try OutputFixtures.solidClip(.black), ["subtitle": subtitles.path], file: file, line: line)
        let tracks = (opened["tracks"] as? [String: Any])?["subtitle"] as? [[String: Any]] ?? []
        XCTAssertEqual(tracks.filter { $0["selected"] as? Bool == true }.count, 1,
                       "the external file is the selected subtitle track: \(tracks)", file: file, line: line)

        let lastText = subtitles.cues.last!.text
        var sawLast = false
        let events = try collectEvents(ws, timeout: 15) { events in
            guard let event = events.last, event["type"] as? String == "cue" else { return false }
            if (event["data"] as? [String: Any])?["text"] as? String == lastText { sawLast = true; return false }
            return sawLast && event["data"] is NSNull
        }
        var cues = events.filter { $0["type"] as? String == "cue" }.map { $0["data"] as? [String: Any] }
        // A null before the first cue (nothing on screen at open) says nothing.
        while let first = cues.first, first == nil { cues.removeFirst() }
        let summary = cues.map { $0.map { "\($0["text"] ?? "?") \($0["start"] ?? "?")-\($0["end"] ?? "?")" } ?? "null" }
        let shown = cues.compactMap { $0 }
        XCTAssertEqual(shown.compactMap { $0["text"] as? String }, subtitles.cues.map(\.text),
                       "\(format) cue texts in order; events: \(summary)", file: file, line: line)
        for (event, expected) in zip(shown, subtitles.cues) {
            let start = event["start"] as? Double ?? -1, end = event["end"] as? Double ?? -1
            XCTAssertEqual(start, expected.start, accuracy: 0.05, "\(format) start of \(expected)", file: file, line: line)
            XCTAssertEqual(end, expected.end, accuracy: 0.05, "\(format) end of \(expected)", file: file, line: line)
        }
        // A gap between two cues shows as a null between them; back-to-back cues may skip it.
        var index = 0
        for (i, expected) in subtitles.cues.enumerated() {
            guard let at = cues[index...].firstIndex(where: { $0?["text"] as? String == expected.text }) else { break }
            let gapAfter = i + 1 == subtitles.cues.count || subtitles.cues[i + 1].start > expected.end + 0.01
            let nextIsNull = at + 1 < cues.count && cues[at + 1] == nil
            if gapAfter {
                XCTAssertTrue(nextIsNull, "\(format): a null clears \(expected); events: \(summary)", file: file, line: line)
            }
            index = at + 1
        }
        // Each cue comes while the media is inside it: position events around a cue event
        // bracket it (loosely: position events are throttled, and a position is read a little
        // before or after the frame it belongs to).
        var lastPosition: Double?
        var pendingCue: ExpectedCue?
        for event in events {
            let type = event["type"] as? String
            if type == "position", let position = (event["data"] as? [String: Any])?["position"] as? Double {
                if let cue = pendingCue {
                    XCTAssertGreaterThanOrEqual(position, cue.start - 0.3,
                                                "\(format): \(cue) announced before its start (next position \(position))", file: file, line: line)
                    pendingCue = nil
                }
                lastPosition = position
            } else if type == "cue", let data = event["data"] as? [String: Any],
                      let cue = subtitles.cues.first(where: { $0.text == data["text"] as? String }) {
                if let lastPosition {
                    XCTAssertLessThanOrEqual(lastPosition, cue.end + 0.3,
                                             "\(format): \(cue) announced after its end (last position \(lastPosition))", file: file, line: line)
                }
                pendingCue = cue
            }
        }
        XCTAssertTrue(cues.last.map { $0 == nil } ?? false, "\(format): the last cue clears; events: \(summary)", file: file, line: line)
        XCTAssertTrue(try daemon.snapshot()["cue"] is NSNull, "no cue on screen after the last", file: file, line: line)
        XCTAssertEqual(try daemon.snapshot().state, "playing", file: file, line: line)
    }

    /// An embedded text track (Matroska, from subparse) is drawn by Marquee too and each of
    /// its cues is an event, timed by the stream; `{"id": null}` stops them.
    func testEmbeddedSubtitleTrackCueEvents() throws {
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        let opened = try daemon.openPlaying(try MediaFixtures.mkvWithTracks(seconds: 6))
        let tracks = (opened["tracks"] as? [String: Any])?["subtitle"] as? [[String: Any]] ?? []
        XCTAssertEqual(tracks.count, 1, "\(tracks)")

        let events = try collectEvents(ws, timeout: 10) { events in
            events.contains { ($0["data"] as? [String: Any])?["text"] as? String == "Subtitle 3" }
                && events.last?["type"] as? String == "cue" && events.last?["data"] is NSNull
        }
        let shown = events.filter { $0["type"] as? String == "cue" }.compactMap { $0["data"] as? [String: Any] }
        let texts = shown.compactMap { $0["text"] as? String }
        XCTAssertEqual(Array(texts.prefix(3)), ["Subtitle 1", "Subtitle 2", "Subtitle 3"], "\(shown)")
        // The fixture shows cue n from n-1 s to n-1 + 0.8 s.
        for (n, cue) in shown.prefix(3).enumerated() {
            XCTAssertEqual(cue["start"] as? Double ?? -1, Double(n), accuracy: 0.05, "\(cue)")
            XCTAssertEqual(cue["end"] as? Double ?? -1, Double(n) + 0.8, accuracy: 0.05, "\(cue)")
        }

        let (status, body) = try daemon.post("/v1/player/tracks/subtitle", ["id": NSNull()])
        XCTAssertEqual(status, 200, "\(body)")
        let after = try collectEvents(ws, timeout: 2.5) { _ in false }
        let late = after.filter { $0["type"] as? String == "cue" && !($0["data"] is NSNull) }
        XCTAssertEqual(late.count, 0, "no cues once subtitles are off: \(late)")
        XCTAssertEqual(try daemon.snapshot().state, "playing")
    }

    // MARK: Loading and turning off

    func testAddSubtitleFileMidPlaybackThenTurnOff() throws {
        let subtitles = try OutputFixtures.longCue(.sami)
        try daemon.openPlaying(try OutputFixtures.solidClip(.black))
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        try daemon.waitForFrame("no text before a subtitle file", width: Self.readWidth, height: Self.readHeight) {
            $0.fraction(where: \.isBlack) > 0.99
        }
        XCTAssertTrue(try daemon.snapshot()["cue"] is NSNull)

        var (status, body) = try daemon.send("POST", "/v1/player/tracks/subtitle", ["uri": subtitles.path])
        XCTAssertEqual(status, 200, "\(body)")
        let tracks = (body["tracks"] as? [String: Any])?["subtitle"] as? [[String: Any]] ?? []
        XCTAssertEqual(tracks.count, 1, "the file is listed in tracks.subtitle: \(body)")
        XCTAssertEqual(tracks.first?["selected"] as? Bool, true, "and selected: \(tracks)")
        let trackID = tracks.first?["id"] as? String
        XCTAssertEqual(trackID, "external-1", "\(tracks)")
        XCTAssertEqual(tracks.first?["title"] as? String, subtitles.url.lastPathComponent, "\(tracks)")
        _ = try daemon.waitFor("the cue in the snapshot") { ($0.cue?["text"] as? String) == "MWM WMW MWM" }
        try daemon.waitForFrame("white text at the bottom", width: Self.readWidth, height: Self.readHeight) {
            $0.count(in: Self.bottomThird, where: \.isLight) >= 30
        }

        (status, body) = try daemon.send("POST", "/v1/player/tracks/subtitle", ["id": NSNull()])
        XCTAssertEqual(status, 200, "\(body)")
        _ = try daemon.waitFor("cue cleared") { $0["cue"] is NSNull }
        try daemon.waitForFrame("no text once subtitles are off", width: Self.readWidth, height: Self.readHeight) {
            $0.count(where: \.isLight) == 0 && $0.fraction(where: \.isBlack) > 0.99
        }
        let subs = ((try daemon.snapshot()["tracks"] as? [String: Any])?["subtitle"] as? [[String: Any]]) ?? []
        XCTAssertTrue(subs.allSatisfy { $0["selected"] as? Bool == false }, "nothing selected: \(subs)")

        let events = try collectEvents(ws, timeout: 5) { events in
            events.contains { $0["type"] as? String == "cue" && $0["data"] is NSNull }
        }
        let cues = events.filter { $0["type"] as? String == "cue" }.map { $0["data"] }
        XCTAssertEqual((cues.first as? [String: Any])?["text"] as? String, "MWM WMW MWM", "\(cues)")
        XCTAssertTrue(cues.last is NSNull, "turning subtitles off clears the cue: \(cues)")

        // Selecting the file's track again brings the cue back.
        if let trackID {
            (status, body) = try daemon.send("POST", "/v1/player/tracks/subtitle", ["id": trackID])
            XCTAssertEqual(status, 200, "\(body)")
            _ = try daemon.waitFor("the cue back") { ($0.cue?["text"] as? String) == "MWM WMW MWM" }
        }
        XCTAssertEqual(try daemon.snapshot().state, "playing")
    }

    func testMissingAndUnparseableFilesAreErrorsAndPlaybackGoesOn() throws {
        var (status, body) = try daemon.send("POST", "/v1/player/tracks/subtitle", ["uri": try OutputFixtures.longCue(.srt).path])
        XCTAssertEqual(status, 409, "a file needs a source to go with: \(body)")
        XCTAssertEqual(body.errorCode, "no_source", "\(body)")
        try daemon.openPlaying(try OutputFixtures.solidClip(.black))
        (status, body) = try daemon.send("POST", "/v1/player/tracks/subtitle", ["uri": OutputFixtures.missingSubtitlePath()])
        XCTAssertEqual(status, 404, "a missing file: \(body)")
        XCTAssertEqual(body.errorCode, "not_found", "\(body)")

        for format in SubtitleFileFormat.allCases {
            (status, body) = try daemon.send("POST", "/v1/player/tracks/subtitle",
                                             ["uri": try OutputFixtures.unparseableSubtitle(format).path])
            XCTAssertEqual(status, 422, "an unparseable .\(format.fileExtension): \(body)")
            XCTAssertEqual(body.errorCode, "subtitle_error", "\(body)")
        }
        (status, body) = try daemon.send("POST", "/v1/player/tracks/subtitle", ["uri": ""])
        XCTAssertEqual(status, 400, "an empty uri: \(body)")
        (status, body) = try daemon.send("POST", "/v1/player/tracks/subtitle", ["uri": "/tmp/a.srt", "id": "x"])
        XCTAssertEqual(status, 400, "uri and id together: \(body)")

        let snapshot = try daemon.snapshot()
        XCTAssertEqual(snapshot.state, "playing", "a bad subtitle file never stops playback")
        XCTAssertTrue(snapshot["error"] is NSNull, "\(snapshot["error"] ?? "")")
        let subs = ((snapshot["tracks"] as? [String: Any])?["subtitle"] as? [[String: Any]]) ?? []
        XCTAssertEqual(subs.count, 0, "no track for a file that failed: \(subs)")

        // A good file still loads afterwards.
        (status, body) = try daemon.send("POST", "/v1/player/tracks/subtitle", ["uri": try OutputFixtures.longCue(.srt).url.absoluteString])
        XCTAssertEqual(status, 200, "a file:// URI: \(body)")
        _ = try daemon.waitFor("the cue") { ($0.cue?["text"] as? String) == "MWM WMW MWM" }
    }

    func testOpenWithABrokenSubtitleFileIsRefusedAndThePlayingSourceGoesOn() throws {
        let clip = try OutputFixtures.solidClip(.black)
        let playing = try daemon.openPlaying(clip)
        let before = try XCTUnwrap((playing["source"] as? [String: Any])?["uri"] as? String)

        var (status, body) = try daemon.post("/v1/player/open", ["uri": try OutputFixtures.solidClip(.red).path,
                                                                 "subtitle": try OutputFixtures.unparseableSubtitle(.webvtt).path])
        XCTAssertEqual(status, 422, "\(body)")
        XCTAssertEqual(body.errorCode, "subtitle_error", "\(body)")

        (status, body) = try daemon.post("/v1/player/open", ["uri": try OutputFixtures.solidClip(.red).path,
                                                             "subtitle": OutputFixtures.missingSubtitlePath(.sami)])
        XCTAssertEqual(status, 404, "\(body)")
        XCTAssertEqual(body.errorCode, "not_found", "\(body)")

        let snapshot = try daemon.snapshot()
        XCTAssertEqual(snapshot.state, "playing", "the refused opens left the playing source alone")
        XCTAssertEqual((snapshot["source"] as? [String: Any])?["uri"] as? String, before)
        XCTAssertTrue(snapshot["error"] is NSNull, "\(snapshot["error"] ?? "")")
    }
}

extension Dictionary where Key == String, Value == Any {
    var cue: [String: Any]? { self["cue"] as? [String: Any] }
}
