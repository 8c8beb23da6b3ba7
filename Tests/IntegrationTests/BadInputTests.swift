import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// Every bad input gets a 4xx JSON error with a stable code, and the daemon keeps serving and
/// can play the next thing.
final class BadInputTests: XCTestCase {
    var daemon: Daemon!

    override func setUpWithError() throws { daemon = try Daemon() }
    override func tearDown() { XCTAssertEqual(daemon.stop(), 0) }

    struct Row {
        var method: String
        var path: String
        var body: String?
        var status: Int
        var code: String
    }

    func testBadRequestsTable() throws {
        let rows: [Row] = [
            Row(method: "POST", path: "/v1/player/open", body: "{not json", status: 400, code: "invalid_json"),
            Row(method: "POST", path: "/v1/player/open", body: "[1,2]", status: 400, code: "invalid_argument"),
            Row(method: "POST", path: "/v1/player/open", body: #"{"uri": 5}"#, status: 400, code: "invalid_argument"),
            Row(method: "POST", path: "/v1/player/open", body: "{}", status: 400, code: "invalid_argument"),
            Row(method: "POST", path: "/v1/player/open", body: #"{"uri": ""}"#, status: 400, code: "invalid_argument"),
            Row(method: "POST", path: "/v1/player/open", body: #"{"uri": "ftp://example.invalid/a.mp4"}"#, status: 400, code: "unsupported_uri"),
            Row(method: "POST", path: "/v1/player/open", body: #"{"uri": "/nonexistent/clip.mp4"}"#, status: 404, code: "not_found"),
            Row(method: "POST", path: "/v1/player/seek", body: #"{"position": "x"}"#, status: 400, code: "invalid_argument"),
            Row(method: "POST", path: "/v1/player/seek", body: #"{"position": 3}"#, status: 409, code: "no_source"),
            Row(method: "POST", path: "/v1/player/play", body: nil, status: 409, code: "no_source"),
            Row(method: "PATCH", path: "/v1/player", body: #"{"volum": 1}"#, status: 400, code: "invalid_argument"),
            Row(method: "PATCH", path: "/v1/player", body: #"{"rate": 0}"#, status: 400, code: "invalid_argument"),
            Row(method: "POST", path: "/v1/player/live", body: nil, status: 409, code: "no_source"),
            Row(method: "POST", path: "/v1/player/variant", body: #"{"id": "720p"}"#, status: 409, code: "no_source"),
            Row(method: "POST", path: "/v1/player/open", body: #"{"uri": "demo://", "timeshift": {"window": 0}}"#, status: 400, code: "invalid_argument"),
            Row(method: "GET", path: "/v1/nope", body: nil, status: 404, code: "route_not_found"),
            Row(method: "DELETE", path: "/v1/player", body: nil, status: 405, code: "method_not_allowed"),
            Row(method: "GET", path: "/v1/player/open", body: nil, status: 405, code: "method_not_allowed"),
            Row(method: "POST", path: "/v1/player?wait=dancing", body: nil, status: 405, code: "method_not_allowed"),
            Row(method: "POST", path: "/v1/player/pause?wait=dancing", body: nil, status: 400, code: "invalid_argument"),
        ]
        for row in rows {
            let r = try daemon.client.request(row.method, row.path, body: row.body.map { Data($0.utf8) })
            XCTAssertEqual(r.status, row.status, "\(row.method) \(row.path) \(row.body ?? ""): \(r.text)")
            let object = try? r.json() as? [String: Any]
            XCTAssertEqual(object?.errorCode, row.code, "\(row.method) \(row.path) \(row.body ?? "")")
            XCTAssertNotNil((object?["error"] as? [String: Any])?["message"] as? String)
        }
        try daemon.assertStillPlays()
    }

    func testBodyOverOneMebibyteIs413() throws {
        let big = Data(repeating: 0x20, count: (1 << 20) + 10)
        let r = try daemon.client.request("POST", "/v1/player/open", body: big)
        XCTAssertEqual(r.status, 413)
        XCTAssertEqual((try? r.json() as? [String: Any])?.errorCode, "payload_too_large")
        try daemon.assertStillPlays()
    }

    func testPipelineSyntaxInURIIsJustAMissingFile() throws {
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-injected-\(UUID().uuidString)")
        let (status, s) = try daemon.post("/v1/player/open", ["uri": "x.mp4 ! filesink location=\(target.path)"])
        XCTAssertEqual(status, 404)
        XCTAssertEqual(s.errorCode, "not_found")
        let (status2, _) = try daemon.post("/v1/player/open", ["uri": "file:///x.mp4%20!%20filesink%20location=\(target.path)"])
        XCTAssertEqual(status2, 404)
        usleep(200_000)
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.path), "user data must never become pipeline text")
    }

    /// Files that are not media fail at once as `unsupported_format`, saying what typefinding
    /// found. Before, random bytes were a `media_error`, and the PDF-headed file took 12.5 s
    /// (three stall retries of 1.5 s, then the 8 s open watchdog) in every open measured.
    func testUnrecognisedFilesAreUnsupportedFormatAtOnce() throws {
        let rows = [(try MediaFixtures.garbage(), "typefind found nothing"),
                    (try MediaFixtures.notMedia(), "typefind found application/pdf")]
        for (file, found) in rows {
            for _ in 0..<2 {
                let started = Date()
                let (status, s) = try daemon.post("/v1/player/open?wait=playing&timeout=15", ["uri": file.path])
                let elapsed = Date().timeIntervalSince(started)
                XCTAssertEqual(status, 422, "\(file.lastPathComponent): \(s)")
                XCTAssertEqual(s.errorCode, "unsupported_format", "\(file.lastPathComponent): \(s)")
                let message = (s["error"] as? [String: Any])?["message"] as? String ?? ""
                XCTAssertTrue(message.contains(found), message)
                // 10-20 ms on an idle machine; the bound only leaves room for a loaded one.
                XCTAssertLessThan(elapsed, 3, "\(file.lastPathComponent)")
                let snap = try daemon.snapshot()
                XCTAssertEqual(snap.state, "error")
                XCTAssertEqual(snap.errorCode, "unsupported_format")
            }
            try daemon.assertStillPlays()
        }
    }

    /// The checks that make bad files fail fast never touch real media: containers, and an
    /// MP3 with nothing but frame headers (typefind's weakest real evidence), each opened
    /// a few times, play.
    func testRealFilesAreNeverUnsupportedFormat() throws {
        let files = [try MediaFixtures.mp4(seconds: 2), try MediaFixtures.mkvWithTracks(seconds: 2),
                     try MediaFixtures.ogg(), try MediaFixtures.rawMP3()]
        for _ in 0..<3 {
            for file in files {
                let (status, s) = try daemon.post("/v1/player/open?wait=playing&timeout=15", ["uri": file.path])
                XCTAssertEqual(status, 200, "\(file.lastPathComponent): \(s)")
                XCTAssertEqual(s.state, "playing", "\(file.lastPathComponent)")
            }
        }
        // Still playing after the 1 s format watch.
        usleep(1_200_000)
        XCTAssertEqual(try daemon.snapshot().state, "playing")
        _ = try daemon.post("/v1/player/stop")
    }

    /// Real media cut short or broken after its header is still a `media_error` (qtdemux:
    /// "This file contains no playable streams", "This file is invalid and cannot be played").
    func testBrokenMediaIsAMediaErrorAndRecovers() throws {
        for file in [try MediaFixtures.truncatedMP4(), try MediaFixtures.mp4HeaderThenGarbage()] {
            // A generous timeout: see Player.startOpenWatchdog for why an error can take 8 s.
            let (status, s) = try daemon.post("/v1/player/open?wait=playing&timeout=15", ["uri": file.path])
            XCTAssertEqual(status, 422, "\(file.lastPathComponent): \(s)")
            XCTAssertEqual(s.errorCode, "media_error", "\(file.lastPathComponent): \(s)")
            let snap = try daemon.snapshot()
            XCTAssertEqual(snap.state, "error")
            XCTAssertEqual(snap.errorCode, "media_error")
            try daemon.assertStillPlays()
        }
        let metrics = try daemon.client.get("/metrics").text
        XCTAssertTrue(metrics.contains("marquee_pipeline_errors_total 2"), metrics)
    }

    /// With GST_DEBUG_DUMP_DOT_DIR set, a failing pipeline leaves a DOT graph of itself there
    /// (`<timestamp>-marquee-error-<code>.dot`), written before the pipeline is released.
    func testPipelineErrorWritesADotGraphWhenAsked() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-dot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let dotDaemon = try Daemon(environment: ["GST_DEBUG_DUMP_DOT_DIR": folder.path])
        defer { XCTAssertEqual(dotDaemon.stop(), 0) }
        let garbage = try MediaFixtures.garbage()
        let (status, s) = try dotDaemon.post("/v1/player/open?wait=playing&timeout=15", ["uri": garbage.path])
        XCTAssertEqual(status, 422, "\(s)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        let graphs = files.filter { $0.hasSuffix("-marquee-error-unsupported_format.dot") }
        XCTAssertEqual(graphs.count, 1, "\(files)")
        let dot = try String(contentsOf: folder.appendingPathComponent(graphs.first ?? "none"), encoding: .utf8)
        XCTAssertTrue(dot.hasPrefix("digraph pipeline"), String(dot.prefix(200)))
        XCTAssertTrue(dot.contains("GstPlayBin3"), "the main pipeline")
        XCTAssertTrue(dot.contains("GstURISourceBin") && dot.contains(garbage.lastPathComponent), "its source and the file")
    }

    func testDirectoryIsInvalid() throws {
        let (status, s) = try daemon.post("/v1/player/open", ["uri": FileManager.default.temporaryDirectory.path])
        XCTAssertEqual(status, 400)
        XCTAssertEqual(s.errorCode, "invalid_argument")
    }
}
