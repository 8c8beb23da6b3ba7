import Foundation
import OfflineLibrary
import TestMedia
import XCTest

/// How fast the downloader takes a file over loopback, into a plain file (fsync every MiB)
/// and into nothing, next to curl fetching the same URL from the same origin in the same run. Printed, not asserted: the figures depend on the
/// machine and its load; the test only checks that the file arrived whole.
final class DownloadThroughputTests: XCTestCase {
    func testLoopbackThroughputBesideCurl() throws {
        let size = 20_000_000
        let fixtures = try DownloadFixtures(["20mb.bin": size])
        defer { fixtures.remove() }
        let server = try RecordingHTTPServer(root: fixtures.folder)
        defer { server.stop() }
        let harness = DownloadHarness()
        defer { harness.close() }
        let url = "\(server.baseURL)/20mb.bin"

        let target = try PlainFileDestination(url: fixtures.folder.appendingPathComponent("stored.bin"))
        let probe = DownloadProbe()
        let started = Date()
        harness.start(url, into: target, probe: probe, options: FileDownloadOptions())
        XCTAssertTrue(probe.waitForEnd())
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(probe.lastEvent, .finished)
        XCTAssertTrue(try Data(contentsOf: target.url) == fixtures.contents("20mb.bin"))
        print("FileDownload, plain destination (fsync every MiB): \(size) bytes in \(String(format: "%.3f", elapsed)) s = "
              + "\(String(format: "%.1f", Double(size) / elapsed / 1e6)) MB/s, \(target.commits) commits")

        // The same without the disk: what the downloader itself costs.
        let discard = DiscardingDestination()
        let discarded = DownloadProbe()
        let discardStarted = Date()
        harness.start(url, into: discard, probe: discarded, options: FileDownloadOptions())
        XCTAssertTrue(discarded.waitForEnd())
        let discardElapsed = Date().timeIntervalSince(discardStarted)
        XCTAssertEqual(discard.storedBytes, Int64(size))
        print("FileDownload, discarding destination: \(size) bytes in \(String(format: "%.3f", discardElapsed)) s = "
              + "\(String(format: "%.1f", Double(size) / discardElapsed / 1e6)) MB/s")

        guard findExecutable("curl") != nil else {
            print("curl: not installed, no comparison")
            return
        }
        let curl = try runProcess("curl", ["-s", "-o", "/dev/null", "-w", "%{size_download} %{time_total}", url], timeout: 60)
        XCTAssertEqual(curl.status, 0, curl.stderr)
        let fields = curl.stdout.split(separator: " ")
        if fields.count == 2, let bytes = Double(fields[0]), let seconds = Double(fields[1].replacingOccurrences(of: ",", with: ".")) {
            print("curl -o /dev/null: \(Int(bytes)) bytes in \(String(format: "%.3f", seconds)) s = "
                  + "\(String(format: "%.1f", bytes / seconds / 1e6)) MB/s")
        } else {
            print("curl: \(curl.stdout)")
        }
    }
}

/// Counts the bytes and keeps none: the downloader's speed without the disk's.
private final class DiscardingDestination: DownloadDestination {
    private(set) var storedBytes: Int64 = 0
    private(set) var pendingBytes: Int64 = 0
    func append(_ bytes: UnsafeRawBufferPointer) throws { pendingBytes += Int64(bytes.count) }
    func commit() throws {
        storedBytes += pendingBytes
        pendingBytes = 0
    }
    func restart() throws {
        storedBytes = 0
        pendingBytes = 0
    }
}
