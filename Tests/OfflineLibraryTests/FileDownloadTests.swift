import Foundation
import OfflineLibrary
import TestMedia
import XCTest

/// `FileDownload` against the recording origin: whole files, resumes, faults and their
/// retries, the stall watchdog, the rate limiter. Each download runs on a `ServiceThread`
/// (`DownloadHarness`) into a plain file with an offset sidecar (`PlainFileDestination`).
final class FileDownloadTests: XCTestCase {
    nonisolated(unsafe) private static var fixtures: DownloadFixtures!
    private var server: RecordingHTTPServer!
    private var harness: DownloadHarness!
    private var folder: URL!

    override class func setUp() {
        super.setUp()
        fixtures = try! DownloadFixtures(["6mb.bin": 6_000_000, "12mb.bin": 12_000_000])
    }

    override class func tearDown() {
        fixtures.remove()
        super.tearDown()
    }

    override func setUpWithError() throws {
        server = try RecordingHTTPServer(root: Self.fixtures.folder)
        harness = DownloadHarness()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-stored-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        harness.close()
        server.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    private func destination(_ name: String = "item.bin") throws -> PlainFileDestination {
        try PlainFileDestination(url: folder.appendingPathComponent(name))
    }

    private func url(_ name: String) -> String { "\(server.baseURL)/\(name)" }

    private func assertStoredEqualsSource(_ destination: PlainFileDestination, _ name: String,
                                          file: StaticString = #filePath, line: UInt = #line) throws {
        let stored = try Data(contentsOf: destination.url)
        let source = try Self.fixtures.contents(name)
        XCTAssertEqual(stored.count, source.count, "stored size", file: file, line: line)
        XCTAssertTrue(stored == source, "the stored bytes differ from the source", file: file, line: line)
        XCTAssertEqual(destination.storedBytes, Int64(source.count), file: file, line: line)
    }

    // MARK: Whole files

    func testDownloadsTheWholeFileCommittingAsItGoes() throws {
        let size: Int64 = 12_000_000
        let target = try destination()
        let probe = DownloadProbe()
        harness.start(url("12mb.bin"), into: target, probe: probe, headers: ["X-Item": "42"])
        XCTAssertTrue(probe.waitForEnd(), "the download never ended")

        XCTAssertEqual(probe.lastEvent, .finished)
        XCTAssertEqual(probe.events.first, .total(size))
        let stored = probe.events.compactMap { if case let .stored(bytes) = $0 { return bytes } else { return nil } }
        XCTAssertEqual(stored, stored.sorted(), "progress only grows")
        XCTAssertEqual(stored.last, size)
        // A commit at least every MiB (and every second), so a crash loses at most that.
        XCTAssertGreaterThanOrEqual(stored.count, 11)
        for (previous, next) in zip([0] + stored, stored) { XCTAssertLessThanOrEqual(next - previous, (1 << 20) + (64 << 10)) }
        try assertStoredEqualsSource(target, "12mb.bin")

        let requests = server.requests
        XCTAssertEqual(requests.count, 1)
        XCTAssertNil(requests.first?.headers["range"], "a fresh download asks for the whole file")
        XCTAssertEqual(requests.first?.headers["user-agent"], "marquee")
        XCTAssertEqual(requests.first?.headers["accept-encoding"], "identity")
        XCTAssertEqual(requests.first?.headers["x-item"], "42", "the item's headers go with it")
        XCTAssertEqual(harness.lastDownload.state, .finished)
        XCTAssertEqual(harness.lastDownload.received, size)
    }

    // MARK: Resumes

    func testACancelledDownloadResumesWithRangeFromWhatIsStored() throws {
        let size = 12_000_000
        server.throttle(bytesPerSecond: 24_000_000)  // the cancel lands mid-body, little in flight
        let first = try destination()
        let probe = DownloadProbe()
        let cancelledAt = LockedBox<Int64?>(nil)
        probe.onStored = { download, bytes in
            guard bytes >= 4_000_000, cancelledAt.value == nil else { return }
            download.cancel()  // a pause, from inside the owner's progress call
            cancelledAt.value = download.storedBytes
            probe.markEnded()
        }
        harness.start(url("12mb.bin"), into: first, probe: probe)
        XCTAssertTrue(probe.waitForEnd())
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(harness.lastDownload.state, .cancelled)
        guard case .stored = probe.lastEvent else { return XCTFail("the delegate heard more after cancel: \(probe.events)") }
        let stored = try XCTUnwrap(harness.onThread { cancelledAt.value })
        XCTAssertLessThan(stored, Int64(size))

        // As after a restart of the daemon: the destination is opened again from its files.
        server.throttle(bytesPerSecond: nil)
        let reopened = try destination()
        XCTAssertEqual(reopened.storedBytes, stored, "the cancel committed what it had received")
        let resumed = DownloadProbe()
        harness.start(url("12mb.bin"), into: reopened, probe: resumed)
        XCTAssertTrue(resumed.waitForEnd())
        XCTAssertEqual(resumed.lastEvent, .finished)
        try assertStoredEqualsSource(reopened, "12mb.bin")

        let requests = server.requests
        XCTAssertEqual(requests.count, 2)
        XCTAssertEqual(requests.last?.headers["range"], "bytes=\(stored)-")
        XCTAssertEqual(requests.last?.status, 206)
        XCTAssertEqual(harness.lastDownload.received, Int64(size) - stored, "the resume fetched only the rest")
        let sent = server.bytesSent(path: "/12mb.bin")
        print("resume after a cancel at \(stored) bytes: \(sent) bytes sent in all for a file of \(size) "
              + "(\(String(format: "%.3f", Double(sent) / Double(size)))x)")
        XCTAssertLessThan(Double(sent), 1.2 * Double(size))
    }

    func testAConnectionDroppedMidBodyIsRetriedFromTheStoredOffset() throws {
        // Cut twice, with bytes in between: each retry waits the first delay again.
        server.dropConnection(path: "/6mb.bin", afterBytes: 2_000_000, count: 2)
        let target = try destination()
        let probe = DownloadProbe()
        harness.start(url("6mb.bin"), into: target, probe: probe)
        XCTAssertTrue(probe.waitForEnd())

        XCTAssertEqual(probe.lastEvent, .finished)
        try assertStoredEqualsSource(target, "6mb.bin")
        let requests = server.requests
        XCTAssertEqual(requests.map(\.headers["range"]), [nil, "bytes=2000000-", "bytes=4000000-"])
        XCTAssertEqual(requests.map(\.bytesSent), [2_000_000, 2_000_000, 2_000_000])
        XCTAssertEqual(probe.retries.map(\.failure.code), ["network", "network"])
        XCTAssertEqual(probe.retries.map(\.delay), [.milliseconds(20), .milliseconds(20)],
                       "bytes arrived between the faults: the backoff starts again")
    }

    func testABodyCutShortWithoutAnErrorIsCaughtByItsLength() throws {
        // With `Connection: close` libsoup reads to the end of the connection and takes a
        // short body for a whole one; the download's own count finds it.
        server.dropConnection(path: "/6mb.bin", afterBytes: 2_000_000, count: 1)
        let target = try destination()
        let probe = DownloadProbe()
        harness.start(url("6mb.bin"), into: target, probe: probe, headers: ["Connection": "close"])
        XCTAssertTrue(probe.waitForEnd())

        XCTAssertEqual(probe.lastEvent, .finished)
        XCTAssertEqual(probe.retries.map(\.failure),
                       [DownloadFailure(code: "network", message: "the body ended after 2000000 of 6000000 bytes")])
        XCTAssertEqual(server.requests.map(\.headers["range"]), [nil, "bytes=2000000-"])
        try assertStoredEqualsSource(target, "6mb.bin")
    }

    func testAnOriginWithoutRangeSupportStartsTheFileAgain() throws {
        // Bytes stored before (wrong ones: were they kept, the result would differ).
        let target = try destination()
        try Data(repeating: 0xAB, count: 2_000_000).withUnsafeBytes { try target.append($0) }
        try target.commit()
        server.ignoreRange(true)
        let probe = DownloadProbe()
        harness.start(url("6mb.bin"), into: target, probe: probe)
        XCTAssertTrue(probe.waitForEnd())

        XCTAssertEqual(probe.lastEvent, .finished)
        XCTAssertEqual(target.restarts, 1)
        try assertStoredEqualsSource(target, "6mb.bin")
        let request = try XCTUnwrap(server.requests.last)
        XCTAssertEqual(server.requests.count, 1)
        XCTAssertEqual(request.headers["range"], "bytes=2000000-")
        XCTAssertEqual(request.status, 200)
        XCTAssertEqual(request.bytesSent, 6_000_000)
        XCTAssertEqual(probe.events.first, .total(6_000_000))
    }

    func testAFileThatShrankAtTheOriginStartsAgain() throws {
        let target = try destination()
        try Data(repeating: 0xCD, count: 7_000_000).withUnsafeBytes { try target.append($0) }
        try target.commit()
        let probe = DownloadProbe()
        harness.start(url("6mb.bin"), into: target, probe: probe)
        XCTAssertTrue(probe.waitForEnd())

        XCTAssertEqual(probe.lastEvent, .finished)
        XCTAssertEqual(server.requests.map(\.status), [416, 200])
        XCTAssertEqual(server.requests.map(\.headers["range"]), ["bytes=7000000-", nil])
        XCTAssertEqual(target.restarts, 1)
        try assertStoredEqualsSource(target, "6mb.bin")
    }

    func testAResumeFromTheEndIsComplete() throws {
        let source = try Self.fixtures.contents("6mb.bin")
        let target = try destination()
        try source.withUnsafeBytes { try target.append($0) }
        try target.commit()
        let probe = DownloadProbe()
        harness.start(url("6mb.bin"), into: target, probe: probe)
        XCTAssertTrue(probe.waitForEnd())

        XCTAssertEqual(probe.events, [.total(6_000_000), .finished], "the 416's Content-Range names the total")
        XCTAssertEqual(server.requests.map(\.status), [416])
        XCTAssertEqual(server.requests.first?.headers["range"], "bytes=6000000-")
        XCTAssertEqual(harness.lastDownload.received, 0)
        try assertStoredEqualsSource(target, "6mb.bin")
    }

    // MARK: Faults

    func testAnOriginAnswering503IsAskedAgainWithBackoff() throws {
        server.failNext(path: "/6mb.bin", count: 3, status: 503)
        let target = try destination()
        let probe = DownloadProbe()
        harness.start(url("6mb.bin"), into: target, probe: probe)
        XCTAssertTrue(probe.waitForEnd())

        XCTAssertEqual(probe.lastEvent, .finished)
        XCTAssertEqual(server.requests.map(\.status), [503, 503, 503, 200])
        XCTAssertEqual(probe.retries.map(\.failure), Array(repeating: DownloadFailure(
            code: "origin_error", message: "the origin answered 503", status: 503), count: 3))
        XCTAssertEqual(probe.retries.map(\.delay), [.milliseconds(20), .milliseconds(40), .milliseconds(80)])
        try assertStoredEqualsSource(target, "6mb.bin")
    }

    func testNotFoundIsAPermanentRefusal() throws {
        let target = try destination()
        let probe = DownloadProbe()
        harness.start(url("missing.bin"), into: target, probe: probe)
        XCTAssertTrue(probe.waitForEnd())

        XCTAssertEqual(probe.events, [.failed(DownloadFailure(code: "origin_refused", message: "the origin answered 404",
                                                              status: 404))])
        XCTAssertEqual(server.requests.count, 1)
        XCTAssertEqual(target.storedBytes, 0)
        XCTAssertEqual(harness.lastDownload.state, .failed)
    }

    func testARefusedConnectionIsRetried() throws {
        // A port nobody listens on: refused at once, then retried until the owner gives up.
        let closed = try RecordingHTTPServer(root: Self.fixtures.folder)
        let deadURL = "\(closed.baseURL)/6mb.bin"
        closed.stop()
        let probe = DownloadProbe()
        probe.onRetry = { download, _ in
            if probe.retries.count == 3 {
                download.cancel()
                probe.markEnded()
            }
        }
        harness.start(deadURL, into: try destination(), probe: probe)
        XCTAssertTrue(probe.waitForEnd())
        XCTAssertEqual(probe.retries.map(\.failure.code), ["network", "network", "network"])
        XCTAssertEqual(probe.retries.map(\.delay), [.milliseconds(20), .milliseconds(40), .milliseconds(80)])
        XCTAssertEqual(harness.lastDownload.state, .cancelled)
    }

    func testAStallMidBodyIsAbandonedByTheWatchdogAndRetried() throws {
        server.stall(path: "/6mb.bin", afterBytes: 1_500_000, count: 1)
        let target = try destination()
        let probe = DownloadProbe()
        let started = Date()
        harness.start(url("6mb.bin"), into: target, probe: probe)
        XCTAssertTrue(probe.waitForEnd())
        let elapsed = Date().timeIntervalSince(started)

        XCTAssertEqual(probe.lastEvent, .finished)
        XCTAssertEqual(probe.retries.map(\.failure), [DownloadFailure(code: "network", message: "no data from the origin for 1.0 s")])
        XCTAssertEqual(server.requests.map(\.headers["range"]), [nil, "bytes=1500000-"])
        XCTAssertGreaterThanOrEqual(elapsed, 1.0)
        XCTAssertLessThan(elapsed, 5.0)
        try assertStoredEqualsSource(target, "6mb.bin")
    }

    func testAnOriginSilentBeforeItsHeadIsAbandonedByTheWatchdog() throws {
        server.stall(path: "/6mb.bin")
        let target = try destination()
        let probe = DownloadProbe()
        probe.onRetry = { [server] _, _ in server!.clearFaults() }  // answers the next request
        harness.start(url("6mb.bin"), into: target, probe: probe)
        XCTAssertTrue(probe.waitForEnd())

        XCTAssertEqual(probe.lastEvent, .finished)
        XCTAssertEqual(probe.retries.map(\.failure.code), ["network"])
        XCTAssertEqual(server.requests.map(\.status), [nil, 200])
        try assertStoredEqualsSource(target, "6mb.bin")
    }

    func testOnlyHTTPURLsAreFetched() throws {
        let probe = DownloadProbe()
        harness.start("ftp://127.0.0.1/6mb.bin", into: try destination(), probe: probe)
        XCTAssertTrue(probe.waitForEnd())
        XCTAssertEqual(probe.events, [.failed(DownloadFailure(code: "invalid_source", message: "not an http(s) URL"))])
    }

    // MARK: The owner's limits

    func testTheOwnerStopsADownloadWhenItLearnsTheTotal() throws {
        let target = try destination()
        let probe = DownloadProbe()
        let quota = DownloadFailure(code: "quota_exceeded", message: "6000000 bytes would pass the quota")
        probe.answerTotal = { _ in quota }
        harness.start(url("6mb.bin"), into: target, probe: probe)
        XCTAssertTrue(probe.waitForEnd())

        XCTAssertEqual(probe.events, [.total(6_000_000), .failed(quota)])
        XCTAssertEqual(target.storedBytes, 0)
        XCTAssertEqual(harness.lastDownload.received, 0)
    }

    func testAWriteThatFailsIsAPermanentStorageFailure() throws {
        let target = FailingDestination(failAfter: 1_000_000)
        let probe = DownloadProbe()
        harness.start(url("6mb.bin"), into: target, probe: probe)
        XCTAssertTrue(probe.waitForEnd())

        guard case let .failed(failure) = probe.lastEvent else { return XCTFail("\(probe.events)") }
        XCTAssertEqual(failure.code, "storage")
        XCTAssertTrue(failure.message.contains("no space left"), failure.message)
        XCTAssertEqual(probe.retries.count, 0)
        XCTAssertEqual(server.requests.count, 1)
    }

    // MARK: Pace

    func testSlowDataIsCommittedEveryInterval() throws {
        server.throttle(bytesPerSecond: 1_000_000)
        var options = FileDownloadOptions.fastTests
        options.commitInterval = .milliseconds(200)
        let probe = DownloadProbe()
        probe.onStored = { download, _ in
            if probe.events.count >= 5 {
                download.cancel()
                probe.markEnded()
            }
        }
        let started = Date()
        harness.start(url("6mb.bin"), into: try destination(), probe: probe, options: options)
        XCTAssertTrue(probe.waitForEnd())
        let elapsed = Date().timeIntervalSince(started)

        let stored = probe.events.compactMap { if case let .stored(bytes) = $0 { return bytes } else { return nil } }
        XCTAssertEqual(stored.count, 4, "\(probe.events)")
        // A MiB would take a second at this pace: these commits came from the interval.
        for (previous, next) in zip([0] + stored, stored) { XCTAssertLessThan(next - previous, 500_000) }
        XCTAssertLessThan(elapsed, 2)
    }

    func testTheRateLimiterHoldsTheRate() throws {
        let rate: Int64 = 4_000_000
        let size = 6_000_000
        let target = try destination()
        let probe = DownloadProbe()
        let started = Date()
        harness.start(url("6mb.bin"), into: target, probe: probe, limiter: DownloadRateLimiter(bytesPerSecond: rate))
        XCTAssertTrue(probe.waitForEnd())
        let elapsed = Date().timeIntervalSince(started)

        XCTAssertEqual(probe.lastEvent, .finished)
        try assertStoredEqualsSource(target, "6mb.bin")
        let measured = Double(size) / elapsed
        print("rate limiter at \(rate) B/s: \(size) bytes in \(String(format: "%.2f", elapsed)) s = "
              + "\(String(format: "%.0f", measured)) B/s (\(String(format: "%.2f", measured / Double(rate)))x)")
        XCTAssertLessThan(measured, 1.3 * Double(rate))
        XCTAssertGreaterThan(measured, 0.5 * Double(rate))
    }

    func testDownloadsShareTheProcesssRate() throws {
        let rate: Int64 = 8_000_000
        let limiter = DownloadRateLimiter(bytesPerSecond: rate)
        let targets = try [destination("a.bin"), destination("b.bin")]
        let probes = [DownloadProbe(), DownloadProbe()]
        let started = Date()
        for (target, probe) in zip(targets, probes) {
            harness.start(url("6mb.bin"), into: target, probe: probe, limiter: limiter)
        }
        for probe in probes { XCTAssertTrue(probe.waitForEnd()) }
        let elapsed = Date().timeIntervalSince(started)

        for (target, probe) in zip(targets, probes) {
            XCTAssertEqual(probe.lastEvent, .finished)
            try assertStoredEqualsSource(target, "6mb.bin")
        }
        let measured = 12_000_000 / elapsed
        print("two downloads sharing \(rate) B/s: 12000000 bytes in \(String(format: "%.2f", elapsed)) s = "
              + "\(String(format: "%.0f", measured)) B/s (\(String(format: "%.2f", measured / Double(rate)))x)")
        XCTAssertLessThan(measured, 1.3 * Double(rate))
        XCTAssertGreaterThan(measured, 0.5 * Double(rate))
    }

    func testTheOriginsThrottlePacesTheBody() throws {
        server.throttle(bytesPerSecond: 6_000_000)
        let target = try destination()
        let probe = DownloadProbe()
        let started = Date()
        harness.start(url("6mb.bin"), into: target, probe: probe)
        XCTAssertTrue(probe.waitForEnd())
        let elapsed = Date().timeIntervalSince(started)

        XCTAssertEqual(probe.lastEvent, .finished)
        print("origin throttled to 6000000 B/s: 6000000 bytes in \(String(format: "%.2f", elapsed)) s")
        XCTAssertGreaterThan(elapsed, 0.8)
        XCTAssertLessThan(elapsed, 4)
        try assertStoredEqualsSource(target, "6mb.bin")
    }
}
