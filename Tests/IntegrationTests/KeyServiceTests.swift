import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// API-2 §2's key service through the real daemon, a real origin and a real key service: an
/// AES-128 HLS whose key URI is `skd://content-1/key-0` plays with its key POSTed for (the URI
/// is never fetched), a refused key is `key_error`, a failing key service is retried, and the
/// key is never written to the data folder or the log.
final class KeyServiceTests: XCTestCase {
    static let keyURI = "skd://content-1/key-0"
    private var origin: RecordingHTTPServer!
    private var keyService: AnalyticsCollector!
    private var hls: EncryptedHLS!
    private var daemon: Daemon?

    override func setUpWithError() throws {
        hls = try HLSFixtures.encrypted(seconds: 4)
        origin = try RecordingHTTPServer(root: hls.directory)
        // The fixture's media playlist with its key URI in a scheme no origin serves.
        let text = try String(contentsOf: hls.directory.appendingPathComponent(hls.mediaPath), encoding: .utf8)
        let skd = text.replacingOccurrences(of: "URI=\"key.bin\"", with: "URI=\"\(Self.keyURI)\"")
        XCTAssertNotEqual(skd, text, "the fixture's EXT-X-KEY names key.bin")
        origin.serve("/v0/skd.m3u8") { skd }
        keyService = try AnalyticsCollector()
    }

    override func tearDown() {
        daemon?.assertStopsCleanly()
        daemon = nil
        keyService.stop()
        origin.stop()
    }

    private func startDaemon(_ arguments: [String] = []) throws -> Daemon {
        let started = try Daemon(extraArguments: arguments)
        daemon = started
        return started
    }

    private var skdURL: String { origin.baseURL + "/v0/skd.m3u8" }

    /// The key service answers `status` `refusals` times (first), then the key.
    private func serveKey(after refusals: Int = 0, status: Int = 503) {
        let key = Data(hls.key)
        let counter = Counter()
        keyService.respond { _ in
            counter.next() < refusals ? PostReply(status: status, contentType: "text/plain", body: Data("no".utf8))
                                      : PostReply(status: 200, contentType: "application/octet-stream", body: key)
        }
    }

    func testTheKeyIsPostedForAndTheKeyURIIsNeverFetched() throws {
        serveKey()
        let daemon = try startDaemon()
        let (status, s) = try daemon.post("/v1/player/open?wait=playing&timeout=20", [
            "uri": skdURL, "contentId": "content-1", "userId": "user-7",
            "keyService": ["uri": keyService.url, "headers": ["Authorization": "Bearer secret-token-42"]],
        ])
        XCTAssertEqual(status, 200, "\(s); log:\n\(daemon.log.suffix(3000))")
        XCTAssertEqual(s.state, "playing")
        _ = try daemon.waitFor("1.5 s played: segments decrypted", timeout: 10) { ($0.position ?? 0) >= 1.5 }

        let posts = keyService.posts
        XCTAssertFalse(posts.isEmpty, "the key service was never asked")
        for post in posts {
            XCTAssertEqual(post.json as NSDictionary?,
                           ["keyUri": Self.keyURI, "contentId": "content-1", "userId": "user-7"] as NSDictionary, "\(String(decoding: post.body, as: UTF8.self))")
            XCTAssertEqual(post.headers["authorization"], "Bearer secret-token-42")
            XCTAssertTrue(post.headers["content-type"]?.hasPrefix("application/json") == true, "\(post.headers)")
        }
        // One key for the whole stream: asked once, then from the session's cache.
        XCTAssertEqual(posts.count, 1, "the key is cached for the session")
        let paths = origin.requests.map(\.path)
        XCTAssertTrue(paths.contains { $0.hasSuffix(".ts") }, "segments came from the origin: \(paths)")
        XCTAssertTrue(paths.allSatisfy { $0 == "/v0/skd.m3u8" || $0.hasSuffix(".ts") },
                      "the origin was asked for something else than the playlist and segments (a key): \(paths)")
        XCTAssertFalse(daemon.log.contains("secret-token-42"), "the key service's header is logged")
    }

    func testARefusedKeyIsAKeyError() throws {
        keyService.respond { _ in PostReply(status: 403, contentType: "text/plain", body: Data("not entitled".utf8)) }
        let daemon = try startDaemon()
        let (status, opened) = try daemon.post("/v1/player/open", ["uri": skdURL, "contentId": "content-1",
                                                                  "keyService": ["uri": keyService.url]])
        XCTAssertEqual(status, 200, "\(opened)")
        let s = try daemon.waitFor("the error", timeout: 15) { $0.state == "error" }
        XCTAssertEqual(s.errorCode, "key_error", "\(s)")
        let message = (s["error"] as? [String: Any])?["message"] as? String ?? ""
        XCTAssertTrue(message.contains(Self.keyURI) && message.contains("403"), "names the key URI and the status: \(message)")
        XCTAssertEqual(keyService.posts.count, 1, "a refusal is not retried")
    }

    func testAFailingKeyServiceIsRetried() throws {
        serveKey(after: 2, status: 503)
        let daemon = try startDaemon()
        let (status, s) = try daemon.post("/v1/player/open?wait=playing&timeout=20", [
            "uri": skdURL, "contentId": "content-1", "keyService": ["uri": keyService.url],
        ])
        XCTAssertEqual(status, 200, "\(s); log:\n\(daemon.log.suffix(3000))")
        XCTAssertEqual(s.state, "playing")
        _ = try daemon.waitFor("1.5 s played", timeout: 10) { ($0.position ?? 0) >= 1.5 }
        let statuses = keyService.posts.map(\.status)
        XCTAssertEqual(Array(statuses.prefix(3)), [503, 503, 200], "\(statuses)")
    }

    func testTheDaemonDefaultKeyServiceAndTheKeyNeverAtRestOrInTheLog() throws {
        serveKey()
        let daemon = try startDaemon(["--key-service", keyService.url])
        let (status, s) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["uri": skdURL, "contentId": "content-1"])
        XCTAssertEqual(status, 200, "\(s); log:\n\(daemon.log.suffix(3000))")
        _ = try daemon.waitFor("1.5 s played", timeout: 10) { ($0.position ?? 0) >= 1.5 }
        XCTAssertEqual(keyService.posts.first?.json?["keyUri"] as? String, Self.keyURI, "--key-service is the default")
        _ = try daemon.post("/v1/player/stop")
        assertKeyNowhere(under: daemon.dataDirectory, log: daemon.log)
    }

    func testAKeyServiceOnALocalFileIsInvalid() throws {
        let daemon = try startDaemon()
        let clip = try MediaFixtures.mp4(seconds: 2)
        let (status, body) = try daemon.post("/v1/player/open", ["uri": clip.path, "keyService": ["uri": keyService.url]])
        XCTAssertEqual(status, 400, "\(body)")
        XCTAssertEqual((body["error"] as? [String: Any])?["code"] as? String ?? body["code"] as? String, "invalid_argument", "\(body)")
    }

    func testALibraryItemKeepsItsKeyFromTheKeyServiceAndPlaysOffline() throws {
        serveKey()
        let daemon = try startDaemon()
        let (status, added) = try daemon.post("/v1/library", [
            "uri": skdURL, "contentId": "content-1", "userId": "user-7",
            "keyService": ["uri": keyService.url, "headers": ["Authorization": "Bearer secret-token-42"]],
        ])
        XCTAssertEqual(status, 202, "\(added)")
        let id = try XCTUnwrap(added["id"] as? String)
        let deadline = Date().addingTimeInterval(30)
        var item: [String: Any] = [:]
        while Date() < deadline {
            item = try daemon.client.get("/v1/library/" + id).json() as? [String: Any] ?? [:]
            if ["complete", "failed"].contains(item["state"] as? String ?? "") { break }
            usleep(50_000)
        }
        XCTAssertEqual(item["state"] as? String, "complete", "\(item); log:\n\(daemon.log.suffix(3000))")
        let post = try XCTUnwrap(keyService.posts.first, "the key service was never asked")
        XCTAssertEqual(post.json as NSDictionary?, ["keyUri": Self.keyURI, "contentId": "content-1", "userId": "user-7"] as NSDictionary)
        XCTAssertEqual(post.headers["authorization"], "Bearer secret-token-42")
        XCTAssertTrue(origin.requests.allSatisfy { $0.path == "/v0/skd.m3u8" || $0.path.hasSuffix(".ts") }, "\(origin.requests.map(\.path))")

        origin.stop()
        keyService.stop()
        let (openStatus, opened) = try daemon.post("/v1/player/open?wait=playing&timeout=20", ["contentId": "content-1", "userId": "user-7"])
        XCTAssertEqual(openStatus, 200, "\(opened); log:\n\(daemon.log.suffix(3000))")
        XCTAssertEqual((opened["source"] as? [String: Any])?["offline"] as? Bool, true)
        _ = try daemon.waitFor("1.5 s played offline: the kept key decrypts", timeout: 10) { ($0.position ?? 0) >= 1.5 }
        _ = try daemon.post("/v1/player/stop")
        assertKeyNowhere(under: daemon.dataDirectory, log: daemon.log)
        XCTAssertFalse(daemon.log.contains("secret-token-42"), "the key service's header is logged")
    }

    /// The key's raw bytes, hex and base64 (and the key service's token) are in no file under `folder` (the log included).
    func assertKeyNowhere(under folder: URL, log: String, file: StaticString = #filePath, line: UInt = #line) {
        let key = Data(hls.key)
        let hex = hls.key.map { String(format: "%02x", $0) }.joined()
        // The key service's bearer token too: sealed at rest, never logged.
        let forms = [key, Data(hex.utf8), Data(hex.uppercased().utf8), Data(key.base64EncodedString().utf8), Data("secret-token-42".utf8)]
        for text in [hex, hex.uppercased(), key.base64EncodedString(), String(decoding: key, as: UTF8.self)] {
            XCTAssertFalse(log.contains(text), "the key is in the log", file: file, line: line)
        }
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])?
            .compactMap { $0 as? URL }.filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true } ?? []
        XCTAssertFalse(files.isEmpty, "the data folder holds files (the database, the log)", file: file, line: line)
        for url in files {
            guard let contents = try? Data(contentsOf: url) else { continue }
            for form in forms where contents.range(of: form) != nil {
                XCTFail("the key (\(form.count) bytes form) is in \(url.lastPathComponent)", file: file, line: line)
            }
        }
    }
}

/// Counts calls from the key service's thread.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.withLock { defer { value += 1 }; return value } }
}
