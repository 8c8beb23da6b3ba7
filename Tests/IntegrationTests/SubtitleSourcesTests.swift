import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// Subtitles from http(s) URLs (fetched with the item's headers, size-limited, the open's
/// reply held until they arrived) and by language (a Korean/English SAMI file is two tracks).
final class SubtitleSourcesTests: XCTestCase {
    var daemon: Daemon!
    var server: RecordingHTTPServer!
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("subtitle-sources-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        server = try RecordingHTTPServer(root: folder)
        daemon = try Daemon()
    }

    override func tearDown() {
        daemon.assertStopsCleanly()
        server.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    private func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: folder.appendingPathComponent(name))
    }

    /// Serves the black clip next to the subtitles: `headers` are only for network sources.
    private func servedClip() throws -> String {
        let clip = folder.appendingPathComponent("clip.mp4")
        if !FileManager.default.fileExists(atPath: clip.path) {
            try FileManager.default.copyItem(at: try OutputFixtures.solidClip(.black), to: clip)
        }
        return "\(server.baseURL)/clip.mp4"
    }

    private static func cueTexts(_ events: [[String: Any]]) -> [String] {
        events.filter { $0["type"] as? String == "cue" }.compactMap { ($0["data"] as? [String: Any])?["text"] as? String }
    }

    private static let srt = "1\n00:00:00,300 --> 00:00:20,000\nFetched over HTTP\n"

    /// (a) The SRT comes from the server with the open's header on its request, and its cue
    /// arrives as a `cue` event.
    func testHTTPSubtitleIsFetchedWithTheOpensHeaders() throws {
        try write("subs.srt", Self.srt)
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        let (status, body) = try daemon.post("/v1/player/open?wait=playing&timeout=15", [
            "uri": try servedClip(), "headers": ["X-Subtitle-Token": "tok-42"], "subtitle": "\(server.baseURL)/subs.srt",
        ])
        XCTAssertEqual(status, 200, "\(body)")
        let events = try collectEvents(ws, timeout: 10) { Self.cueTexts($0).contains("Fetched over HTTP") }
        XCTAssertEqual(Self.cueTexts(events), ["Fetched over HTTP"], "the fetched file's cue, shown")
        let fetch = try XCTUnwrap(server.requests.first { $0.path == "/subs.srt" }, "the subtitle was requested")
        XCTAssertEqual(fetch.headers["x-subtitle-token"], "tok-42", "with the open's headers: \(fetch.headers)")
        let subtitles = (body["tracks"] as? [String: Any])?["subtitle"] as? [[String: Any]] ?? []
        XCTAssertEqual(subtitles.first { $0["selected"] as? Bool == true }?["title"] as? String, "subs.srt")
    }

    /// The open's reply waits for the subtitle, but the daemon does not: while the server
    /// holds the file, the API answers and what played goes on; the open applies once it came.
    func testOpenWaitsForTheSubtitleWithoutBlockingTheDaemon() throws {
        try write("slow.srt", Self.srt)
        try daemon.openPlaying(try OutputFixtures.solidClip(.red))
        server.hold(path: "/slow.srt")
        let clip = try servedClip()
        let replied = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var response: HTTPResponse?
        let client = daemon.client
        let subtitle = "\(server.baseURL)/slow.srt"
        DispatchQueue.global().async {
            response = try? client.post("/v1/player/open", json: ["uri": clip, "subtitle": subtitle])
            replied.signal()
        }
        let deadline = Date().addingTimeInterval(5)
        while !server.requests.contains(where: { $0.path == "/slow.srt" }), Date() < deadline { usleep(20_000) }
        XCTAssertTrue(server.requests.contains { $0.path == "/slow.srt" }, "the subtitle is being fetched")
        let started = Date()
        let during = try daemon.snapshot()
        XCTAssertLessThan(Date().timeIntervalSince(started), 1, "the API answers while the subtitle is fetched")
        XCTAssertEqual(during.state, "playing")
        XCTAssertTrue(((during["source"] as? [String: Any])?["uri"] as? String)?.hasSuffix(".mp4") == true)
        XCTAssertFalse(((during["source"] as? [String: Any])?["uri"] as? String)?.hasPrefix("http") == true, "not yet replaced")
        XCTAssertEqual(replied.wait(timeout: .now() + 0.3), .timedOut, "the open's reply waits for its subtitle")
        server.release(path: "/slow.srt")
        XCTAssertEqual(replied.wait(timeout: .now() + 10), .success)
        let reply = try XCTUnwrap(response, "the open was answered")
        XCTAssertEqual(reply.status, 200, reply.text)
        let applied = try reply.json() as? [String: Any]
        XCTAssertEqual((applied?["source"] as? [String: Any])?["uri"] as? String, clip, "the reply is the snapshot of the applied open")
    }

    /// (b) A 404 refuses the open with `422 subtitle_error` naming the status, and what
    /// played goes on; the same for `tracks/subtitle`.
    func testMissingHTTPSubtitleRefusesTheOpen() throws {
        let playing = try OutputFixtures.solidClip(.red)
        try daemon.openPlaying(playing)
        let (status, body) = try daemon.post("/v1/player/open", ["uri": try servedClip(), "subtitle": "\(server.baseURL)/missing.srt"])
        XCTAssertEqual(status, 422, "\(body)")
        XCTAssertEqual(body.errorCode, "subtitle_error")
        let message = (body["error"] as? [String: Any])?["message"] as? String ?? ""
        XCTAssertTrue(message.contains("404") && message.contains("missing.srt"), message)
        let after = try daemon.snapshot()
        XCTAssertEqual(after.state, "playing")
        XCTAssertEqual((after["source"] as? [String: Any])?["uri"] as? String, playing.absoluteString, "the old source plays on")
        XCTAssertFalse(server.requests.contains { $0.path == "/clip.mp4" }, "the source was never opened")

        let added = try daemon.post("/v1/player/tracks/subtitle", ["uri": "\(server.baseURL)/missing.vtt"])
        XCTAssertEqual(added.0, 422, "\(added.1)")
        XCTAssertEqual(added.1.errorCode, "subtitle_error")
        XCTAssertEqual(try daemon.snapshot().state, "playing")
        XCTAssertEqual(((try daemon.snapshot()["tracks"] as? [String: Any])?["subtitle"] as? [Any])?.count, 0)
    }

    /// Over the WebSocket the command's reply waits for the file too: ok once it was added,
    /// or its error.
    func testWebSocketSubtitleCommandIsAnsweredOnceFetched() throws {
        try write("subs.srt", Self.srt)
        try daemon.openPlaying(try OutputFixtures.solidClip(.red))
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        try ws.send(json: ["id": 1, "command": "subtitle", "args": ["uri": "\(server.baseURL)/missing.srt"]])
        try ws.send(json: ["id": 2, "command": "subtitle", "args": ["uri": "\(server.baseURL)/subs.srt"]])
        let events = try collectEvents(ws, timeout: 10) { events in events.filter { $0["ok"] != nil }.count == 2 }
        let replies = Dictionary(events.filter { $0["ok"] != nil }.map { ($0["id"] as? Int ?? 0, $0) }) { a, _ in a }
        XCTAssertEqual(replies[1]?["ok"] as? Bool, false, "\(events)")
        XCTAssertEqual((replies[1]?["error"] as? [String: Any])?["code"] as? String, "subtitle_error")
        XCTAssertEqual(replies[2]?["ok"] as? Bool, true, "\(events)")
        let subtitles = (try daemon.snapshot()["tracks"] as? [String: Any])?["subtitle"] as? [[String: Any]] ?? []
        XCTAssertEqual(subtitles.map { $0["title"] as? String }, ["subs.srt"], "added by the time it was answered")
    }

    /// (d) A body past 16 MiB is refused, as a local file of that size is.
    func testOversizedHTTPSubtitleIsRefused() throws {
        // Valid SRT all the way, so that only the size can refuse it.
        let cue = "1\n00:00:00,300 --> 00:00:20,000\n\(String(repeating: "x", count: 1000))\n\n"
        let big = Data(String(repeating: cue, count: (17 << 20) / cue.utf8.count).utf8)
        XCTAssertGreaterThan(big.count, 16 << 20)
        try big.write(to: folder.appendingPathComponent("big.srt"))
        try daemon.openPlaying(try OutputFixtures.solidClip(.red))
        let (status, body) = try daemon.post("/v1/player/tracks/subtitle", ["uri": "\(server.baseURL)/big.srt"])
        XCTAssertEqual(status, 422, "\(body)")
        XCTAssertEqual(body.errorCode, "subtitle_error")
        XCTAssertTrue(((body["error"] as? [String: Any])?["message"] as? String ?? "").contains("16 MiB"), "\(body)")
        XCTAssertEqual(try daemon.snapshot().state, "playing")
    }

    /// `--allow-scheme` governs subtitle URLs as it governs sources.
    func testHTTPSubtitleNeedsItsSchemeAllowed() throws {
        daemon.assertStopsCleanly()
        daemon = try Daemon(extraArguments: ["--allow-scheme", "file"])
        try write("subs.srt", Self.srt)
        try daemon.openPlaying(try OutputFixtures.solidClip(.red))
        let (status, body) = try daemon.post("/v1/player/tracks/subtitle", ["uri": "\(server.baseURL)/subs.srt"])
        XCTAssertEqual(status, 403, "\(body)")
        XCTAssertEqual(body.errorCode, "forbidden")
        XCTAssertFalse(server.requests.contains { $0.path == "/subs.srt" }, "never fetched")
    }

    // MARK: Languages

    /// A Korean/English SAMI file: two cues a second per language.
    private static let koreanEnglishSAMI = """
        <SAMI><HEAD><TITLE>Two languages</TITLE><STYLE TYPE="text/css"><!--
        P { margin-left: 8pt; font-size: 20pt; }
        .KRCC { Name: Korean; lang: ko-KR; SAMIType: CC; }
        .ENCC { Name: English; lang: en-US; SAMIType: CC; }
        --></STYLE></HEAD><BODY>
        <SYNC Start=200><P Class=KRCC>하나</P><P Class=ENCC>One</P>
        <SYNC Start=1200><P Class=KRCC>둘</P><P Class=ENCC>Two</P>
        <SYNC Start=2200><P Class=KRCC>셋</P><P Class=ENCC>Three</P>
        <SYNC Start=3200><P Class=KRCC>넷</P><P Class=ENCC>Four</P>
        <SYNC Start=20000><P Class=KRCC>&nbsp;</P><P Class=ENCC>&nbsp;</P>
        </BODY></SAMI>
        """

    /// (c) `subtitleLanguage: "ko"` shows only the Korean class; the tracks list both
    /// languages, and switching to English shows only English.
    func testSAMILanguageIsChosenByClass() throws {
        let sami = folder.appendingPathComponent("film.smi")
        try Data(Self.koreanEnglishSAMI.utf8).write(to: sami)
        let korean: Set = ["하나", "둘", "셋", "넷"], english: Set = ["One", "Two", "Three", "Four"]
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        let opened = try daemon.openPlaying(try OutputFixtures.solidClip(.black), ["subtitle": sami.path, "subtitleLanguage": "ko"])
        let subtitles = try XCTUnwrap((opened["tracks"] as? [String: Any])?["subtitle"] as? [[String: Any]])
        XCTAssertEqual(subtitles.compactMap { $0["language"] as? String }, ["ko-KR", "en-US"], "one track per language: \(subtitles)")
        XCTAssertEqual(subtitles.compactMap { $0["title"] as? String }, ["Korean", "English"], "titled by the classes' Name:")
        XCTAssertEqual(subtitles.filter { $0["selected"] as? Bool == true }.compactMap { $0["language"] as? String }, ["ko-KR"])

        var events = try collectEvents(ws, timeout: 10) { Set(Self.cueTexts($0)).intersection(korean).count >= 2 }
        XCTAssertGreaterThanOrEqual(Set(Self.cueTexts(events)).intersection(korean).count, 2, "Korean cues: \(Self.cueTexts(events))")
        XCTAssertTrue(Set(Self.cueTexts(events)).isDisjoint(with: english), "no English: \(Self.cueTexts(events))")

        let englishID = try XCTUnwrap(subtitles.first { $0["language"] as? String == "en-US" }?["id"] as? String)
        let (status, body) = try daemon.post("/v1/player/tracks/subtitle", ["id": englishID])
        XCTAssertEqual(status, 200, "\(body)")
        events = try collectEvents(ws, timeout: 10) { Set(Self.cueTexts($0)).intersection(english).count >= 2 }
        let afterSwitch = Self.cueTexts(events)
        XCTAssertGreaterThanOrEqual(Set(afterSwitch).intersection(english).count, 2, "English cues: \(afterSwitch)")
        XCTAssertTrue(Set(afterSwitch).isDisjoint(with: korean), "no Korean after the switch: \(afterSwitch)")
    }

    /// Without a match the first language shows; `en` picks the English class of a file
    /// fetched over http(s) too (the format told by its content).
    func testSubtitleLanguageOverHTTP() throws {
        try write("film-subs", Self.koreanEnglishSAMI)
        let opened = try daemon.openPlaying(try OutputFixtures.solidClip(.black),
                                            ["subtitle": "\(server.baseURL)/film-subs", "subtitleLanguage": "EN"])
        let subtitles = try XCTUnwrap((opened["tracks"] as? [String: Any])?["subtitle"] as? [[String: Any]])
        XCTAssertEqual(subtitles.filter { $0["selected"] as? Bool == true }.compactMap { $0["language"] as? String }, ["en-US"])
        _ = try daemon.waitFor("an English cue") { (($0["cue"] as? [String: Any])?["text"] as? String).map { ["One", "Two"].contains($0) } == true }

        let fallback = try daemon.openPlaying(try OutputFixtures.solidClip(.black),
                                              ["subtitle": "\(server.baseURL)/film-subs", "subtitleLanguage": "fr"])
        let tracks = (fallback["tracks"] as? [String: Any])?["subtitle"] as? [[String: Any]] ?? []
        XCTAssertEqual(tracks.filter { $0["selected"] as? Bool == true }.compactMap { $0["language"] as? String }, ["ko-KR"])
    }

    /// Without an external file, `subtitleLanguage` picks the embedded subtitle track in
    /// that language: the second of a Matroska file's two ("ko"), whose text the cues carry.
    func testSubtitleLanguagePicksAnEmbeddedTrack() throws {
        let clip = try MediaFixtures.mkvWithSubtitleLanguages()
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        _ = try daemon.openPlaying(clip, ["subtitleLanguage": "ko"])
        let snap = try daemon.waitFor("the Korean track selected") { snap in
            let subs = ((snap["tracks"] as? [String: Any])?["subtitle"] as? [[String: Any]]) ?? []
            return subs.count == 2 && subs.first { $0["selected"] as? Bool == true }?["language"] as? String == "ko"
        }
        let subs = try XCTUnwrap((snap["tracks"] as? [String: Any])?["subtitle"] as? [[String: Any]])
        XCTAssertEqual(subs.compactMap { $0["language"] as? String }, ["en", "ko"], "the file's order: \(subs)")
        XCTAssertEqual(subs.filter { $0["selected"] as? Bool == true }.count, 1)
        let events = try collectEvents(ws, timeout: 10) { Self.cueTexts($0).contains { $0.hasPrefix("한국어") } }
        let texts = Self.cueTexts(events).filter { !$0.isEmpty }
        XCTAssertTrue(texts.contains { $0.hasPrefix("한국어") }, "Korean cues: \(texts)")
        XCTAssertFalse(texts.contains { $0.hasPrefix("English") }, "no English cue: \(texts)")
    }

    /// The CP949 bytes of the Korean syllables the SAMI file below uses (Python's
    /// `encode("cp949")`); 똠 is in CP949's extension (UHC) only, not in EUC-KR.
    private static let cp949Syllables: [Character: [UInt8]] = [
        "똠": [0x8C, 0x63], "방": [0xB9, 0xE6], "하": [0xC7, 0xCF], "나": [0xB3, 0xAA],
        "둘": [0xB5, 0xD1], "셋": [0xBC, 0xC2], "넷": [0xB3, 0xDD],
    ]

    private static func cp949(_ text: String) throws -> Data {
        var bytes: [UInt8] = []
        for character in text {
            if character.isASCII { bytes += Array(String(character).utf8); continue }
            bytes += try XCTUnwrap(cp949Syllables[character], "no CP949 bytes for \(character)")
        }
        return Data(bytes)
    }

    /// A Korean/English SAMI file in CP949 without a charset (as most Korean SAMI files
    /// are): with `subtitleLanguage: "ko"` its Korean cues arrive as Korean text. The UHC
    /// syllable keeps the bytes from looking Korean by themselves, so it is the language
    /// asked for that decides (Windows-1252 would give "Œc¹æ ÇÏ³ª").
    func testCP949SAMIWithKoreanAskedFor() throws {
        let sami = folder.appendingPathComponent("legacy.smi")
        try Self.cp949(Self.koreanEnglishSAMI.replacingOccurrences(of: ">하나<", with: ">똠방 하나<")).write(to: sami)
        XCTAssertNil(String(data: try Data(contentsOf: sami), encoding: .utf8), "the file is not UTF-8")
        let korean: Set = ["똠방 하나", "둘", "셋", "넷"]
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        let opened = try daemon.openPlaying(try OutputFixtures.solidClip(.black), ["subtitle": sami.path, "subtitleLanguage": "ko"])
        let subtitles = try XCTUnwrap((opened["tracks"] as? [String: Any])?["subtitle"] as? [[String: Any]])
        XCTAssertEqual(subtitles.filter { $0["selected"] as? Bool == true }.compactMap { $0["language"] as? String }, ["ko-KR"])
        let events = try collectEvents(ws, timeout: 10) { Set(Self.cueTexts($0)).intersection(korean).count >= 2 }
        let texts = Self.cueTexts(events).filter { !$0.isEmpty }
        XCTAssertTrue(texts.contains("똠방 하나"), "the first Korean cue, decoded: \(texts)")
        XCTAssertGreaterThanOrEqual(Set(texts).intersection(korean).count, 2, "Korean cues: \(texts)")
        XCTAssertTrue(Set(texts).isSubset(of: korean), "nothing else: \(texts)")
    }

    /// A queue item's http(s) subtitle is fetched like an open's (with the item's headers)
    /// and its cue arrives; the queue lists the item as it plays.
    func testQueueItemWithHTTPSubtitle() throws {
        try write("queued.srt", Self.srt)
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        let reply = try daemon.client.put("/v1/queue", json: ["items": [[
            "uri": try OutputFixtures.solidClip(.black).path, "subtitle": "\(server.baseURL)/queued.srt",
        ]]])
        XCTAssertEqual(reply.status, 200)
        let events = try collectEvents(ws, timeout: 10) { Self.cueTexts($0).contains("Fetched over HTTP") }
        XCTAssertEqual(Self.cueTexts(events).filter { !$0.isEmpty }, ["Fetched over HTTP"], "the fetched file's cue")
        XCTAssertNotNil(server.requests.first { $0.path == "/queued.srt" }, "the subtitle was fetched")
        let snap = try daemon.waitFor("the queued item playing with its subtitle") { snap in
            let subs = ((snap["tracks"] as? [String: Any])?["subtitle"] as? [[String: Any]]) ?? []
            return (snap["queue"] as? [String: Any])?["index"] as? Int == 0 && subs.contains { $0["title"] as? String == "queued.srt" && $0["selected"] as? Bool == true }
        }
        XCTAssertEqual(snap["state"] as? String, "playing")
    }
}
