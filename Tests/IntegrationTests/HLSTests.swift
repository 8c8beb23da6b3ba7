import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// HLS through the real daemon: a generated ladder with two audio renditions, served by a
/// loopback server that records every request, so the tests assert what the player fetched.
final class HLSPlaybackTests: XCTestCase {
    var daemon: Daemon!
    var server: RecordingHTTPServer!
    var ladder: HLSLadder!

    override func setUpWithError() throws {
        ladder = try HLSFixtures.ladder()
        server = try RecordingHTTPServer(root: ladder.directory)
        daemon = try Daemon()
    }

    override func tearDown() {
        XCTAssertEqual(daemon.stop(), 0)
        server.stop()
    }

    private func variants(_ s: [String: Any]) -> [[String: Any]] { s["variants"] as? [[String: Any]] ?? [] }
    private func variantState(_ s: [String: Any]) -> [String: Any] { s["variant"] as? [String: Any] ?? [:] }

    /// Requests for `suffix` files under `folder` that arrived after `since`.
    private func requests(under folder: String, after since: Date, suffix: String = ".ts") -> [RecordedRequest] {
        server.requests.filter { $0.time > since && $0.path.hasPrefix("/" + folder) && $0.path.hasSuffix(suffix) }
    }

    /// The first such request, waiting up to 8 s for it.
    private func firstRequest(under folder: String, after since: Date, suffix: String = ".ts") -> RecordedRequest? {
        let deadline = Date().addingTimeInterval(8)
        while requests(under: folder, after: since, suffix: suffix).isEmpty && Date() < deadline { usleep(50_000) }
        return requests(under: folder, after: since, suffix: suffix).first
    }

    private func folder(of playlistPath: String) -> String {
        (playlistPath as NSString).deletingLastPathComponent + "/"
    }

    func testLadderIsListedPinnedAndAutomatic() throws {
        let (status, opened) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["uri": server.baseURL + "/" + ladder.masterPath])
        XCTAssertEqual(status, 200, "\(opened)")
        let s = try daemon.waitFor("the ladder", timeout: 10) { self.variants($0).count == 3 }
        XCTAssertEqual((s["source"] as? [String: Any])?["kind"] as? String, "hls")
        let listed = variants(s)
        XCTAssertEqual(listed.compactMap { $0["id"] as? String }, ["v1", "v2", "v3"])
        XCTAssertEqual(listed.compactMap { $0["bandwidth"] as? Int }, ladder.bandwidths.sorted())
        XCTAssertEqual(listed.compactMap { $0["height"] as? Int }, [180, 360, 540])
        XCTAssertEqual(variantState(s)["mode"] as? String, "auto")
        XCTAssertNotNil(variantState(s)["current"] as? String)

        // Pin the lowest: its segments are requested soon after the command.
        let lowest = folder(of: ladder.variantPaths[0])
        let pinnedAt = Date()
        var r = try daemon.client.post("/v1/player/variant", json: ["id": "v1"])
        XCTAssertEqual(r.status, 200, r.text)
        let pinned = try XCTUnwrap(try r.json() as? [String: Any])
        XCTAssertEqual(variantState(pinned)["mode"] as? String, "manual")
        XCTAssertEqual(variantState(pinned)["selected"] as? String, "v1")
        let first = try XCTUnwrap(firstRequest(under: lowest, after: pinnedAt), "no segment of \(lowest) after the pin; saw \(server.requests.map(\.path).suffix(12))\n\(daemon.log.split(separator: "\n").filter { $0.contains("variant") || $0.contains("hls") }.joined(separator: "\n"))")
        print("variant pin: first segment of the pinned variant requested \(Int(first.time.timeIntervalSince(pinnedAt) * 1000)) ms after the command")
        _ = try daemon.waitFor("current v1", timeout: 8) { self.variantState($0)["current"] as? String == "v1" }

        r = try daemon.client.post("/v1/player/variant", json: ["id": "auto"])
        XCTAssertEqual(r.status, 200)
        let auto = try XCTUnwrap(try r.json() as? [String: Any])
        XCTAssertEqual(variantState(auto)["mode"] as? String, "auto")
        XCTAssertTrue(variantState(auto)["selected"] is NSNull)

        r = try daemon.client.post("/v1/player/variant", json: ["id": "v9"])
        XCTAssertEqual(r.status, 404)
        XCTAssertEqual((try r.json() as? [String: Any])?.errorCode, "unknown_variant")
    }

    func testHLSIsRecognisedByItsResponseNotItsName() throws {
        // The same master under a name without .m3u8: the daemon must read the response.
        let odd = ladder.directory.appendingPathComponent("playlist")
        if !FileManager.default.fileExists(atPath: odd.path) {
            try FileManager.default.copyItem(at: ladder.directory.appendingPathComponent(ladder.masterPath), to: odd)
        }
        let (status, _) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["uri": server.baseURL + "/playlist"])
        XCTAssertEqual(status, 200)
        let s = try daemon.waitFor("kind hls", timeout: 10) { ($0["source"] as? [String: Any])?["kind"] as? String == "hls" }
        XCTAssertEqual(variants(s).count, 3)
    }

    func testHTTPErrorsAreNetworkErrorsWithTheStatus() throws {
        let (status, s) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["uri": server.baseURL + "/missing/master.m3u8"])
        XCTAssertEqual(status, 422, "\(s)")
        XCTAssertEqual(s.errorCode, "network_error")
        XCTAssertTrue(((s["error"] as? [String: Any])?["message"] as? String ?? "").contains("404"), "\(s)")
        // The daemon goes on: the real ladder plays next.
        let (again, _) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["uri": server.baseURL + "/" + ladder.masterPath])
        XCTAssertEqual(again, 200)
    }

    func testSessionHeadersGoOnEveryRequest() throws {
        let body: [String: Any] = ["uri": server.baseURL + "/" + ladder.masterPath, "headers": ["X-Session": "s-1"],
                                   "referer": "https://portal.example/watch", "userAgent": "MarqueeTest/1.0"]
        let (status, s) = try daemon.post("/v1/player/open?wait=playing&timeout=20", body)
        XCTAssertEqual(status, 200, "\(s)")
        _ = try daemon.waitFor("the ladder", timeout: 10) { self.variants($0).count == 3 }
        usleep(500_000)
        let seen = server.requests
        XCTAssertTrue(seen.contains { $0.path.hasSuffix(".ts") } && seen.contains { $0.path.hasSuffix("index.m3u8") }, "\(seen.map(\.path))")
        for request in seen {
            XCTAssertEqual(request.headers["x-session"], "s-1", request.path)
            XCTAssertEqual(request.headers["referer"], "https://portal.example/watch", request.path)
            XCTAssertEqual(request.headers["user-agent"], "MarqueeTest/1.0", request.path)
        }
        // Stopping cancels hlsdemux2's downloads mid-flight; the proxy drops those
        // exchanges cleanly, without touching the finished message (libsoup complains).
        let held = ladder.segmentPaths(6)
        for path in held { server.hold(path: path) }
        let (seekStatus, _) = try daemon.post("/v1/player/seek", ["position": 5.5, "exact": true])
        XCTAssertEqual(seekStatus, 200)
        let deadline = Date().addingTimeInterval(10)
        while !server.requests.contains(where: { held.contains(String($0.path.dropFirst())) }) && Date() < deadline { usleep(50_000) }
        XCTAssertEqual(try daemon.client.post("/v1/player/stop").status, 200)
        usleep(200_000)
        for path in held { server.release(path: path) }
        usleep(300_000)
        XCTAssertFalse(daemon.log.contains("CRITICAL"), daemon.log.split(separator: "\n").filter { $0.contains("CRITICAL") }.joined(separator: "\n"))
        // A hop-by-hop header or a line break is refused.
        var r = try daemon.client.post("/v1/player/open", json: ["uri": server.baseURL + "/" + ladder.masterPath, "headers": ["Connection": "close"]])
        XCTAssertEqual(r.status, 400)
        r = try daemon.client.post("/v1/player/open", json: ["uri": server.baseURL + "/" + ladder.masterPath, "headers": ["X-A": "a\r\nX-B: b"]])
        XCTAssertEqual(r.status, 400)
    }

    func testSeekingInVOD() throws {
        let (status, s) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["uri": server.baseURL + "/" + ladder.masterPath])
        XCTAssertEqual(status, 200, "\(s)")
        let duration = try XCTUnwrap(try daemon.waitFor("a duration", timeout: 10) { $0["duration"] is Double })["duration"] as? Double
        XCTAssertEqual(try XCTUnwrap(duration), 8, accuracy: 0.5)
        let (seekStatus, landed) = try daemon.post("/v1/player/seek?wait=playing&timeout=20", ["position": 5.5, "exact": true])
        XCTAssertEqual(seekStatus, 200, "\(landed)")
        XCTAssertEqual(try XCTUnwrap(landed.position), 5.5, accuracy: 0.3)
    }

    func testMissingSegmentIsANetworkErrorAndTheNextOpenWorks() throws {
        // The player rides out origin faults for --reconnect-timeout (OriginFaultTests); a
        // short one here, so the missing segment ends in the error.
        XCTAssertEqual(daemon.stop(), 0)
        daemon = try Daemon(extraArguments: ["--reconnect-timeout", "2"])
        for folder in ["v0", "v1", "v2"] { server.respond(to: "/\(folder)/segment00002.ts", with: 404) }
        let (status, s) = try daemon.post("/v1/player/open?wait=ended&timeout=30", ["uri": server.baseURL + "/" + ladder.masterPath])
        XCTAssertEqual(status, 422, "\(s)")
        XCTAssertEqual(s.errorCode, "network_error")
        server.clearFaults()
        let (again, _) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["uri": server.baseURL + "/" + ladder.masterPath])
        XCTAssertEqual(again, 200)
    }

    func testAlternateAudioRenditions() throws {
        let (status, _) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["uri": server.baseURL + "/" + ladder.masterPath])
        XCTAssertEqual(status, 200)
        let s = try daemon.waitFor("two audio renditions", timeout: 10) {
            (($0["tracks"] as? [String: Any])?["audio"] as? [[String: Any]])?.count == 2
        }
        let audio = try XCTUnwrap((s["tracks"] as? [String: Any])?["audio"] as? [[String: Any]])
        XCTAssertEqual(Set(audio.compactMap { $0["title"] as? String }), ["English", "French"])
        XCTAssertEqual(audio.first { $0["selected"] as? Bool == true }?["title"] as? String, "English", "DEFAULT=YES plays at start")
        let french = try XCTUnwrap(audio.first { $0["title"] as? String == "French" }?["id"] as? String)
        let frenchFolder = folder(of: try XCTUnwrap(ladder.audioPaths["fr"]))
        let switchedAt = Date()
        let r = try daemon.client.post("/v1/player/tracks/audio", json: ["id": french])
        XCTAssertEqual(r.status, 200, r.text)
        XCTAssertNotNil(firstRequest(under: frenchFolder, after: switchedAt), "no French segment requested after the switch")
        _ = try daemon.waitFor("French selected", timeout: 5) { snap in
            let tracks = ((snap["tracks"] as? [String: Any])?["audio"] as? [[String: Any]]) ?? []
            return tracks.contains { $0["title"] as? String == "French" && $0["selected"] as? Bool == true }
        }
    }

    func testSubtitleRenditionsAreSubtitleTracks() throws {
        let (status, _) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["uri": server.baseURL + "/" + ladder.masterPath])
        XCTAssertEqual(status, 200)
        func subtitles(_ snap: [String: Any]) -> [[String: Any]] {
            ((snap["tracks"] as? [String: Any])?["subtitle"] as? [[String: Any]]) ?? []
        }
        let s = try daemon.waitFor("two subtitle renditions", timeout: 10) { subtitles($0).count == 2 }
        let listed = subtitles(s)
        XCTAssertEqual(Set(listed.compactMap { $0["title"] as? String }), ["English CC", "Deutsch"])
        XCTAssertEqual(Set(listed.compactMap { $0["language"] as? String }), ["en", "de"])
        let english = try XCTUnwrap(listed.first { $0["language"] as? String == "en" })
        let german = try XCTUnwrap(listed.first { $0["language"] as? String == "de" }?["id"] as? String)
        _ = try daemon.waitFor("DEFAULT=YES subtitles on at start", timeout: 5) { snap in
            subtitles(snap).contains { $0["id"] as? String == english["id"] as? String && $0["selected"] as? Bool == true }
        }
        let englishFolder = folder(of: try XCTUnwrap(ladder.subtitlePaths["en"]))
        let germanFolder = folder(of: try XCTUnwrap(ladder.subtitlePaths["de"]))
        XCTAssertFalse(requests(under: englishFolder, after: .distantPast, suffix: ".vtt").isEmpty,
                       "English cues not fetched: \(server.requests.map(\.path))")

        let switchedAt = Date()
        var r = try daemon.client.post("/v1/player/tracks/subtitle", json: ["id": german])
        XCTAssertEqual(r.status, 200, r.text)
        XCTAssertNotNil(firstRequest(under: germanFolder, after: switchedAt, suffix: ".vtt"), "no German cues requested after the switch")
        _ = try daemon.waitFor("Deutsch selected", timeout: 5) { snap in
            subtitles(snap).contains { $0["id"] as? String == german && $0["selected"] as? Bool == true }
                && subtitles(snap).filter { $0["selected"] as? Bool == true }.count == 1
        }

        r = try daemon.client.post("/v1/player/tracks/subtitle", json: ["id": NSNull()])
        XCTAssertEqual(r.status, 200, r.text)
        _ = try daemon.waitFor("subtitles off", timeout: 5) { snap in
            subtitles(snap).count == 2 && subtitles(snap).allSatisfy { $0["selected"] as? Bool == false }
        }
        XCTAssertEqual(try daemon.snapshot().state, "playing")
    }
}

final class EncryptedHLSTests: XCTestCase {
    func testAES128StreamPlaysAndFetchesItsKey() throws {
        let stream = try HLSFixtures.encrypted()
        let server = try RecordingHTTPServer(root: stream.directory)
        defer { server.stop() }
        let daemon = try Daemon()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let (status, s) = try daemon.post("/v1/player/open?wait=playing&timeout=20",
                                          ["uri": server.baseURL + "/" + stream.masterPath, "keyHeaders": ["Authorization": "Bearer key-token"]])
        XCTAssertEqual(status, 200, "\(s)")
        usleep(1_000_000)
        XCTAssertEqual(try daemon.snapshot().state, "playing")
        let keyRequests = server.requests.filter { $0.path.hasSuffix("key.bin") }
        XCTAssertFalse(keyRequests.isEmpty, "\(server.requests.map(\.path))")
        // The key server's token goes to key requests only.
        XCTAssertTrue(keyRequests.allSatisfy { $0.headers["authorization"] == "Bearer key-token" })
        XCTAssertTrue(server.requests.filter { $0.path.hasSuffix(".ts") }.allSatisfy { $0.headers["authorization"] == nil })
    }
}
