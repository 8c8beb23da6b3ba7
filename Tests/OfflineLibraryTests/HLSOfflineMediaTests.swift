import Foundation
import HLS
import OfflineLibrary
import XCTest

/// Planning one media playlist: its files, their local names, and the rewritten text.
final class HLSOfflineMediaTests: XCTestCase {
    static let url = "https://cdn.example.com/films/42/720p/index.m3u8"

    /// MPEG-TS with AES-128: an explicit IV, a key rotation to a key without IV (the sequence
    /// number is its IV), a discontinuity, program date times, relative, absolute and query URIs.
    static let transportStream = hlsText(
        "#EXTM3U",
        "#EXT-X-VERSION:3",
        "#EXT-X-TARGETDURATION:7",
        "#EXT-X-MEDIA-SEQUENCE:100",
        "#EXT-X-PLAYLIST-TYPE:VOD",
        "#EXT-X-KEY:METHOD=AES-128,URI=\"https://keys.example.com/key?id=1\",IV=0x000102030405060708090a0b0c0d0e0f",
        "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z",
        "#EXTINF:6.006,",
        "seg100.ts",
        "#EXTINF:6.006,Title, with a comma",
        "seg101.ts?token=a&b=c",
        "#EXTINF:5.005,",
        "https://cdn2.example.com/films/42/720p/seg102.TS",
        "# a comment, kept",
        "#EXT-X-KEY:METHOD=AES-128,URI=\"../keys/k2.bin\"",
        "#EXT-X-DISCONTINUITY",
        "#EXT-X-PROGRAM-DATE-TIME:2026-01-01T01:00:00.000Z",
        "#EXTINF:6.006,",
        "../720p/seg103.ts",
        "#EXTINF:6.006,",
        "seg104.php?x=1&y=../../etc",
        "#EXT-X-KEY:METHOD=NONE",
        "#EXTINF:3.0,",
        "seg100.ts#t=0",
        "#EXT-X-ENDLIST")

    private func plan(_ text: String, url: String = url, folder: String = "v", importing: [String: String] = [:]) throws -> HLSOfflineMedia {
        try HLSOfflineMedia.plan(playlist: text, url: url, folder: folder, importing: importing)
    }

    private func planError(_ text: String, url: String = url, folder: String = "v") -> HLSOfflineError? {
        hlsOfflineError { () throws(HLSOfflineError) in try HLSOfflineMedia.plan(playlist: text, url: url, folder: folder) }
    }

    /// Checks the rewrite re-parses, refers to exactly the planned names (gaps aside), points
    /// nowhere else, and keeps the timeline; returns it parsed.
    @discardableResult
    private func assertFaithful(_ plan: HLSOfflineMedia, source: String, url: String = url, folder: String = "v",
                                importing: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) throws -> MediaPlaylist {
        assertWellFormed(plan, folder: folder, file: file, line: line)
        let original = try XCTUnwrap(try Playlist.parse(source, url: URL(string: url), importing: importing).media, file: file, line: line)
        let copy = try reparseLocalMedia(plan.playlist, folder: folder, file: file, line: line)
        XCTAssertEqual(localReferences(copy, folder: folder), Set(plan.files.map(\.name)), file: file, line: line)
        XCTAssertEqual(copy.segments.count, original.segments.count, file: file, line: line)
        for (a, b) in zip(original.segments, copy.segments) {
            XCTAssertEqual(a.duration, b.duration, file: file, line: line)
            XCTAssertEqual(a.title, b.title, file: file, line: line)
            XCTAssertEqual(a.byteRange, b.byteRange, file: file, line: line)
            XCTAssertEqual(a.discontinuity, b.discontinuity, file: file, line: line)
            XCTAssertEqual(a.programDateTime, b.programDateTime, file: file, line: line)
            XCTAssertEqual(a.gap, b.gap, file: file, line: line)
            XCTAssertEqual(a.sequence, b.sequence, file: file, line: line)
            XCTAssertEqual(a.discontinuitySequence, b.discontinuitySequence, file: file, line: line)
            XCTAssertEqual(a.initializationVector, b.initializationVector, "the IV (explicit or the sequence number)", file: file, line: line)
            XCTAssertEqual(a.keys.map(\.method), b.keys.map(\.method), file: file, line: line)
            XCTAssertEqual(a.keys.map(\.keyFormat), b.keys.map(\.keyFormat), file: file, line: line)
            XCTAssertEqual(a.keys.map(\.keyFormatVersions), b.keys.map(\.keyFormatVersions), file: file, line: line)
            XCTAssertEqual(a.map?.byteRange, b.map?.byteRange, file: file, line: line)
            // Each reference is the file planned for the remote URL it replaced.
            let byURL = Dictionary(uniqueKeysWithValues: plan.files.map { ($0.url, $0.name) })
            func fetched(_ url: URL?) -> String? { url.map { $0.absoluteString.split(separator: "#", maxSplits: 1).first.map(String.init) ?? "" } }
            if !a.gap { XCTAssertEqual(byURL[fetched(a.resolvedURL) ?? ""], "\(folder)/\(b.uri)", file: file, line: line) }
            if let map = a.map { XCTAssertEqual(byURL[fetched(map.resolvedURL) ?? ""], "\(folder)/\(b.map?.uri ?? "")", file: file, line: line) }
            for (ka, kb) in zip(a.keys, b.keys) where ka.method != .none {
                XCTAssertEqual(byURL[fetched(ka.resolvedURL) ?? ""], "\(folder)/\(kb.uri ?? "")", file: file, line: line)
            }
        }
        XCTAssertEqual(copy.targetDuration, original.targetDuration, file: file, line: line)
        XCTAssertEqual(copy.mediaSequence, original.mediaSequence, file: file, line: line)
        XCTAssertEqual(copy.discontinuitySequence, original.discontinuitySequence, file: file, line: line)
        XCTAssertEqual(copy.playlistType, original.playlistType, file: file, line: line)
        XCTAssertEqual(copy.version, original.version, file: file, line: line)
        XCTAssertTrue(copy.endList, file: file, line: line)
        XCTAssertFalse(copy.isLive, file: file, line: line)
        return copy
    }

    // MARK: - Files and names

    func testTransportStreamWithKeyRotation() throws {
        let plan = try plan(Self.transportStream)
        XCTAssertEqual(plan.files, [
            HLSOfflineFile(name: "v/keys/0.key", url: "https://keys.example.com/key?id=1", role: .key),
            HLSOfflineFile(name: "v/00001.ts", url: "https://cdn.example.com/films/42/720p/seg100.ts", role: .segment),
            HLSOfflineFile(name: "v/00002.ts", url: "https://cdn.example.com/films/42/720p/seg101.ts?token=a&b=c", role: .segment),
            HLSOfflineFile(name: "v/00003.ts", url: "https://cdn2.example.com/films/42/720p/seg102.TS", role: .segment),
            HLSOfflineFile(name: "v/keys/1.key", url: "https://cdn.example.com/films/42/keys/k2.bin", role: .key),
            HLSOfflineFile(name: "v/00004.ts", url: "https://cdn.example.com/films/42/720p/seg103.ts", role: .segment),
            HLSOfflineFile(name: "v/00005", url: "https://cdn.example.com/films/42/720p/seg104.php?x=1&y=../../etc", role: .segment),
        ], "seg100.ts#t=0 is seg100.ts again: one file")
        let copy = try assertFaithful(plan, source: Self.transportStream)
        XCTAssertEqual(copy.segments.map(\.uri), ["00001.ts", "00002.ts", "00003.ts", "00004.ts", "00005", "00001.ts"])
        XCTAssertEqual(copy.segments.map { $0.key?.uri }, ["keys/0.key", "keys/0.key", "keys/0.key", "keys/1.key", "keys/1.key", nil])
        XCTAssertEqual(copy.segments[0].key?.iv, Array(0...15))
        XCTAssertNil(copy.segments[3].key?.iv, "no IV stays no IV: the sequence number is the IV")
        XCTAssertEqual(copy.segments[5].key?.method, Key.Method.none)
        XCTAssertFalse(plan.playlist.contains("://"), "nothing points at the origin:\n\(plan.playlist)")
        XCTAssertTrue(plan.playlist.contains("# a comment, kept\n"))
        XCTAssertTrue(plan.playlist.contains("#EXTINF:6.006,Title, with a comma\n"))
    }

    /// fMP4: one resource addressed by byte ranges (its first range the map), then an ad after a
    /// discontinuity with its own map.
    func testByteRangesOfOneResourceAreOneFile() throws {
        let text = hlsText(
            "#EXTM3U",
            "#EXT-X-VERSION:7",
            "#EXT-X-TARGETDURATION:4",
            "#EXT-X-MAP:URI=\"main.mp4\",BYTERANGE=\"720@0\"",
            "#EXTINF:4.0,",
            "#EXT-X-BYTERANGE:100000@720",
            "main.mp4",
            "#EXTINF:4.0,",
            "#EXT-X-BYTERANGE:120000",
            "main.mp4",
            "#EXTINF:4.0,",
            "#EXT-X-BYTERANGE:90000",
            "main.mp4",
            "#EXT-X-DISCONTINUITY",
            "#EXT-X-MAP:URI=\"https://ads.example.com/ad/init.mp4\"",
            "#EXTINF:2.0,",
            "https://ads.example.com/ad/seg1.m4s",
            "#EXTINF:2.0,",
            "https://ads.example.com/ad/seg2.m4s",
            "#EXT-X-ENDLIST")
        let plan = try plan(text)
        XCTAssertEqual(plan.files, [
            HLSOfflineFile(name: "v/init.mp4", url: "https://cdn.example.com/films/42/720p/main.mp4", role: .initSegment),
            HLSOfflineFile(name: "v/init-2.mp4", url: "https://ads.example.com/ad/init.mp4", role: .initSegment),
            HLSOfflineFile(name: "v/00001.m4s", url: "https://ads.example.com/ad/seg1.m4s", role: .segment),
            HLSOfflineFile(name: "v/00002.m4s", url: "https://ads.example.com/ad/seg2.m4s", role: .segment),
        ])
        let copy = try assertFaithful(plan, source: text)
        XCTAssertEqual(copy.segments.map(\.byteRange), [ByteRange(length: 100_000, offset: 720), ByteRange(length: 120_000, offset: 100_720),
                                                       ByteRange(length: 90000, offset: 220_720), nil, nil])
        XCTAssertEqual(copy.segments.map { $0.map?.uri }, ["init.mp4", "init.mp4", "init.mp4", "init-2.mp4", "init-2.mp4"])
        XCTAssertEqual(copy.segments[0].map?.byteRange, ByteRange(length: 720, offset: 0))
        XCTAssertTrue(plan.playlist.contains("#EXT-X-BYTERANGE:120000\n"), "byte ranges kept as written")
    }

    func testSampleAESKeysKeepTheirFormat() throws {
        let text = hlsText(
            "#EXTM3U",
            "#EXT-X-TARGETDURATION:6",
            "#EXT-X-MAP:URI=\"init.mp4?v=2\"",
            "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"https://keys.example.com/k/1\",KEYFORMAT=\"com.example.vendor\",KEYFORMATVERSIONS=\"1/2\",IV=0xABCDEF",
            "#EXTINF:6,",
            "a.m4s",
            "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"https://keys.example.com/k/1\",KEYFORMAT=\"com.example.vendor\",KEYFORMATVERSIONS=\"1/2\",IV=0xABCDEF",
            "#EXTINF:6,",
            "b.m4s",
            "#EXT-X-ENDLIST")
        let plan = try plan(text, folder: "a-en")
        XCTAssertEqual(plan.files.map(\.name), ["a-en/keys/0.key", "a-en/init.mp4", "a-en/00001.m4s", "a-en/00002.m4s"], "the same key twice is one file")
        let copy = try assertFaithful(plan, source: text, folder: "a-en")
        XCTAssertEqual(copy.segments[1].key?.keyFormat, "com.example.vendor")
        XCTAssertEqual(copy.segments[1].key?.keyFormatVersions, [1, 2])
        XCTAssertEqual(copy.segments[1].key?.iv, Array(repeating: 0, count: 13) + [0xAB, 0xCD, 0xEF])
    }

    /// Several EXT-X-KEY tags before one segment are its key set (one per KEYFORMAT).
    func testAKeySetIsWrittenWhereItTakesEffect() throws {
        let text = hlsText(
            "#EXTM3U",
            "#EXT-X-TARGETDURATION:6",
            "#EXT-X-KEY:METHOD=AES-128,URI=\"k1\"",
            "#EXT-X-KEY:METHOD=AES-128,URI=\"k2\"",  // same KEYFORMAT: replaces k1
            "#EXT-X-KEY:METHOD=AES-128,URI=\"k3\",KEYFORMAT=\"com.example.other\"",
            "#EXTINF:6,",
            "a.ts",
            "#EXTINF:6,",
            "b.ts",
            "#EXT-X-KEY:METHOD=AES-128,URI=\"never-used\"",
            "#EXT-X-MAP:URI=\"never-used.mp4\"",
            "#EXT-X-ENDLIST")
        let plan = try plan(text)
        XCTAssertEqual(plan.files.map(\.url).map { $0.replacingOccurrences(of: "https://cdn.example.com/films/42/720p/", with: "") },
                       ["k2", "k3", "a.ts", "b.ts"], "a key or map no segment follows is neither fetched nor written")
        let copy = try assertFaithful(plan, source: text)
        XCTAssertEqual(copy.segments[1].keys.map(\.uri), ["keys/0.key", "keys/1.key"])
        XCTAssertFalse(plan.playlist.contains("never-used"))
    }

    func testSubtitlesPlaylist() throws {
        let text = hlsText(
            "#EXTM3U",
            "#EXT-X-TARGETDURATION:60",
            "#EXT-X-PLAYLIST-TYPE:VOD",
            "#EXTINF:60,",
            "https://subs.example.net/42/de/part0.webvtt",
            "#EXTINF:60,",
            "part1.vtt?lang=de",
            "#EXTINF:12.5,",
            "part2.srt",
            "#EXT-X-ENDLIST")
        let plan = try plan(text, url: "https://subs.example.net/42/de/index.m3u8", folder: "s-de")
        XCTAssertEqual(plan.files.map(\.name), ["s-de/00001.webvtt", "s-de/00002.vtt", "s-de/00003"])
        XCTAssertEqual(plan.files.map(\.url), ["https://subs.example.net/42/de/part0.webvtt", "https://subs.example.net/42/de/part1.vtt?lang=de",
                                               "https://subs.example.net/42/de/part2.srt"])
        try assertFaithful(plan, source: text, url: "https://subs.example.net/42/de/index.m3u8", folder: "s-de")
    }

    func testNamesAreSafeWhateverTheOriginCallsThings() throws {
        let text = hlsText(
            "#EXTM3U",
            "#EXT-X-TARGETDURATION:6",
            "#EXT-X-MAP:URI=\"../../../../etc/passwd.mp4\"",
            "#EXTINF:6,",
            "..%2F..%2Fescape.ts",
            "#EXTINF:6,",
            "seg%20one.ts",
            "#EXTINF:6,",
            "/abs/path/seg.ts?x=y#frag",
            "#EXTINF:6,",
            "seg.ts.exe",
            "#EXTINF:6,",
            "seg",
            "#EXTINF:6,",
            "dir.ts/",
            "#EXTINF:6,",
            "http://other.example.com:8080/a/b.aac",
            "#EXT-X-ENDLIST")
        let plan = try plan(text)
        XCTAssertEqual(plan.files.map(\.name), ["v/init.mp4", "v/00001.ts", "v/00002.ts", "v/00003.ts", "v/00004", "v/00005", "v/00006.ts", "v/00007.aac"])
        XCTAssertEqual(plan.files[0].url, "https://cdn.example.com/etc/passwd.mp4", "resolved as a URL, named as a local file")
        XCTAssertEqual(plan.files[3].url, "https://cdn.example.com/abs/path/seg.ts?x=y")
        XCTAssertEqual(plan.files[7].url, "http://other.example.com:8080/a/b.aac")
        try assertFaithful(plan, source: text)
    }

    func testManySegmentsKeepUniqueNamesPastFiveDigits() throws {
        var lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:1"]
        for i in 0..<100_001 { lines += ["#EXTINF:1,", "s\(i).ts"] }
        lines.append("#EXT-X-ENDLIST")
        let plan = try plan(lines.joined(separator: "\n"))
        XCTAssertEqual(plan.files.count, 100_001)
        XCTAssertEqual(plan.files[99_998].name, "v/99999.ts")
        XCTAssertEqual(plan.files[100_000].name, "v/100001.ts")
        XCTAssertEqual(Set(plan.files.map(\.name)).count, 100_001)
    }

    // MARK: - What the rewrite changes

    func testGapsAreNotFetched() throws {
        let text = hlsText(
            "#EXTM3U",
            "#EXT-X-TARGETDURATION:6",
            "#EXTINF:6,",
            "a.ts",
            "#EXT-X-GAP",
            "#EXTINF:6,",
            "missing.ts",
            "#EXT-X-GAP",
            "#EXTINF:6,",
            "a.ts",
            "#EXTINF:6,",
            "b.ts",
            "#EXT-X-ENDLIST")
        let plan = try plan(text)
        XCTAssertEqual(plan.files.map(\.name), ["v/00001.ts", "v/00002.ts"])
        let copy = try assertFaithful(plan, source: text)
        XCTAssertEqual(copy.segments.map(\.uri), ["00001.ts", "gap", "00001.ts", "00002.ts"])
        XCTAssertEqual(copy.segments.map(\.gap), [false, true, true, false])
    }

    func testVariablesAreDefinedInTheCopy() throws {
        let text = hlsText(
            "#EXTM3U",
            "#EXT-X-VERSION:8",
            "#EXT-X-DEFINE:IMPORT=\"cdn\"",
            "#EXT-X-DEFINE:QUERYPARAM=\"token\"",
            "#EXT-X-DEFINE:NAME=\"keys\",VALUE=\"https://keys.example.com\"",
            "#EXT-X-TARGETDURATION:6",
            "#EXT-X-KEY:METHOD=AES-128,URI=\"{$keys}/k?t={$token}\"",
            "#EXTINF:6,",
            "{$cdn}/a.ts?t={$token}",
            "#EXT-X-ENDLIST")
        let url = "https://cdn.example.com/films/42/720p/index.m3u8?token=T1"
        let imports = ["cdn": "https://media.example.org/42"]
        let plan = try plan(text, url: url, importing: imports)
        XCTAssertEqual(plan.files.map(\.url), ["https://keys.example.com/k?t=T1", "https://media.example.org/42/a.ts?t=T1"])
        try assertFaithful(plan, source: text, url: url, importing: imports)
        XCTAssertTrue(plan.playlist.contains("#EXT-X-DEFINE:NAME=\"token\",VALUE=\"T1\"\n"))
        XCTAssertFalse(plan.playlist.contains("QUERYPARAM"))
        XCTAssertFalse(plan.playlist.contains("IMPORT"))
        let error = planError(text, url: url)
        XCTAssertEqual(error?.code, "invalid_source", "IMPORT needs the master's definitions")
    }

    func testLowLatencyAndSessionKeyTagsAreDropped() throws {
        let text = hlsText(
            "#EXTM3U",
            "#EXT-X-VERSION:9",
            "#EXT-X-TARGETDURATION:4",
            "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=3.0",
            "#EXT-X-PART-INF:PART-TARGET=1.0",
            "#EXT-X-SESSION-KEY:METHOD=AES-128,URI=\"https://keys.example.com/session\"",
            "#EXT-X-PART:DURATION=1.0,URI=\"a.part0.m4s\"",
            "#EXTINF:4,",
            "a.m4s",
            "#EXT-X-DATERANGE:ID=\"ad\",START-DATE=\"2026-01-01T00:00:00Z\",DURATION=4.0",
            "#EXTINF:4,",
            "b.m4s",
            "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"c.part0.m4s\"",
            "#EXT-X-RENDITION-REPORT:URI=\"../1080p/index.m3u8\",LAST-MSN=1",
            "#EXT-X-ENDLIST")
        let plan = try plan(text)
        XCTAssertEqual(plan.files.map(\.name), ["v/00001.m4s", "v/00002.m4s"])
        try assertFaithful(plan, source: text)
        for tag in ["SERVER-CONTROL", "PART-INF", "SESSION-KEY", "EXT-X-PART:", "PRELOAD-HINT", "RENDITION-REPORT"] {
            XCTAssertFalse(plan.playlist.contains(tag), tag)
        }
        XCTAssertTrue(plan.playlist.contains("#EXT-X-DATERANGE:ID=\"ad\",START-DATE=\"2026-01-01T00:00:00Z\",DURATION=4.0\n"))
    }

    func testVODWithoutEndListGetsOneAndEventWithEndListIsKept() throws {
        let vod = hlsText("#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXT-X-PLAYLIST-TYPE:VOD", "#EXTINF:6,", "a.ts")
        let copy = try assertFaithful(try plan(vod), source: vod)
        XCTAssertTrue(copy.endList)
        XCTAssertTrue(try plan(vod).playlist.hasSuffix("\n00001.ts\n#EXT-X-ENDLIST\n"))
        let finishedEvent = hlsText("#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXT-X-PLAYLIST-TYPE:EVENT", "#EXTINF:6,", "a.ts", "#EXT-X-ENDLIST")
        XCTAssertEqual(try plan(finishedEvent).files.count, 1)
        XCTAssertEqual(try plan(finishedEvent).playlist.components(separatedBy: "#EXT-X-ENDLIST").count, 2, "one ENDLIST")
    }

    func testCRLFAndByteOrderMark() throws {
        let text = "\u{FEFF}#EXTM3U\r\n#EXT-X-TARGETDURATION:6\r\n\r\n#EXTINF:6,\r\n  a.ts  \r\n#EXT-X-ENDLIST\r\n"
        let plan = try plan(text)
        XCTAssertEqual(plan.files.map(\.url), ["https://cdn.example.com/films/42/720p/a.ts"])
        try assertFaithful(plan, source: text)
        XCTAssertFalse(plan.playlist.contains("\r"))
    }

    // MARK: - Errors

    func testOnlyVODCanBeKept() {
        let live = hlsText("#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXT-X-MEDIA-SEQUENCE:5", "#EXTINF:6,", "a.ts")
        let event = hlsText("#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXT-X-PLAYLIST-TYPE:EVENT", "#EXTINF:6,", "a.ts")
        for text in [live, event] {
            let error = planError(text)
            XCTAssertEqual(error?.code, "unsupported")
            XCTAssertEqual(error?.message, "only VOD can be kept: \(Self.url) has no EXT-X-ENDLIST, so it is a live or event playlist")
        }
    }

    func testKeysNotFetchedOverHTTPAreUnsupported() {
        for key in ["METHOD=SAMPLE-AES,URI=\"skd://key-id-42\",KEYFORMAT=\"com.apple.streamingkeydelivery\",KEYFORMATVERSIONS=\"1\"",
                    "METHOD=AES-128,URI=\"data:text/plain;base64,AAECAwQFBgcICQoLDA0ODw==\"",
                    "METHOD=SAMPLE-AES-CTR,URI=\"https://keys.example.com/k\"",
                    "METHOD=SAMPLE-AES-CENC,URI=\"data:text/plain;base64,AAAA\",KEYFORMAT=\"urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed\""] {
            let text = hlsText("#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXT-X-KEY:\(key)", "#EXTINF:6,", "a.ts", "#EXT-X-ENDLIST")
            XCTAssertEqual(planError(text)?.code, "unsupported", key)
        }
        let skd = hlsText("#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://k\"", "#EXTINF:6,", "a.ts", "#EXT-X-ENDLIST")
        XCTAssertTrue(planError(skd)?.message.contains("skd://k") == true)
    }

    func testWithAKeyServiceKeyURIsOfAnySchemeAreKeptAsWrittenAndRelativeOnesResolved() throws {
        let text = hlsText("#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXT-X-KEY:METHOD=AES-128,URI=\"skd://content-1/key-0\"", "#EXTINF:6,", "a.ts",
                           "#EXT-X-KEY:METHOD=AES-128,URI=\"k.bin\"", "#EXTINF:6,", "b.ts", "#EXT-X-ENDLIST")
        let planned = try HLSOfflineMedia.plan(playlist: text, url: Self.url, folder: "v", keysFromService: true)
        let keys = planned.files.filter { $0.role == .key }
        XCTAssertEqual(keys.map(\.url), ["skd://content-1/key-0", URL(string: "k.bin", relativeTo: URL(string: Self.url))!.absoluteString])
        XCTAssertEqual(keys.map(\.name), ["v/keys/0.key", "v/keys/1.key"])
        XCTAssertTrue(planned.playlist.contains("URI=\"keys/0.key\""), planned.playlist)
        XCTAssertFalse(planned.playlist.contains("skd://"), "the copy names its local key: \(planned.playlist)")
    }

    func testOtherErrors() {
        let ok = hlsText("#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXTINF:6,", "a.ts", "#EXT-X-ENDLIST")
        XCTAssertEqual(planError("not a playlist")?.code, "invalid_source")
        XCTAssertEqual(planError(HLSOfflineSelectionTests.master)?.code, "invalid_source", "a master where a media playlist belongs")
        XCTAssertEqual(planError(hlsText("#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXT-X-ENDLIST"))?.code, "invalid_source", "no segments")
        XCTAssertEqual(planError(hlsText("#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXT-X-I-FRAMES-ONLY", "#EXTINF:6,",
                                         "#EXT-X-BYTERANGE:100@0", "a.ts", "#EXT-X-ENDLIST"))?.code, "unsupported", "I-frames only")
        XCTAssertEqual(planError(hlsText("#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXTINF:6,", "data:video/mp2t;base64,R0A=", "#EXT-X-ENDLIST"))?.code,
                       "unsupported")
        XCTAssertEqual(planError(hlsText("#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXT-X-SKIP:SKIPPED-SEGMENTS=3", "#EXTINF:6,", "a.ts",
                                         "#EXT-X-ENDLIST"))?.code, "unsupported", "a delta update lists only some segments")
        XCTAssertEqual(planError(ok, url: "index.m3u8")?.code, "invalid_source")
        for folder in ["", ".", "..", "a/b", "../v", "v?x", "v v"] {
            XCTAssertEqual(planError(ok, folder: folder)?.code, "invalid_argument", folder)
        }
    }
}
