import Foundation
import XCTest
import ControlAPI
@testable import PlayerCore

final class SourceResolverTests: XCTestCase {
    /// A fresh folder per test; every file the tests use lives under it.
    private var dir: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        dir = FileManager.default.temporaryDirectory
            .appendingPathComponent("marquee-resolver-\(UUID().uuidString)", isDirectory: true)
            .resolvingSymlinksInPath()
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let dir { try? FileManager.default.removeItem(at: dir) }
        try super.tearDownWithError()
    }

    @discardableResult
    private func makeFile(_ relativePath: String) throws -> URL {
        let url = dir.appendingPathComponent(relativePath)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data([0, 0, 0, 0x18]).write(to: url)
        return url
    }

    private func resolve(_ uri: String, roots: [String] = [], kind: SourceKind? = nil, contentId: String? = nil) throws(APIError) -> ResolvedSource {
        var request = OpenRequest(uri: uri)
        request.kind = kind
        request.contentId = contentId
        return try SourceResolver(mediaRoots: roots).resolve(request)
    }

    private func assertFails(_ uri: String, _ code: ErrorCode, roots: [String] = [],
                             file: StaticString = #filePath, line: UInt = #line) {
        do {
            let resolved = try resolve(uri, roots: roots)
            XCTFail("\(uri) should fail with \(code.rawValue), resolved to \(resolved.playbackURI)", file: file, line: line)
        } catch {
            XCTAssertEqual(error.code, code, "\(uri): \(error.message)", file: file, line: line)
        }
    }

    // MARK: Local files

    func testPlainPath() throws {
        let file = try makeFile("clip.mp4")
        let resolved = try resolve(file.path, contentId: "c-9")
        XCTAssertEqual(resolved.playbackURI, URL(fileURLWithPath: file.path).absoluteString)
        XCTAssertTrue(resolved.playbackURI.hasPrefix("file:///"))
        XCTAssertEqual(resolved.info, SourceInfo(uri: resolved.playbackURI, kind: .file, contentId: "c-9"))
        XCTAssertFalse(resolved.isDemo)
    }

    func testPathWithSpacesAndBangIsPercentEncoded() throws {
        let file = try makeFile("my clips/a b ! c.mp4")
        let resolved = try resolve(file.path)
        XCTAssertFalse(resolved.playbackURI.contains(" "), resolved.playbackURI)
        XCTAssertTrue(resolved.playbackURI.hasSuffix("/my%20clips/a%20b%20!%20c.mp4"), resolved.playbackURI)
        XCTAssertEqual(URL(string: resolved.playbackURI)?.path, file.path)
    }

    func testRelativePath() throws {
        let file = try makeFile("sub/clip.mp4")
        let fm = FileManager.default
        let previous = fm.currentDirectoryPath
        XCTAssertTrue(fm.changeCurrentDirectoryPath(dir.path))
        defer { fm.changeCurrentDirectoryPath(previous) }
        let expected = URL(fileURLWithPath: file.path).absoluteString
        XCTAssertEqual(try resolve("sub/clip.mp4").playbackURI, expected)
        XCTAssertEqual(try resolve("./sub/../sub/clip.mp4").playbackURI, expected)
        do {
            _ = try resolve("sub/missing.mp4")
            XCTFail("a missing relative path resolves")
        } catch {
            XCTAssertEqual(error.code, .notFound)
        }
    }

    func testFileURI() throws {
        let file = try makeFile("with space/clip 1.mp4")
        let encoded = URL(fileURLWithPath: file.path).absoluteString
        XCTAssertTrue(encoded.contains("%20"))
        let resolved = try resolve(encoded)
        XCTAssertEqual(resolved.playbackURI, encoded)
        XCTAssertEqual(resolved.info.kind, .file)
        XCTAssertEqual(try resolve("FILE://" + encoded.dropFirst("file://".count)).playbackURI, encoded, "schemes are case-insensitive")
        assertFails(encoded.replacingOccurrences(of: "clip%201", with: "clip%202"), .notFound)
    }

    func testMissingFileIsNotFound() {
        assertFails(dir.appendingPathComponent("nope.mp4").path, .notFound)
        assertFails("file://" + dir.appendingPathComponent("nope.mp4").path, .notFound)
    }

    func testDirectoryIsInvalidArgument() throws {
        try makeFile("folder/inner.mp4")
        assertFails(dir.appendingPathComponent("folder").path, .invalidArgument)
        assertFails(dir.path, .invalidArgument)
        assertFails(URL(fileURLWithPath: dir.path).absoluteString, .invalidArgument)
    }

    func testPipelineTextIsJustAMissingFileName() throws {
        let target = dir.appendingPathComponent("y")
        try makeFile("x.mp4")
        assertFails("\(dir.path)/x.mp4 ! filesink location=\(target.path)", .notFound)
        assertFails("x.mp4 ! filesink location=\(target.path)", .notFound)
        assertFails("filesrc location=/etc/passwd ! fakesink", .notFound)
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.path), "nothing may be created")
    }

    // MARK: Remote and other schemes

    func testUnsupportedSchemes() {
        for uri in ["ftp://host/a.mp4", "javascript:alert(1)", "JavaScript:alert(1)",
                    "smb://server/share/a.mp4", "data:video/mp4;base64,AAAA",
                    "testbin://video", "fd://0", "appsrc://", "gopher://x", "mailto:a@b.c", "demo://other"] {
            assertFails(uri, .unsupportedURI)
        }
    }

    func testLiveNetworkSources() throws {
        for uri in ["udp://239.1.1.1:5000", "udp://127.0.0.1:1234", "rtsp://camera.local/stream"] {
            let live = try resolve(uri)
            XCTAssertEqual(live.info.kind, .live, uri)
            XCTAssertTrue(live.info.live, uri)
            XCTAssertEqual(live.playbackURI, uri)
        }
        // A UDP source needs a port; a URI needs a host.
        assertFails("udp://239.1.1.1", .invalidArgument)
        assertFails("rtsp:///stream", .invalidArgument)
    }

    func testHTTP() throws {
        let file = try resolve("http://media.example/a/b.mp4", contentId: "c")
        XCTAssertEqual(file.info, SourceInfo(uri: "http://media.example/a/b.mp4", kind: .file, contentId: "c"))
        XCTAssertEqual(file.playbackURI, "http://media.example/a/b.mp4")
        XCTAssertFalse(file.isDemo)

        XCTAssertEqual(try resolve("https://cdn.example/live/master.m3u8").info.kind, .hls)
        XCTAssertEqual(try resolve("https://cdn.example/live/MASTER.M3U8?token=a/b").info.kind, .hls)
        XCTAssertEqual(try resolve("HTTPS://cdn.example/x.m3u8").info.kind, .hls)
        XCTAssertEqual(try resolve("https://cdn.example/m3u8/video.mp4").info.kind, .file)
        XCTAssertEqual(try resolve("https://cdn.example/playlist", kind: .hls).info.kind, .hls, "the kind hint")
        assertFails("http:///a.mp4", .invalidArgument)
        assertFails("https:", .invalidArgument)
    }

    func testHTTPIgnoresMediaRoots() throws {
        XCTAssertEqual(try resolve("https://cdn.example/a.m3u8", roots: [dir.path]).info.kind, .hls)
    }

    func testDemoVariants() throws {
        for uri in ["demo", "demo:", "demo://", " demo:// "] {
            let resolved = try resolve(uri, contentId: "d")
            XCTAssertTrue(resolved.isDemo, uri)
            XCTAssertEqual(resolved.info, SourceInfo(uri: "demo://", kind: .live, contentId: "d"), uri)
            XCTAssertEqual(resolved.playbackURI, SourceResolver.demoPlaybackURI, uri)
            XCTAssertTrue(resolved.playbackURI.hasPrefix("testbin://"), uri)
        }
    }

    func testSchemeParsing() {
        XCTAssertEqual(SourceResolver.scheme(of: "HTTP://a"), "http")
        XCTAssertEqual(SourceResolver.scheme(of: "svn+ssh://a"), "svn+ssh")
        XCTAssertNil(SourceResolver.scheme(of: "/media/a:b.mp4"))
        XCTAssertNil(SourceResolver.scheme(of: "a b:c"))
        XCTAssertNil(SourceResolver.scheme(of: "1http://a"))
        XCTAssertNil(SourceResolver.scheme(of: ":x"))
        XCTAssertNil(SourceResolver.scheme(of: "clip.mp4"))
    }

    // MARK: Media roots

    func testMediaRoots() throws {
        let root = dir.appendingPathComponent("root")
        let inside = try makeFile("root/shows/a.mp4")
        let outside = try makeFile("elsewhere/b.mp4")
        let sibling = try makeFile("rootother/c.mp4")

        XCTAssertEqual(try resolve(inside.path, roots: [root.path]).info.kind, .file)
        XCTAssertEqual(try resolve(URL(fileURLWithPath: inside.path).absoluteString, roots: [root.path]).info.kind, .file)
        XCTAssertEqual(try resolve(inside.path, roots: [root.path + "/"]).info.kind, .file, "a trailing slash on the root")
        XCTAssertEqual(try resolve(inside.path, roots: [outside.deletingLastPathComponent().path, root.path]).info.kind, .file,
                       "any of several roots")
        assertFails(outside.path, .forbidden, roots: [root.path])
        assertFails(sibling.path, .forbidden, roots: [root.path])
        assertFails("\(root.path)/../elsewhere/b.mp4", .forbidden, roots: [root.path])
        assertFails(URL(fileURLWithPath: outside.path).absoluteString, .forbidden, roots: [root.path])
        // Existence is checked first: a missing file is still not_found.
        assertFails(root.appendingPathComponent("missing.mp4").path, .notFound, roots: [root.path])
    }

    func testSymlinkEscapingTheRootIsForbidden() throws {
        let root = dir.appendingPathComponent("root")
        let outside = try makeFile("elsewhere/secret.mp4")
        try makeFile("root/ok.mp4")
        let fm = FileManager.default
        let fileLink = root.appendingPathComponent("link.mp4")
        try fm.createSymbolicLink(at: fileLink, withDestinationURL: outside)
        let dirLink = root.appendingPathComponent("escape")
        try fm.createSymbolicLink(at: dirLink, withDestinationURL: outside.deletingLastPathComponent())

        assertFails(fileLink.path, .forbidden, roots: [root.path])
        assertFails(dirLink.appendingPathComponent("secret.mp4").path, .forbidden, roots: [root.path])
        // Without roots the link is an ordinary file.
        XCTAssertEqual(try resolve(fileLink.path).info.kind, .file)
    }

    func testSymlinkIntoTheRootAndSymlinkedRootAreAllowed() throws {
        let root = dir.appendingPathComponent("root")
        let inside = try makeFile("root/a.mp4")
        let fm = FileManager.default
        let linkOutside = dir.appendingPathComponent("shortcut.mp4")
        try fm.createSymbolicLink(at: linkOutside, withDestinationURL: inside)
        XCTAssertEqual(try resolve(linkOutside.path, roots: [root.path]).info.kind, .file)

        let rootLink = dir.appendingPathComponent("root-link")
        try fm.createSymbolicLink(at: rootLink, withDestinationURL: root)
        XCTAssertEqual(try resolve(inside.path, roots: [rootLink.path]).info.kind, .file)
        XCTAssertEqual(try resolve(rootLink.appendingPathComponent("a.mp4").path, roots: [rootLink.path]).info.kind, .file)
    }
}
