import Foundation
import OfflineLibrary
import TestMedia
import XCTest

/// The figures behind `LibraryServer`'s design, printed with "[LibraryServer]": throughput
/// against a plain read of the same file, the first byte of a mid-file Range (a seek), the
/// process's memory while a large body streams, and a small request's wait while one does.
/// Bounds are loose (the test machines share their cores); the printed figures are the point.
final class LibraryServerThroughputTests: XCTestCase {
    private static let server = try! LibraryServer()
    private static let folder = serverTestFolder("marquee-library-server-throughput")
    /// 48 MiB of random bytes.
    private static let filePath = folder.appendingPathComponent("media.bin").path
    private static let fileSize: Int64 = 48 << 20

    private var server: LibraryServer { Self.server }

    override class func setUp() {
        super.setUp()
        try! writeRandomFile(filePath, megabytes: Int(fileSize >> 20))
    }

    override class func tearDown() {
        try? FileManager.default.removeItem(at: folder)
        super.tearDown()
    }

    private func publishFile() throws -> String {
        let (token, _) = try server.publish(["media": ServedFile(media: try PlainMedia(path: Self.filePath), contentType: "video/mp4")])
        return server.url(token: token, name: "media")
    }

    func testAFullGetRunsNearThePlainReadsSpeed() throws {
        let url = try publishFile()
        _ = try runProcess("sh", ["-c", "cat \"$0\" > /dev/null", Self.filePath], timeout: 30)  // into the page cache
        var served: [Double] = [], plain: [Double] = [], cat: [Double] = []
        for _ in 0..<3 {
            let result = try curl(url)
            XCTAssertEqual(result.status, 200)
            XCTAssertEqual(result.sizeDownloaded, Self.fileSize)
            served.append(result.speed)
            plain.append(try curl("file://\(Self.filePath)").speed)
            let started = Date()
            _ = try runProcess("sh", ["-c", "cat \"$0\" > /dev/null", Self.filePath], timeout: 30)
            cat.append(Double(Self.fileSize) / Date().timeIntervalSince(started))
        }
        // One chunk's read, as the server does it (pread of 256 KiB from the page cache).
        let media = try PlainMedia(path: Self.filePath)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)
        defer { buffer.deallocate() }
        let started = Date()
        var offset: Int64 = 0
        while offset < Self.fileSize { offset += Int64(try media.read(at: offset, into: buffer)) }
        let perChunk = Date().timeIntervalSince(started) / Double(Self.fileSize >> 18)

        print("[LibraryServer] full GET of \(Self.fileSize >> 20) MiB: served \(megabytesPerSecond(served.max()!)) "
              + "(runs: \(served.map(megabytesPerSecond))), curl file:// \(megabytesPerSecond(plain.max()!)), "
              + "cat (process start included) \(megabytesPerSecond(cat.max()!)); "
              + "one 256 KiB chunk read: \(String(format: "%.3f", perChunk * 1000)) ms")
        XCTAssertGreaterThan(served.max()!, 30_000_000, "at least 30 MB/s even on a busy machine")
    }

    /// A seek is a Range request in the middle of the file: its first byte comes after one
    /// chunk's read, not after the bytes before it.
    func testAMidFileRangeAnswersItsFirstByteInMilliseconds() throws {
        let url = try publishFile()
        var latencies: [Double] = []
        for index in 0..<20 {
            let first = Self.fileSize / 4 + Int64(index) * 1_000_003
            let result = try curl(url, ["-H", "Range: bytes=\(first)-\(first + (1 << 20) - 1)"])
            XCTAssertEqual(result.status, 206)
            XCTAssertEqual(result.sizeDownloaded, 1 << 20)
            latencies.append(result.firstByte)
        }
        latencies.sort()
        let median = latencies[latencies.count / 2]
        print("[LibraryServer] first byte of a 1 MiB Range in the middle of \(Self.fileSize >> 20) MiB (connect included): "
              + "median \(String(format: "%.2f", median * 1000)) ms, best \(String(format: "%.2f", latencies.first! * 1000)) ms, "
              + "worst \(String(format: "%.2f", latencies.last! * 1000)) ms")
        XCTAssertLessThan(median, 0.1)
    }

    /// 1 GiB with `Range: bytes=0-`: the process's resident memory, sampled every 10 ms while
    /// it streams, stays within a few MiB of where it started.
    func testMemoryStaysFlatWhileAGigabyteStreams() throws {
        let size: Int64 = 1 << 30
        let (token, _) = try server.publish(["big": ServedFile(media: SyntheticMedia(size: size), contentType: "video/mp4")])
        _ = try curl(server.url(token: token, name: "big"), ["-H", "Range: bytes=0-1048575"])  // first use: pattern, buffers
        let before = residentBytes()
        let sampler = RSSSampler()
        let result = try curl(server.url(token: token, name: "big"), ["-H", "Range: bytes=0-"])
        let peak = sampler.stop()
        let after = residentBytes()
        XCTAssertEqual(result.status, 206)
        XCTAssertEqual(result.sizeDownloaded, size)
        print("[LibraryServer] RSS streaming 1 GiB: before \(before >> 20) MiB, peak \(peak >> 20) MiB "
              + "(+\((peak - before) >> 10) KiB), after \(after >> 20) MiB; \(megabytesPerSecond(result.speed))")
        XCTAssertLessThan(peak - before, 64 << 20, "memory must not grow with the body")
        server.unpublish(token)
    }

    /// A key or playlist request while a fast client takes a large body: each chunk goes
    /// through the server's loop, so the small request waits for a chunk, not for the body.
    func testASmallRequestIsAnsweredWhileALargeBodyStreams() throws {
        let (token, _) = try server.publish([
            "big": ServedFile(media: SyntheticMedia(size: 1 << 30), contentType: "video/mp4"),
            "key.bin": ServedFile(media: BytesMedia(Array(0..<16)), contentType: "application/octet-stream"),
        ])
        let bigDone = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var big: CurlResult?
        Thread.detachNewThread { [server] in
            big = try? curl(server.url(token: token, name: "big"))
            bigDone.signal()
        }
        XCTAssertTrue(pollUntil(within: 10) { server.bodiesInFlight > 0 })
        var waits: [Double] = []
        for _ in 0..<10 where server.bodiesInFlight > 0 {
            let result = try curl(server.url(token: token, name: "key.bin"))
            XCTAssertEqual(result.status, 200)
            waits.append(result.total)
        }
        bigDone.wait()
        XCTAssertEqual(big?.sizeDownloaded, 1 << 30)
        waits.sort()
        XCTAssertFalse(waits.isEmpty, "the large body ended before a small request was made")
        guard let median = waits.dropFirst(waits.count / 2).first else { return }
        print("[LibraryServer] a 16-byte request while 1 GiB streams at \(megabytesPerSecond(big?.speed ?? 0)): "
              + "median \(String(format: "%.2f", median * 1000)) ms over \(waits.count), worst \(String(format: "%.2f", waits.last! * 1000)) ms")
        XCTAssertLessThan(median, 0.5)
        server.unpublish(token)
    }
}

/// Samples the process's resident memory every 10 ms on a thread of its own; `stop` gives the peak.
private final class RSSSampler: @unchecked Sendable {
    private let lock = NSLock()
    private var peak: Int64 = 0
    private var running = true
    private let finished = DispatchSemaphore(value: 0)

    init() {
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                let now = residentBytes()
                lock.withLock { peak = max(peak, now) }
                usleep(10_000)
            }
            finished.signal()
        }
    }

    func stop() -> Int64 {
        lock.withLock { running = false }
        finished.wait()
        return lock.withLock { peak }
    }
}
