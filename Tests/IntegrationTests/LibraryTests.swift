import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// Issue 17, the offline library, through the real daemon: downloads from an origin the test
/// starts (which records every request, throttles and fails on demand), copies encrypted at
/// rest, offline play with the origin gone, licences, resume after `kill -9`.
final class LibraryTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-library-origin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A file of random bytes (random so that a slice of it found at rest cannot be chance).
    private func randomFile(_ name: String, megabytes: Int) throws -> URL {
        var generator = SystemRandomNumberGenerator()
        var data = Data(count: megabytes << 20)
        data.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt64.self)
            for i in words.indices { words[i] = generator.next() }
        }
        let url = folder.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    private func item(_ daemon: Daemon, _ id: String) throws -> [String: Any] {
        try daemon.client.get("/v1/library/" + id).json() as? [String: Any] ?? [:]
    }

    @discardableResult
    private func waitForItem(_ daemon: Daemon, _ id: String, _ what: String, timeout: Double = 30,
                             _ condition: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        var last: [String: Any] = [:]
        while Date() < deadline {
            last = try item(daemon, id)
            if condition(last) { return last }
            usleep(50_000)
        }
        XCTFail("timed out waiting for \(what); last: \(last)")
        return last
    }

    func testAFileIsKeptEncryptedAndPlaysOfflineWithinItsLicence() throws {
        let clip = try MediaFixtures.mp4(seconds: 6)
        try FileManager.default.copyItem(at: clip, to: folder.appendingPathComponent("clip.mp4"))
        let plaintext = try Data(contentsOf: clip)
        let origin = try RecordingHTTPServer(root: folder)
        let daemon = try Daemon()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let uri = origin.baseURL + "/clip.mp4"

        let (status, added) = try daemon.post("/v1/library", ["uri": uri, "contentId": "lesson-1", "title": "Lesson 1",
                                                              "headers": ["Authorization": "Bearer secret-token-42"],
                                                              "license": ["maxPlays": 2]])
        XCTAssertEqual(status, 202, "\(added)")
        let id = try XCTUnwrap(added["id"] as? String)
        XCTAssertEqual(added["kind"] as? String, "file")
        let done = try waitForItem(daemon, id, "the copy complete") { $0["state"] as? String == "complete" }
        XCTAssertEqual(done["bytes"] as? Int, plaintext.count)
        XCTAssertEqual(done["totalBytes"] as? Int, plaintext.count)
        XCTAssertEqual(done["progress"] as? Double, 1)
        XCTAssertNotNil(done["completedAt"] as? String)
        XCTAssertEqual(origin.requests.first?.headers["authorization"], "Bearer secret-token-42", "the item's headers go to the origin")

        // Nothing under the data folder holds the media, the token or the item's key in the clear.
        XCTAssertEqual(try PlaintextScan.find(slicesOf: plaintext, under: daemon.dataDirectory), [], "plaintext media at rest")
        XCTAssertEqual(try PlaintextScan.find(slicesOf: Data("Bearer secret-token-42 and padding to make the slice long enough for the scan to look at it at all, so it is".utf8),
                                              under: daemon.dataDirectory).count, 0)
        let database = try Data(contentsOf: daemon.dataDirectory.appendingPathComponent("marquee.sqlite3"))
        XCTAssertNil(database.range(of: Data("secret-token-42".utf8)), "the item's token is in the database in the clear")

        // The origin goes away; the copy plays, seeks, and says it is offline.
        origin.stop()
        var (openStatus, opened) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["contentId": "lesson-1"])
        XCTAssertEqual(openStatus, 200, "\(opened)")
        let source = try XCTUnwrap(opened["source"] as? [String: Any])
        XCTAssertEqual(source["offline"] as? Bool, true)
        XCTAssertEqual(source["uri"] as? String, uri)
        let (seekStatus, sought) = try daemon.post("/v1/player/seek?wait=playing", ["position": 3.0])
        XCTAssertEqual(seekStatus, 200, "\(sought)")
        XCTAssertEqual(sought.position ?? 0, 3.0, accuracy: 1.0)
        XCTAssertEqual(try daemon.post("/v1/player/stop?wait=idle").0, 200)
        let license = try XCTUnwrap(try item(daemon, id)["license"] as? [String: Any])
        XCTAssertEqual(license["plays"] as? Int, 1)
        XCTAssertEqual(license["maxPlays"] as? Int, 2)

        // The second play is the last; the third is refused, naming the limit.
        (openStatus, opened) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["contentId": "lesson-1"])
        XCTAssertEqual(openStatus, 200, "\(opened)")
        XCTAssertEqual(try daemon.post("/v1/player/stop?wait=idle").0, 200)
        (openStatus, opened) = try daemon.post("/v1/player/open", ["contentId": "lesson-1"])
        XCTAssertEqual(openStatus, 403, "\(opened)")
        XCTAssertEqual(opened.errorCode, "license_expired")
        XCTAssertTrue(((opened["error"] as? [String: Any])?["message"] as? String ?? "").contains("2 plays"), "\(opened)")
        let spent = try XCTUnwrap(try item(daemon, id)["license"] as? [String: Any])
        XCTAssertEqual(spent["expired"] as? Bool, true)
        XCTAssertEqual(spent["reason"] as? String, "plays")

        // A renewal by PUT: plays start again.
        let (renewStatus, renewed) = try daemon.send("PUT", "/v1/library/\(id)/license", ["maxPlays": 1])
        XCTAssertEqual(renewStatus, 200, "\(renewed)")
        XCTAssertEqual((renewed["license"] as? [String: Any])?["expired"] as? Bool, false)
        (openStatus, opened) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["contentId": "lesson-1"])
        XCTAssertEqual(openStatus, 200, "\(opened)")
    }

    func testADownloadResumesAfterKill9WithoutFetchingItAgain() throws {
        let file = try randomFile("big.bin", megabytes: 8)
        let plaintext = try Data(contentsOf: file)
        let origin = try RecordingHTTPServer(root: folder)
        origin.throttle(bytesPerSecond: 2 << 20)
        let data = try Daemon.makeDataDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        var daemon = try Daemon(dataDirectory: data)
        let (status, added) = try daemon.post("/v1/library", ["uri": origin.baseURL + "/big.bin", "contentId": "big"])
        XCTAssertEqual(status, 202, "\(added)")
        let id = try XCTUnwrap(added["id"] as? String)
        let partway = try waitForItem(daemon, id, "some bytes stored") { ($0["bytes"] as? Int ?? 0) >= 3 << 20 }
        XCTAssertEqual(partway["state"] as? String, "downloading")
        XCTAssertTrue(daemon.crash(), "kill -9")
        let beforeRestart = origin.requests.count

        daemon = try Daemon(dataDirectory: data)
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let done = try waitForItem(daemon, id, "the copy complete after the restart", timeout: 30) { $0["state"] as? String == "complete" }
        XCTAssertEqual(done["bytes"] as? Int, plaintext.count)
        let resumed = try XCTUnwrap(origin.requests.dropFirst(beforeRestart).first)
        let range = try XCTUnwrap(resumed.headers["range"], "the restart asks for the rest: \(resumed.headers)")
        let offset = try XCTUnwrap(Int(range.dropFirst("bytes=".count).prefix { $0.isNumber }))
        XCTAssertGreaterThanOrEqual(offset, 1 << 20, "it goes on from what was stored")
        let fetched = origin.bytesSent(path: "/big.bin")
        print("library resume: restart asked for \(range); \(fetched) bytes fetched for a \(plaintext.count)-byte file (\(String(format: "%.2f", Double(fetched) / Double(plaintext.count)))x)")
        XCTAssertLessThan(Double(fetched), 1.2 * Double(plaintext.count))
        XCTAssertEqual(try PlaintextScan.find(slicesOf: plaintext, under: data), [])
    }

    func testRefusalsHaveStableCodes() throws {
        let file = try randomFile("f.bin", megabytes: 2)
        let origin = try RecordingHTTPServer(root: folder)
        origin.throttle(bytesPerSecond: 256 << 10)
        let daemon = try Daemon(extraArguments: ["--library-quota", "\(1 << 20)"])
        defer { XCTAssertEqual(daemon.stop(), 0) }
        XCTAssertEqual(try daemon.post("/v1/player/open", ["contentId": "nothing"]).1.errorCode, "not_in_library")
        XCTAssertEqual(try daemon.client.get("/v1/library/lib-000000000000").status, 404)
        XCTAssertEqual(try daemon.post("/v1/library", ["uri": "file:///etc/passwd", "contentId": "x"]).1.errorCode, "unsupported_uri")
        XCTAssertEqual(try daemon.post("/v1/library", ["uri": origin.baseURL + "/f.bin"]).1.errorCode, "invalid_argument")

        let (_, added) = try daemon.post("/v1/library", ["uri": origin.baseURL + "/" + file.lastPathComponent, "contentId": "f"])
        let id = try XCTUnwrap(added["id"] as? String)
        let (dupStatus, duplicate) = try daemon.post("/v1/library", ["uri": origin.baseURL + "/f.bin", "contentId": "f"])
        XCTAssertEqual(dupStatus, 409)
        XCTAssertEqual(duplicate.errorCode, "already_in_library")
        // Over the quota: the origin says 2 MiB, the quota is 1 MiB.
        let failed = try waitForItem(daemon, id, "the quota refusal") { $0["state"] as? String == "failed" }
        XCTAssertEqual((failed["error"] as? [String: Any])?["code"] as? String, "quota_exceeded")
        XCTAssertEqual(try daemon.post("/v1/player/open", ["contentId": "f"]).1.errorCode, "download_incomplete")
        let list = try daemon.client.get("/v1/library").json() as? [String: Any] ?? [:]
        XCTAssertEqual(list["quotaBytes"] as? Int, 1 << 20)
        XCTAssertEqual((list["items"] as? [[String: Any]])?.count, 1)

        let (deleteStatus, _) = try daemon.send("DELETE", "/v1/library/\(id)")
        XCTAssertEqual(deleteStatus, 200)
        XCTAssertFalse(FileManager.default.fileExists(atPath: daemon.dataDirectory.appendingPathComponent("library/\(id)").path))
        XCTAssertEqual(try daemon.send("DELETE", "/v1/library/\(id)").0, 404)
        try daemon.assertStillPlays()
    }

    func testPauseKeepsWhatIsStoredAndResumeAsksForTheRest() throws {
        let file = try randomFile("p.bin", megabytes: 4)
        let origin = try RecordingHTTPServer(root: folder)
        origin.throttle(bytesPerSecond: 1 << 20)
        let daemon = try Daemon()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let (_, added) = try daemon.post("/v1/library", ["uri": origin.baseURL + "/" + file.lastPathComponent, "contentId": "p",
                                                         "license": ["expires": "2020-01-01T00:00:00Z"]])
        let id = try XCTUnwrap(added["id"] as? String)
        try waitForItem(daemon, id, "a megabyte stored") { ($0["bytes"] as? Int ?? 0) >= 1 << 20 }
        let (pauseStatus, paused) = try daemon.post("/v1/library/\(id)/pause")
        XCTAssertEqual(pauseStatus, 200, "\(paused)")
        XCTAssertEqual(paused["state"] as? String, "paused")
        let stored = try XCTUnwrap(paused["bytes"] as? Int)
        usleep(600_000)
        let before = origin.requests.count
        let (resumeStatus, resumed) = try daemon.post("/v1/library/\(id)/resume")
        XCTAssertEqual(resumeStatus, 200, "\(resumed)")
        try waitForItem(daemon, id, "complete") { $0["state"] as? String == "complete" }
        let range = origin.requests.dropFirst(before).first?.headers["range"]
        XCTAssertNotNil(range, "the resume is a Range request")
        let offset = Int(range?.dropFirst("bytes=".count).prefix { $0.isNumber } ?? "") ?? -1
        XCTAssertGreaterThanOrEqual(offset, stored, "nothing stored before the pause is fetched again")

        // Its licence ended in 2020: refused with the date named; a renewal lets it play.
        let (status, refused) = try daemon.post("/v1/player/open", ["contentId": "p"])
        XCTAssertEqual(status, 403)
        let license = try XCTUnwrap(try item(daemon, id)["license"] as? [String: Any])
        XCTAssertEqual(license["reason"] as? String, "date", "\(refused)")
    }

    /// A copy downloaded into a daemon on `data` (kept), from a clip the origin serves.
    private func completeCopy(_ daemon: Daemon, contentId: String, origin: RecordingHTTPServer, file: String,
                              license: [String: Any]? = nil) throws -> String {
        var body: [String: Any] = ["uri": origin.baseURL + "/" + file, "contentId": contentId]
        if let license { body["license"] = license }
        let (status, added) = try daemon.post("/v1/library", body)
        XCTAssertEqual(status, 202, "\(added)")
        let id = try XCTUnwrap(added["id"] as? String)
        try waitForItem(daemon, id, "\(contentId) complete") { $0["state"] as? String == "complete" }
        return id
    }

    func testTheLicenseServerRenewsASpentCopyBeforeTheOpenIsRefused() throws {
        let clip = try MediaFixtures.mp4(seconds: 2)
        try FileManager.default.copyItem(at: clip, to: folder.appendingPathComponent("clip.mp4"))
        let origin = try RecordingHTTPServer(root: folder)
        let licenses = try AnalyticsCollector()
        licenses.answer(404)
        let daemon = try Daemon(extraArguments: ["--license-url", licenses.url])
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let id = try completeCopy(daemon, contentId: "rental", origin: origin, file: "clip.mp4", license: ["maxPlays": 0])

        // The server refuses: the open is refused, naming the limit, after asking once.
        var (status, reply) = try daemon.post("/v1/player/open", ["contentId": "rental", "userId": "u-1"])
        XCTAssertEqual(status, 404, "a userId of its own is another copy: \(reply)")
        (status, reply) = try daemon.post("/v1/player/open", ["contentId": "rental"])
        XCTAssertEqual(status, 403, "\(reply)")
        XCTAssertEqual(reply.errorCode, "license_expired")
        XCTAssertEqual(licenses.posts.count, 1)
        XCTAssertEqual(licenses.posts.first?.json?["contentId"] as? String, "rental")

        // The refused copy is not asked about again within a minute (a server that keeps
        // refusing gets no request per open): its open is refused at once.
        (status, reply) = try daemon.post("/v1/player/open", ["contentId": "rental"])
        XCTAssertEqual(status, 403, "\(reply)")
        XCTAssertEqual(licenses.posts.count, 1)
        XCTAssertEqual((try item(daemon, id)["license"] as? [String: Any])?["maxPlays"] as? Int, 0)

        // The server grants now: another spent copy (by date) is renewed, then plays.
        licenses.answer(200, body: #"{"maxPlays": 2}"#)
        let other = try completeCopy(daemon, contentId: "rental-2", origin: origin, file: "clip.mp4", license: ["expires": "2020-01-01T00:00:00Z"])
        (status, reply) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["contentId": "rental-2"])
        XCTAssertEqual(status, 200, "renewed online, then played: \(reply)")
        let renewed = try XCTUnwrap(try item(daemon, other)["license"] as? [String: Any])
        XCTAssertEqual(renewed["maxPlays"] as? Int, 2)
        XCTAssertEqual(renewed["plays"] as? Int, 1)
        XCTAssertNil(renewed["expires"] as? String)
        XCTAssertEqual(licenses.posts.count, 2)
    }

    func testQueueItemsPlayCopiesAndAMissingCopyFailsAtTheNextStart() throws {
        let clip = try MediaFixtures.mp4(seconds: 2)
        try FileManager.default.copyItem(at: clip, to: folder.appendingPathComponent("clip.mp4"))
        let origin = try RecordingHTTPServer(root: folder)
        let data = try Daemon.makeDataDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        var daemon = try Daemon(dataDirectory: data)
        let first = try completeCopy(daemon, contentId: "one", origin: origin, file: "clip.mp4")
        let second = try completeCopy(daemon, contentId: "two", origin: origin, file: "clip.mp4")
        origin.stop()
        let (status, queued) = try daemon.send("PUT", "/v1/queue", ["items": [["contentId": "one"], ["contentId": "two"]]])
        XCTAssertEqual(status, 200, "\(queued)")
        _ = try daemon.waitFor("the second copy playing", timeout: 20) { snap in
            (snap["source"] as? [String: Any])?["contentId"] as? String == "two" && snap.state == "playing"
        }
        XCTAssertEqual(((try item(daemon, first))["license"] as? [String: Any])?["plays"] as? Int, 1)
        XCTAssertEqual(daemon.stop(), 0)

        // The second copy's file goes missing while the daemon is down.
        try FileManager.default.removeItem(at: data.appendingPathComponent("library/\(second)"))
        daemon = try Daemon(dataDirectory: data)
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let missing = try item(daemon, second)
        XCTAssertEqual(missing["state"] as? String, "failed")
        XCTAssertEqual((missing["error"] as? [String: Any])?["code"] as? String, "missing")
        XCTAssertEqual(try daemon.post("/v1/player/open", ["contentId": "two"]).1.errorCode, "download_incomplete")
        XCTAssertEqual(try item(daemon, first)["state"] as? String, "complete")
    }

    func testOriginFaultsAreRiddenOutAndEventsFollowTheDownload() throws {
        let file = try randomFile("faulty.bin", megabytes: 3)
        let origin = try RecordingHTTPServer(root: folder)
        origin.failNext(path: "/faulty.bin", count: 3, status: 503)
        origin.throttle(bytesPerSecond: 2 << 20)
        let daemon = try Daemon()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        let (status, added) = try daemon.post("/v1/library", ["uri": origin.baseURL + "/" + file.lastPathComponent, "contentId": "faulty"])
        XCTAssertEqual(status, 202, "\(added)")
        let id = try XCTUnwrap(added["id"] as? String)
        let events = try collectEvents(ws, timeout: 30) { events in
            events.contains { $0["type"] as? String == "download" && ($0["data"] as? [String: Any])?["state"] as? String == "complete" }
        }
        let downloads = events.filter { $0["type"] as? String == "download" }.compactMap { $0["data"] as? [String: Any] }
        XCTAssertEqual(events.first { $0["type"] as? String == "library" }?["data"] as? [String: String], ["id": id, "change": "added"])
        XCTAssertEqual(downloads.first?["state"] as? String, "queued")
        XCTAssertEqual(downloads.last?["state"] as? String, "complete")
        XCTAssertEqual(downloads.last?["bytes"] as? Int, 3 << 20)
        let progress = downloads.filter { $0["state"] as? String == "downloading" }.compactMap { $0["progress"] as? Double }
        XCTAssertEqual(progress, progress.sorted(), "progress only grows")
        XCTAssertGreaterThanOrEqual(progress.count, 2, "progress is reported while it downloads")
        let statuses = origin.requests.filter { $0.path == "/faulty.bin" }.map(\.status)
        XCTAssertEqual(Array(statuses.prefix(3)), [503, 503, 503], "the faults were answered")
        XCTAssertEqual(statuses.last, 200)
    }

    func testPlayTimeRunsOutWhilePlaying() throws {
        let clip = try MediaFixtures.mp4(seconds: 6)
        try FileManager.default.copyItem(at: clip, to: folder.appendingPathComponent("clip.mp4"))
        let origin = try RecordingHTTPServer(root: folder)
        let daemon = try Daemon()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        XCTAssertEqual(try daemon.send("PATCH", "/v1/player", ["repeat": "one"]).0, 200)
        let id = try completeCopy(daemon, contentId: "short", origin: origin, file: "clip.mp4", license: ["maxPlayTime": 2])
        let (status, opened) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["contentId": "short"])
        XCTAssertEqual(status, 200, "\(opened)")
        // Play time is saved every 5 s: the copy stops at the first save past its 2 s.
        let stopped = try daemon.waitFor("the player stopped by the licence", timeout: 15) { $0.state == "idle" }
        XCTAssertEqual(stopped.state, "idle")
        let license = try XCTUnwrap(try item(daemon, id)["license"] as? [String: Any])
        XCTAssertEqual(license["reason"] as? String, "playTime")
        XCTAssertGreaterThanOrEqual(license["playTime"] as? Double ?? 0, 2)
        XCTAssertEqual(try daemon.post("/v1/player/open", ["contentId": "short"]).1.errorCode, "license_expired")
    }

    func testOfflinePlayResumesAndQueuesItsAnalyticsInTheOutbox() throws {
        let clip = try MediaFixtures.mp4(seconds: 20)
        try FileManager.default.copyItem(at: clip, to: folder.appendingPathComponent("clip.mp4"))
        let origin = try RecordingHTTPServer(root: folder)
        let collector = try AnalyticsCollector()
        collector.answer(503)  // the network is down: events wait in the outbox
        let daemon = try Daemon(extraArguments: ["--analytics-url", collector.url, "--analytics-interval", "1"])
        defer { XCTAssertEqual(daemon.stop(), 0) }
        _ = try completeCopy(daemon, contentId: "film", origin: origin, file: "clip.mp4")
        origin.stop()

        var (status, opened) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["contentId": "film", "start": 6])
        XCTAssertEqual(status, 200, "\(opened)")
        _ = try daemon.waitFor("8 s reached", timeout: 10) { ($0.position ?? 0) >= 8 }
        let (pauseStatus, paused) = try daemon.post("/v1/player/pause?wait=paused")
        XCTAssertEqual(pauseStatus, 200, "\(paused)")
        let saved = try XCTUnwrap(paused.position)
        XCTAssertEqual(try daemon.post("/v1/player/stop?wait=idle").0, 200)

        // The next offline open starts where the viewer left off.
        (status, opened) = try daemon.post("/v1/player/open?wait=paused&timeout=20", ["contentId": "film", "autoplay": false])
        XCTAssertEqual(status, 200, "\(opened)")
        let resumed = try XCTUnwrap(opened.position)
        XCTAssertEqual(resumed, saved, accuracy: 1.5, "resumed near \(saved)")
        XCTAssertEqual((opened["source"] as? [String: Any])?["offline"] as? Bool, true)

        // What could not be sent waits in the outbox, for the content id.
        let analytics = try daemon.client.get("/v1/analytics").json() as? [String: Any] ?? [:]
        XCTAssertGreaterThan(analytics["pending"] as? Int ?? 0, 0, "\(analytics)")
        XCTAssertTrue(collector.posts.contains { $0.json?["contentId"] as? String == "film" }, "the collector was tried with the content's events")
    }

    func testACopyDamagedOnDiskFailsInsteadOfHalfPlaying() throws {
        let file = try randomFile("d.bin", megabytes: 4)
        let origin = try RecordingHTTPServer(root: folder)
        origin.throttle(bytesPerSecond: 2 << 20)
        let daemon = try Daemon()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let (_, added) = try daemon.post("/v1/library", ["uri": origin.baseURL + "/" + file.lastPathComponent, "contentId": "d"])
        let id = try XCTUnwrap(added["id"] as? String)
        try waitForItem(daemon, id, "2 MiB stored") { ($0["bytes"] as? Int ?? 0) >= 2 << 20 }
        XCTAssertEqual(try daemon.post("/v1/library/\(id)/pause").0, 200)
        // A bit flips in what is stored (a failing SD card): the first chunk's checksum no longer matches.
        let stored = daemon.dataDirectory.appendingPathComponent("library/\(id)/media.enc")
        let handle = try FileHandle(forUpdating: stored)
        try handle.seek(toOffset: 1000)
        let byte = try XCTUnwrap(handle.readData(ofLength: 1).first)
        try handle.seek(toOffset: 1000)
        handle.write(Data([byte ^ 0x01]))
        try handle.close()
        origin.throttle(bytesPerSecond: nil)
        XCTAssertEqual(try daemon.post("/v1/library/\(id)/resume").0, 200)
        let failed = try waitForItem(daemon, id, "the damage found") { ["complete", "failed"].contains($0["state"] as? String ?? "") }
        XCTAssertEqual(failed["state"] as? String, "failed")
        XCTAssertEqual((failed["error"] as? [String: Any])?["code"] as? String, "damaged", "\(failed)")
        XCTAssertEqual(try daemon.post("/v1/player/open", ["contentId": "d"]).1.errorCode, "download_incomplete")
        // The damaged bytes were dropped: a resume fetches the file again and it is whole.
        XCTAssertEqual(try daemon.post("/v1/library/\(id)/resume").0, 200)
        let mended = try waitForItem(daemon, id, "fetched again") { ["complete", "failed"].contains($0["state"] as? String ?? "") }
        XCTAssertEqual(mended["state"] as? String, "complete", "\(mended)")
        XCTAssertEqual(mended["bytes"] as? Int, 4 << 20)
    }
}
