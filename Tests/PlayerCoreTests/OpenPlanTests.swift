import ControlAPI
import Foundation
import XCTest
@testable import PlayerCore

/// The open's plan: decided before anything changes, so every refusal leaves what plays
/// untouched.
final class OpenPlanTests: XCTestCase {
    private let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("marquee-plan-\(UUID().uuidString)")
    private var file: URL { folder.appendingPathComponent("clip.mp4") }

    override func setUpWithError() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("not really media".utf8).write(to: file)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: folder) }

    private func plan(_ request: OpenRequest, timeshiftFolder: URL? = nil, defaultWindow: Double? = nil) throws -> OpenPlan {
        try OpenPlan(request, resolver: SourceResolver(), timeshiftFolder: timeshiftFolder, defaultTimeshiftWindow: defaultWindow)
    }

    private func assertRefused(_ request: OpenRequest, timeshiftFolder: URL? = nil, _ code: ErrorCode,
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try plan(request, timeshiftFolder: timeshiftFolder), file: file, line: line) {
            XCTAssertEqual(($0 as? APIError)?.code, code, "\($0)", file: file, line: line)
        }
    }

    /// A library file copy read in-process (`marquee-copy://`) is a local file: never live, no
    /// HLS demuxer hook, no master fetch; the snapshot keeps the origin's URI and says offline.
    /// An HLS copy on the loopback server is not.
    func testALibraryFileCopyPlaysAsALocalFile() throws {
        var request = OpenRequest(uri: "http://origin.example/clip.mp4")
        request.localCopy = LocalCopy(playbackURI: "marquee-copy://0123abcd", kind: .file)
        let p = try plan(request)
        XCTAssertTrue(p.source.isLocalFile)
        XCTAssertTrue(p.source.isLocalCopy)
        XCTAssertFalse(p.mayBeLive)
        XCTAssertFalse(p.mayUseHLSDemuxer)
        XCTAssertFalse(p.fetchesMaster)
        XCTAssertEqual(p.source.info.uri, "http://origin.example/clip.mp4")
        XCTAssertEqual(p.source.info.offline, true)

        request.localCopy = LocalCopy(playbackURI: "http://127.0.0.1:1234/lib/abcd/index.m3u8", kind: .hls)
        let hls = try plan(request)
        XCTAssertFalse(hls.source.isLocalFile)
        XCTAssertTrue(hls.fetchesMaster)
    }

    /// The private scheme is never accepted from a request.
    func testTheCopySchemeIsNotASourceScheme() {
        assertRefused(OpenRequest(uri: "marquee-copy://0123abcd"), .unsupportedURI)
    }

    func testAnHTTPSourceIsReadByMarqueeAndMayUseHLSDemuxer() throws {
        var request = OpenRequest(uri: "http://origin.example/live/master.m3u8", start: 3, autoplay: false)
        request.userId = "u1"
        request.originalUrl = "http://cdn.example/x"
        request.watched = 12
        let p = try plan(request)
        XCTAssertTrue(p.fetchesMaster)
        XCTAssertTrue(p.mayUseHLSDemuxer)
        XCTAssertTrue(p.mayBeLive)
        XCTAssertFalse(p.autoplay)
        XCTAssertEqual(p.start, 3)
        XCTAssertEqual(p.watched, 12)
        XCTAssertNil(p.timeshiftWindow)
        XCTAssertNil(p.proxiedHeaders)
        XCTAssertEqual(p.source.info.userId, "u1")
        XCTAssertEqual(p.source.info.originalUrl, "http://cdn.example/x")
    }

    func testALocalFileIsNeitherLiveNorFetched() throws {
        let p = try plan(OpenRequest(uri: file.path))
        XCTAssertTrue(p.source.isLocalFile)
        XCTAssertFalse(p.mayBeLive)
        XCTAssertFalse(p.fetchesMaster)
        XCTAssertFalse(p.mayUseHLSDemuxer)
        XCTAssertTrue(p.autoplay)
    }

    func testRequestHeadersGoThroughTheProxyAndOnlyForHTTP() throws {
        var request = OpenRequest(uri: "https://origin.example/a.m3u8")
        request.headers = ["X-Token": "t"]
        request.keyHeaders = ["X-Key": "k"]
        let p = try plan(request)
        XCTAssertEqual(p.proxiedHeaders?.headers, ["X-Token": "t"])
        XCTAssertEqual(p.proxiedHeaders?.keyHeaders, ["X-Key": "k"])

        request.uri = file.path
        assertRefused(request, .invalidArgument)
        request.uri = "demo://"
        assertRefused(request, .invalidArgument)
    }

    func testTimeshiftIsCheckedBeforeAnythingChanges() throws {
        var request = OpenRequest(uri: file.path)
        request.timeshift = TimeshiftRequest(window: 60)
        assertRefused(request, timeshiftFolder: folder, .invalidArgument)
        request.uri = "demo://"
        assertRefused(request, timeshiftFolder: nil, .invalidArgument)
        let p = try plan(request, timeshiftFolder: folder)
        XCTAssertEqual(p.timeshiftWindow, 60)
        XCTAssertTrue(p.mayUseHLSDemuxer, "the ring plays through hlsdemux2")
        XCTAssertFalse(p.fetchesMaster, "the ring is Marquee's own")
    }

    func testALiveSourceTakesTheDefaultWindow() throws {
        let live = try plan(OpenRequest(uri: "udp://239.0.0.1:5000"), timeshiftFolder: folder, defaultWindow: 30)
        XCTAssertEqual(live.timeshiftWindow, 30)
        let vod = try plan(OpenRequest(uri: "http://origin.example/a.mp4"), timeshiftFolder: folder, defaultWindow: 30)
        XCTAssertNil(vod.timeshiftWindow, "only live kinds are recorded by default")
    }
}
