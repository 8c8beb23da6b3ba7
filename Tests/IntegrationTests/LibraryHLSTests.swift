import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// Issue 17's HLS items through the real daemon: only the chosen variant and renditions are
/// fetched, keys with the item's key headers, and the copy plays with the origin stopped.
final class LibraryHLSTests: XCTestCase {
    private func waitForItem(_ daemon: Daemon, _ id: String, timeout: Double = 60, _ condition: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        var last: [String: Any] = [:]
        while Date() < deadline {
            last = try daemon.client.get("/v1/library/" + id).json() as? [String: Any] ?? [:]
            if condition(last) { return last }
            usleep(50_000)
        }
        XCTFail("timed out; last: \(last)")
        return last
    }

    func testOnlyTheChosenVariantAndAudioAreKeptAndPlayOffline() throws {
        let ladder = try HLSFixtures.ladder()
        let origin = try RecordingHTTPServer(root: ladder.directory)
        let daemon = try Daemon()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let (status, added) = try daemon.post("/v1/library", ["uri": origin.baseURL + "/" + ladder.masterPath, "contentId": "ladder",
                                                              "variant": "lowest", "audio": ["fr"]])
        XCTAssertEqual(status, 202, "\(added)")
        XCTAssertEqual(added["kind"] as? String, "hls")
        let id = try XCTUnwrap(added["id"] as? String)
        let done = try waitForItem(daemon, id) { ["complete", "failed"].contains($0["state"] as? String ?? "") }
        XCTAssertEqual(done["state"] as? String, "complete", "\(done)")
        XCTAssertEqual(done["progress"] as? Double, 1)

        let paths = Set(origin.requests.map(\.path))
        let lowest = "/" + (ladder.variantPaths[0] as NSString).deletingLastPathComponent + "/"
        let french = "/" + (ladder.audioPaths["fr"]! as NSString).deletingLastPathComponent + "/"
        XCTAssertTrue(paths.contains { $0.hasPrefix(lowest) && $0.hasSuffix(".ts") }, "the lowest variant's segments: \(paths.sorted())")
        XCTAssertTrue(paths.contains { $0.hasPrefix(french) && $0.hasSuffix(".ts") }, "the French audio's segments")
        for other in ladder.variantPaths.dropFirst() + [ladder.audioPaths["en"]!] + Array(ladder.subtitlePaths.values) {
            let folder = "/" + (other as NSString).deletingLastPathComponent + "/"
            XCTAssertFalse(paths.contains { $0.hasPrefix(folder) }, "\(folder) was not chosen but fetched: \(paths.sorted())")
        }
        let segment = try Data(contentsOf: ladder.directory.appendingPathComponent(ladder.variantPaths[0])
                                .deletingLastPathComponent().appendingPathComponent("segment00001.ts"))
        XCTAssertEqual(try PlaintextScan.find(slicesOf: segment, under: daemon.dataDirectory), [], "a segment in the clear at rest")

        origin.stop()
        let (openStatus, opened) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["contentId": "ladder"])
        XCTAssertEqual(openStatus, 200, "\(opened)")
        let source = try XCTUnwrap(opened["source"] as? [String: Any])
        XCTAssertEqual(source["offline"] as? Bool, true)
        XCTAssertEqual(source["kind"] as? String, "hls")
        let s = try daemon.waitFor("the French audio listed", timeout: 10) { snap in
            ((snap["tracks"] as? [String: Any])?["audio"] as? [[String: Any]])?.isEmpty == false
        }
        let audio = ((s["tracks"] as? [String: Any])?["audio"] as? [[String: Any]]) ?? []
        XCTAssertEqual(audio.compactMap { $0["language"] as? String }, ["fr"], "only the kept rendition: \(audio)")
        let (seekStatus, sought) = try daemon.post("/v1/player/seek?wait=playing", ["position": 4.0])
        XCTAssertEqual(seekStatus, 200, "\(sought)")
    }

    func testAnEncryptedStreamKeepsItsKeyFetchedWithTheKeyHeaders() throws {
        let stream = try HLSFixtures.encrypted()
        let origin = try RecordingHTTPServer(root: stream.directory)
        let daemon = try Daemon()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let (status, added) = try daemon.post("/v1/library", ["uri": origin.baseURL + "/" + stream.masterPath, "contentId": "aes",
                                                              "keyHeaders": ["Authorization": "Bearer key-token"]])
        XCTAssertEqual(status, 202, "\(added)")
        let id = try XCTUnwrap(added["id"] as? String)
        let done = try waitForItem(daemon, id) { ["complete", "failed"].contains($0["state"] as? String ?? "") }
        XCTAssertEqual(done["state"] as? String, "complete", "\(done)")
        let keyRequests = origin.requests.filter { $0.path.hasSuffix("key.bin") }
        XCTAssertEqual(keyRequests.count, 1)
        XCTAssertEqual(keyRequests.first?.headers["authorization"], "Bearer key-token")
        XCTAssertTrue(origin.requests.filter { $0.path.hasSuffix(".ts") }.allSatisfy { $0.headers["authorization"] == nil })
        // Neither the key nor a segment is in the clear at rest.
        let database = try Data(contentsOf: daemon.dataDirectory.appendingPathComponent("marquee.sqlite3"))
        XCTAssertNil(database.range(of: Data(stream.key)), "the AES-128 key in the database")
        var keyHits: [String] = []
        for file in FileManager.default.enumerator(at: daemon.dataDirectory, includingPropertiesForKeys: nil)!.compactMap({ $0 as? URL }) {
            if let data = try? Data(contentsOf: file), data.range(of: Data(stream.key)) != nil { keyHits.append(file.lastPathComponent) }
        }
        XCTAssertEqual(keyHits, [], "the AES-128 key at rest")
        origin.stop()
        let (openStatus, opened) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["contentId": "aes"])
        XCTAssertEqual(openStatus, 200, "\(opened)")
    }
}
