import Foundation
import OfflineLibrary
import TestMedia
import XCTest

/// The recording origin's download faults where the download tests leave them unproven:
/// a cut on every response, and request numbers (with their byte counts) across
/// `clearRequests()`.
final class RecordingHTTPServerFaultTests: XCTestCase {
    func testEveryResponseCutAndNumbersGoOnAfterAClear() throws {
        let fixtures = try DownloadFixtures(["small.bin": 300_000])
        defer { fixtures.remove() }
        let server = try RecordingHTTPServer(root: fixtures.folder)
        defer { server.stop() }
        let harness = DownloadHarness()
        defer { harness.close() }
        server.dropConnection(path: "small.bin", afterBytes: 100_000, count: nil)

        let target = try PlainFileDestination(url: fixtures.folder.appendingPathComponent("stored.bin"))
        let probe = DownloadProbe()
        harness.start("\(server.baseURL)/small.bin", into: target, probe: probe)
        XCTAssertTrue(probe.waitForEnd())
        XCTAssertEqual(probe.lastEvent, .finished, "the last 100000 bytes fit under the cut")
        let requests = server.requests
        XCTAssertEqual(requests.map(\.number), [1, 2, 3])
        XCTAssertEqual(requests.map(\.bytesSent), [100_000, 100_000, 100_000])
        XCTAssertEqual(requests.map(\.status), [200, 206, 206])
        XCTAssertEqual(server.bytesSent(path: "/small.bin"), 300_000)

        server.clearRequests()
        server.clearFaults()
        let again = DownloadProbe()
        harness.start("\(server.baseURL)/small.bin",
                      into: try PlainFileDestination(url: fixtures.folder.appendingPathComponent("again.bin")), probe: again)
        XCTAssertTrue(again.waitForEnd())
        XCTAssertEqual(server.requests.map(\.number), [4])
        XCTAssertEqual(server.requests.map(\.bytesSent), [300_000])
    }
}
