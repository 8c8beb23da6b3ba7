import Foundation
import Timeshift
import XCTest

/// `RingServer` over real loopback HTTP: its own thread and GLib context serve; the client
/// is a plain socket. Plain XCTest: the server needs no GLib loop of the caller's.
final class RingServerTests: XCTestCase {
    private let playlist = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:0\n"
        + "#EXTINF:1.000000,\nseg00000000.ts\n"
    private let segmentBytes = Data((0..<1000).map { UInt8($0 % 251) })
    private var root: URL!

    override func setUp() {
        super.setUp()
        root = temporaryFolder("marquee-ringserver-test")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: root)
        super.tearDown()
    }

    /// A ring folder holding the listed segment and a file the ring does not list, and a
    /// file next to the ring folder.
    private func makeFolder() throws -> URL {
        let folder = root.appendingPathComponent("ring")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try segmentBytes.write(to: folder.appendingPathComponent("seg00000000.ts"))
        try Data("not listed".utf8).write(to: folder.appendingPathComponent("seg00000001.ts"))
        try Data("outside".utf8).write(to: root.appendingPathComponent("secret.ts"))
        return folder
    }

    private func publication(_ folder: URL, ready: Bool, files: Set<String> = ["seg00000000.ts"], start: Double = 0) -> RingServer.Publication {
        RingServer.Publication(folder: folder, playlist: ready ? playlist : nil, files: files, start: start)
    }

    private func split(_ playlistURL: String, file: StaticString = #filePath, line: UInt = #line) throws -> (port: Int, path: String) {
        let components = try XCTUnwrap(URLComponents(string: playlistURL), file: file, line: line)
        XCTAssertEqual(components.host, "127.0.0.1", file: file, line: line)
        return (try XCTUnwrap(components.port, file: file, line: line), components.path)
    }

    func testServesThePlaylistAndListedFilesOnly() throws {
        let folder = try makeFolder()
        let server = try RingServer()
        let (token, playlistURL) = server.register(publication(folder, ready: true, start: 7))
        let (port, path) = try split(playlistURL)
        XCTAssertEqual(path, "/ring/\(token)/index.m3u8")
        XCTAssertNil(server.origin(of: token), "no origin before the player reads the playlist")

        let index = try httpGet(port: port, path: path)
        XCTAssertEqual(index.status, 200)
        XCTAssertEqual(index.text, playlist)
        XCTAssertEqual(index.headers["content-type"], "application/vnd.apple.mpegurl")
        XCTAssertEqual(index.headers["cache-control"], "no-cache")
        XCTAssertEqual(server.origin(of: token), 7, "the ring's start when first served")
        server.publish(publication(folder, ready: true, start: 9), for: token)
        _ = try httpGet(port: port, path: path)
        XCTAssertEqual(server.origin(of: token), 7, "the origin stays where the player started")

        let segment = try httpGet(port: port, path: "/ring/\(token)/seg00000000.ts")
        XCTAssertEqual(segment.status, 200)
        XCTAssertEqual(segment.body, segmentBytes)
        XCTAssertEqual(segment.headers["content-type"], "video/mp2t")

        // In the folder but not listed by the ring (dropped, or still being written).
        let unlisted = try httpGet(port: port, path: "/ring/\(token)/seg00000001.ts")
        XCTAssertEqual(unlisted.status, 404)
        XCTAssertNotEqual(unlisted.text, "not listed")
        // Listed, but gone from disk.
        server.publish(publication(folder, ready: true, files: ["seg00000000.ts", "seg00000002.ts"]), for: token)
        XCTAssertEqual(try httpGet(port: port, path: "/ring/\(token)/seg00000002.ts").status, 404)
        // Once dropped from the ring, a file is no longer served even though it is on disk.
        server.publish(publication(folder, ready: true, files: []), for: token)
        XCTAssertEqual(try httpGet(port: port, path: "/ring/\(token)/seg00000000.ts").status, 404)
    }

    func testUnknownTokensAndOtherPathsAre404() throws {
        let folder = try makeFolder()
        let server = try RingServer()
        let (token, playlistURL) = server.register(publication(folder, ready: true))
        let port = try split(playlistURL).port
        let otherToken = String(repeating: "0", count: 32)
        XCTAssertNotEqual(token, otherToken)
        for path in ["/ring/\(otherToken)/index.m3u8", "/ring/\(otherToken)/seg00000000.ts",
                     "/ring/\(token)", "/ring/\(token)/", "/ring/\(token)/index.m3u8/x", "/", "/index.m3u8",
                     "/other/\(token)/index.m3u8"] {
            XCTAssertEqual(try httpGet(port: port, path: path).status, 404, path)
        }
        XCTAssertNil(server.origin(of: token), "nothing was served")

        // A second ring gets its own token; unregistering one leaves the other.
        let second = server.register(publication(folder, ready: true))
        XCTAssertNotEqual(second.token, token)
        server.unregister(token)
        XCTAssertEqual(try httpGet(port: port, path: "/ring/\(token)/index.m3u8").status, 404)
        XCTAssertEqual(try httpGet(port: port, path: "/ring/\(second.token)/index.m3u8").status, 200)
    }

    func testDotDotPathsAre404() throws {
        let folder = try makeFolder()
        let server = try RingServer()
        // Even a ring that claims such names gets nothing outside its folder.
        let (token, playlistURL) = server.register(publication(folder, ready: true, files: ["..", "../secret.ts", "seg00000000.ts"]))
        let port = try split(playlistURL).port
        for path in ["/ring/\(token)/../secret.ts", "/ring/\(token)/..", "/ring/\(token)/%2e%2e",
                     "/ring/\(token)/../\(token)/seg00000001.ts", "/ring/\(token)/./../../secret.ts",
                     "/ring/\(token)/seg00000000.ts/../../secret.ts"] {
            let response = try httpGet(port: port, path: path)
            XCTAssertEqual(response.status, 404, path)
            XCTAssertNotEqual(response.text, "outside", path)
            XCTAssertNotEqual(response.text, "not listed", path)
        }
        // An encoded slash: libsoup itself answers 400 before the handler; either way, refused.
        for path in ["/ring/\(token)/..%2Fsecret.ts", "/ring/\(token)/%2E%2E%2Fsecret.ts"] {
            let response = try httpGet(port: port, path: path)
            XCTAssertTrue([400, 404].contains(response.status), "\(path): \(response.status)")
            XCTAssertNotEqual(response.text, "outside", path)
        }
    }

    func testAPlaylistRequestWaitsUntilTheRingIsReady() async throws {
        let folder = try makeFolder()
        let server = try RingServer()
        let (token, playlistURL) = server.register(publication(folder, ready: false))
        let (port, path) = try split(playlistURL)

        let answered = Flag()
        let request = Task.detached { () throws -> HTTPResponse in
            defer { answered.raise() }
            return try httpGet(port: port, path: path)
        }
        // Held, not answered (with a 503 or an empty playlist) ...
        try await Task.sleep(for: .milliseconds(400))
        XCTAssertFalse(answered.value, "answered while the ring was not ready")
        // ... also when the ring changes without becoming ready.
        server.publish(publication(folder, ready: false, files: []), for: token)
        try await Task.sleep(for: .milliseconds(300))
        XCTAssertFalse(answered.value, "answered on a change that left the ring not ready")

        let changed = Date()
        server.publish(publication(folder, ready: true, start: 3), for: token)
        let response = try await request.value
        XCTAssertLessThan(Date().timeIntervalSince(changed), 2, "not answered as soon as the ring was ready")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, playlist)
        XCTAssertEqual(server.origin(of: token), 3)
    }

    func testAWaitingRequestGets503WhenTheRingIsUnregistered() async throws {
        let folder = try makeFolder()
        let server = try RingServer()
        let (token, playlistURL) = server.register(publication(folder, ready: false))
        let (port, path) = try split(playlistURL)
        let request = Task.detached { try httpGet(port: port, path: path) }
        try await Task.sleep(for: .milliseconds(300))
        server.unregister(token)
        let response = try await request.value
        XCTAssertEqual(response.status, 503)
    }

    /// Every answer closes its connection: keep-alive connections that the client closed
    /// stayed open on the server's side (one descriptor per timeshift session, for ever).
    func testConnectionsEndWithTheirRequestsEvenWhenTheClientAsksForKeepAlive() throws {
        let folder = try makeFolder()
        let server = try RingServer()
        let (_, playlistURL) = server.register(publication(folder, ready: true))
        let (port, path) = try split(playlistURL)
        _ = try httpGet(port: port, path: path)  // the server's thread and its listener are up
        let before = openDescriptors()
        for _ in 0..<5 {
            let response = try httpGet(port: port, path: path, keepAlive: true)
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.headers["connection"]?.lowercased(), "close")
        }
        let deadline = Date().addingTimeInterval(2)
        while openDescriptors() > before && Date() < deadline { usleep(20_000) }
        XCTAssertLessThanOrEqual(openDescriptors(), before, "connections left open on the server's side")
    }

    private func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }
}
