import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// The URL resolver (`--url-resolver`, API-2 §2) through the real daemon: a resolver (an
/// `AnalyticsCollector` answering POSTs) that issues signed URLs good for one request, and
/// an origin (`RecordingHTTPServer`) that answers 403 to a spent, unknown or mismatched
/// token. The daemon must ask again on each refusal and play on.
final class URLResolverTests: XCTestCase {
    private var resolver: AnalyticsCollector!
    private var origin: RecordingHTTPServer?
    private var daemon: Daemon?
    private let signer = Signer()

    override func setUpWithError() throws {
        resolver = try AnalyticsCollector()
    }

    override func tearDown() {
        daemon?.assertStopsCleanly()
        daemon = nil
        origin = nil
        resolver.stop()
    }

    /// Signed URLs: `?token=N` with header `X-Signed: N`, each token good for one request.
    private final class Signer: @unchecked Sendable {
        private let lock = NSLock()
        private var issued = 0
        private var used: Set<String> = []

        func issue() -> Int { lock.withLock { issued += 1; return issued } }

        /// The origin's verdict: 403 unless the token was issued, matches the header and is unspent.
        func check(_ request: RecordedRequest) -> Int? {
            let token = request.query?.split(separator: "&").first { $0.hasPrefix("token=") }.map { String($0.dropFirst(6)) }
            return lock.withLock {
                guard let token, let n = Int(token), n <= issued, request.headers["x-signed"] == token,
                      !used.contains(token) else { return 403 }
                used.insert(token)
                return nil
            }
        }
    }

    /// Serves `root`; requests for `signedPaths` need an unspent signed URL, every other one
    /// the `X-Signed` header of some issued token.
    private func startOrigin(root: URL, signedPaths: Set<String>) throws -> RecordingHTTPServer {
        let server = try RecordingHTTPServer(root: root)
        let signer = signer
        server.authorize { request in
            if signedPaths.contains(request.path) { return signer.check(request) }
            return request.headers["x-signed"] == nil ? 403 : nil
        }
        origin = server
        return server
    }

    /// The resolver answers each content id with `paths[contentId]` on the origin, signed anew.
    private func startDaemon(origin: RecordingHTTPServer, paths: [String: String]) throws -> Daemon {
        let signer = signer
        let base = origin.baseURL
        resolver.respond { post in
            guard let id = post.json?["contentId"] as? String, let path = paths[id] else { return .json([:], status: 404) }
            let n = signer.issue()
            return .json(["uri": "\(base)/\(path)?token=\(n)", "headers": ["X-Signed": "\(n)"]])
        }
        let started = try Daemon(extraArguments: ["--url-resolver", resolver.url])
        daemon = started
        return started
    }

    /// Requests for `path` the origin served (2xx).
    private func served(_ server: RecordingHTTPServer, _ path: String) -> [RecordedRequest] {
        server.requests.filter { $0.path == path && (200..<300).contains($0.status ?? 0) }
    }

    // (a) A single-use master: the player's own fetch and hlsdemux2's each need a fresh URL.
    func testHLSWithSingleUseMasterPlaysThroughFreshURLs() throws {
        let ladder = try HLSFixtures.ladder()
        let server = try startOrigin(root: ladder.directory, signedPaths: ["/" + ladder.masterPath])
        let daemon = try startDaemon(origin: server, paths: ["c1": ladder.masterPath])

        let (status, s) = try daemon.post("/v1/player/open?wait=playing", ["contentId": "c1", "userId": "u1", "resolve": true])
        XCTAssertEqual(status, 200, "\(s)\n\(daemon.log.suffix(3000))")
        XCTAssertEqual(s.state, "playing", "\(s)")
        let source = try XCTUnwrap(s["source"] as? [String: Any], "\(s)")
        XCTAssertEqual(source["uri"] as? String, server.baseURL + "/" + ladder.masterPath, "the resolved URI without its token")
        XCTAssertEqual(source["contentId"] as? String, "c1")

        let first = try XCTUnwrap(resolver.posts.first?.json)
        XCTAssertEqual(first["contentId"] as? String, "c1")
        XCTAssertEqual(first["userId"] as? String, "u1")
        XCTAssertNil(first["uri"], "the open named no uri: \(first)")
        let again = resolver.posts.dropFirst().compactMap(\.json)
        XCTAssertFalse(again.isEmpty, "a refused master asks the resolver again")
        XCTAssertTrue(again.allSatisfy { ($0["uri"] as? String)?.hasPrefix(server.baseURL + "/" + ladder.masterPath + "?token=") == true },
                      "a refresh names the URL the origin refused: \(again)")

        let master = server.requests.filter { $0.path == "/" + ladder.masterPath }
        let servedTokens = served(server, "/" + ladder.masterPath).compactMap(\.query)
        XCTAssertGreaterThanOrEqual(servedTokens.count, 2, "the player's master fetch and hlsdemux2's: \(master.map { ($0.query, $0.status) })")
        XCTAssertEqual(Set(servedTokens).count, servedTokens.count, "each token served once: \(servedTokens)")
        XCTAssertTrue(master.contains { $0.status == 403 }, "the reused URL was refused: \(master.map { ($0.query, $0.status) })")
        let media = server.requests.filter { $0.path != "/" + ladder.masterPath }
        XCTAssertFalse(media.isEmpty)
        XCTAssertTrue(media.allSatisfy { $0.headers["x-signed"] != nil && $0.status != 403 }, "every request carried the resolver's header")
        XCTAssertFalse(daemon.log.contains("token="), "no signed URL in the log")
    }

    // (b) A looping queue of resolve items: every play asks the resolver for a fresh URL.
    func testQueueOfResolvedItemsLoopsWithFreshURLs() throws {
        let folder = try makeFolder(["a.mp4": try MediaFixtures.mp4(seconds: 1), "b.mp4": try MediaFixtures.mp4(seconds: 1)])
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try startOrigin(root: folder, signedPaths: ["/a.mp4", "/b.mp4"])
        let daemon = try startDaemon(origin: server, paths: ["a": "a.mp4", "b": "b.mp4"])

        let put = try daemon.client.put("/v1/queue", json: [
            "items": [["contentId": "a", "resolve": true], ["contentId": "b", "resolve": true]], "loop": true,
        ])
        XCTAssertEqual(put.status, 200, put.text)
        // An item's first query names no uri (a refresh after a refusal does).
        let (posts, met) = resolver.waitFor(timeout: 15) { posts in
            posts.compactMap(\.json).filter { $0["uri"] == nil }.count >= 4
        }
        let plays = posts.compactMap(\.json).filter { $0["uri"] == nil }.compactMap { $0["contentId"] as? String }
        XCTAssertTrue(met, "the queue went round twice: \(plays)\n\(daemon.log.suffix(3000))")
        XCTAssertEqual(Array(plays.prefix(4)), ["a", "b", "a", "b"])
        let now = try daemon.snapshot()
        XCTAssertNotEqual(now.state, "error", "\(now)")
        for path in ["/a.mp4", "/b.mp4"] {
            let tokens = served(server, path).compactMap(\.query)
            XCTAssertGreaterThanOrEqual(tokens.count, 2, "\(path) played twice")
            XCTAssertEqual(Set(tokens).count, tokens.count, "each token served once: \(tokens)")
        }
    }

    // (c) A resolver that refuses: resolver_error, and the daemon plays the next open.
    func testResolverRefusalIsResolverError() throws {
        let clip = try MediaFixtures.mp4(seconds: 2)
        let server = try startOrigin(root: clip.deletingLastPathComponent(), signedPaths: [])
        let daemon = try startDaemon(origin: server, paths: [:])

        let (status, s) = try daemon.post("/v1/player/open", ["contentId": "unknown", "resolve": true])
        XCTAssertEqual(status, 422, "\(s)")
        let error = try XCTUnwrap(s["error"] as? [String: Any], "\(s)")
        XCTAssertEqual(error["code"] as? String, "resolver_error", "\(s)")
        XCTAssertTrue((error["message"] as? String)?.contains("404") == true, "names the status: \(s)")
        XCTAssertEqual(resolver.posts.count, 1)
        try daemon.assertStillPlays()
    }

    // (d) A progressive file on a single-use URL: every Range request after the first (the
    // index at the end, a seek) is refused and re-resolved.
    func testProgressiveFileSeeksThroughFreshURLs() throws {
        let clip = try MediaFixtures.mp4(seconds: 6)
        let folder = try makeFolder(["film.mp4": clip])
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try startOrigin(root: folder, signedPaths: ["/film.mp4"])
        let daemon = try startDaemon(origin: server, paths: ["film": "film.mp4"])

        var (status, s) = try daemon.post("/v1/player/open?wait=playing", ["contentId": "film", "resolve": true])
        XCTAssertEqual(status, 200, "\(s)\n\(daemon.log.suffix(3000))")
        XCTAssertEqual(s.state, "playing")
        let before = served(server, "/film.mp4").count
        (status, s) = try daemon.post("/v1/player/seek?wait=playing", ["position": 4, "exact": true])
        XCTAssertEqual(status, 200, "\(s)")
        XCTAssertEqual(s.state, "playing")
        XCTAssertGreaterThanOrEqual(s.position ?? 0, 3.9, "\(s)")
        let requests = server.requests.filter { $0.path == "/film.mp4" }
        let tokens = served(server, "/film.mp4").compactMap(\.query)
        XCTAssertGreaterThan(tokens.count, before, "the seek fetched with a fresh URL: \(requests.map { ($0.query, $0.status) })")
        XCTAssertEqual(Set(tokens).count, tokens.count, "each token served once: \(tokens)")
        XCTAssertTrue(requests.contains { $0.status == 403 }, "a spent URL was refused")
        XCTAssertGreaterThanOrEqual(resolver.posts.count, tokens.count, "a fresh URL for every request served")
    }

    /// A new folder holding copies of `files` under the given names.
    private func makeFolder(_ files: [String: URL]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("resolver-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, file) in files { try FileManager.default.copyItem(at: file, to: folder.appendingPathComponent(name)) }
        return folder
    }
}

extension URLResolverTests {
    /// Without `--url-resolver` a resolve open is refused at once, and playback is untouched.
    func testResolveWithoutResolverIsRefused() throws {
        let daemon = try Daemon()
        self.daemon = daemon
        let (status, s) = try daemon.post("/v1/player/open", ["contentId": "c1", "resolve": true])
        XCTAssertEqual(status, 422, "\(s)")
        XCTAssertEqual((s["error"] as? [String: Any])?["code"] as? String, "resolver_error", "\(s)")
        let queue = try daemon.client.put("/v1/queue", json: ["items": [["contentId": "c1", "resolve": true]]])
        XCTAssertEqual(queue.status, 422, queue.text)
        XCTAssertEqual(try daemon.snapshot().state, "idle")
    }
}

extension URLResolverTests {
    /// (e) An origin fault while a resolved HLS plays: the reconnect asks the resolver for a
    /// fresh URL before the origin is tried again (the old one is spent), and plays on.
    func testAReconnectAsksTheResolverBeforeTheOriginIsTriedAgain() throws {
        let ladder = try HLSFixtures.ladder()
        let master = "/" + ladder.masterPath
        let server = try startOrigin(root: ladder.directory, signedPaths: [master])
        let daemon = try startDaemon(origin: server, paths: ["c1": ladder.masterPath])
        // Segment 2 of every stream fails: past the first frames, so playback is under way.
        for path in ladder.segmentPaths(2) { server.respond(to: path, with: 503) }
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        let (status, s) = try daemon.post("/v1/player/open?wait=playing", ["contentId": "c1", "userId": "u1", "resolve": true])
        XCTAssertEqual(status, 200, "\(s)\n\(daemon.log.suffix(3000))")

        var seen = try collectEvents(ws, timeout: 20) { $0.contains { ["reconnecting", "error"].contains($0["type"] as? String) } }
        let types = seen.compactMap { $0["type"] as? String }
        XCTAssertTrue(types.contains("reconnecting"), "\(types)\n\(daemon.log.suffix(3000))")
        let faultSeen = Date()
        let postsBefore = resolver.posts.count
        let tokensBefore = Set(server.requests.filter { $0.path == master }.compactMap(\.query))
        server.clearFaults()

        seen = try collectEvents(ws, timeout: 20) { $0.contains { ["recovered", "error"].contains($0["type"] as? String) } }
        XCTAssertTrue(seen.contains { $0["type"] as? String == "recovered" }, "\(seen.compactMap { $0["type"] as? String })\n\(daemon.log.suffix(3000))")
        _ = try daemon.waitFor("playing past the failed segment", timeout: 10) { $0.state == "playing" && ($0.position ?? 0) > 3.5 }

        // The resolver was asked again, naming the URL in use, and the origin's first master
        // request after the fault carried the fresh URL: not the spent one, refused first.
        let refreshes = resolver.posts.dropFirst(postsBefore).compactMap(\.json)
        XCTAssertGreaterThanOrEqual(refreshes.count, 1, "the reconnect asked the resolver again")
        XCTAssertTrue(refreshes.allSatisfy { ($0["uri"] as? String)?.hasPrefix(server.baseURL + master + "?token=") == true && $0["contentId"] as? String == "c1" },
                      "\(refreshes)")
        let after = server.requests.filter { $0.path == master && $0.time > faultSeen }
        let first = try XCTUnwrap(after.first, "the restart fetched the master")
        XCTAssertFalse(tokensBefore.contains(first.query ?? ""), "a fresh token, not one used before the fault: \(first.query ?? "")")
        XCTAssertEqual(first.status, 200, "the first master request after the fault was served: \(after.map { ($0.query, $0.status) })")
        let servedAfter = after.filter { $0.status == 200 }.compactMap(\.query)
        XCTAssertEqual(refreshes.count, servedAfter.count, "one resolver answer per master served after the fault: \(servedAfter)")
        XCTAssertEqual(Set(servedAfter).count, servedAfter.count, "each token served once: \(servedAfter)")
        XCTAssertTrue(try daemon.client.get("/metrics").text.contains("marquee_opens_total 1\n"), "no new open was needed")
    }
}
