import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// The header proxy streams what is not a playlist (issue 18): a progressive MP4 larger than
/// the 64 MiB a body read whole was capped at plays through it (a session with request
/// headers goes through the proxy), seeks land anywhere in it (Range requests passed on),
/// and the daemon does not hold the file in memory while it plays.
final class HeaderProxyStreamingTests: XCTestCase {
    private var daemon: Daemon!
    private var server: RecordingHTTPServer!
    private var file: URL!
    private static let oldCap = 64 << 20

    override func setUpWithError() throws {
        file = try MediaFixtures.largeMP4()
        server = try RecordingHTTPServer(root: file.deletingLastPathComponent())
        daemon = try Daemon()
    }

    override func tearDown() {
        daemon?.assertStopsCleanly()
        daemon = nil
        server = nil
    }

    private var fileURL: String { server.baseURL + "/" + file.lastPathComponent }
    private var fileRequests: [RecordedRequest] { server.requests.filter { $0.path == "/" + file.lastPathComponent } }

    func testAFileLargerThanTheOldCapPlaysAndSeeksThroughTheProxy() throws {
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
        XCTAssertGreaterThan(size, Self.oldCap, "the fixture must be larger than the old cap")
        var (status, s) = try daemon.post("/v1/player/open?wait=playing&timeout=30", ["uri": fileURL, "headers": ["X-Session": "big"]])
        XCTAssertEqual(status, 200, "\(s)\n\(daemon.log.suffix(3000))")
        XCTAssertEqual(s.state, "playing")
        XCTAssertFalse(fileRequests.isEmpty)
        XCTAssertTrue(fileRequests.allSatisfy { $0.headers["x-session"] == "big" }, "every request went through the proxy")

        // Far into the file: souphttpsrc asks for a range past the old cap, and playback goes on there.
        let target = Double(MediaFixtures.largeMP4Seconds) - 4
        (status, s) = try daemon.post("/v1/player/seek", ["position": target])
        XCTAssertEqual(status, 200, "\(s)")
        let after = try daemon.waitFor("playing past \(target + 0.5) s", timeout: 15) {
            $0.state == "playing" && ($0.position ?? 0) >= target + 0.5
        }
        XCTAssertNil(after.errorCode, "\(after)")
        let farRanges = fileRequests.filter { request in
            guard let range = request.headers["range"], let start = Int(range.dropFirst("bytes=".count).prefix { $0.isNumber }) else { return false }
            return start > Self.oldCap && request.status == 206
        }
        XCTAssertFalse(farRanges.isEmpty, "no 206 for a range past 64 MiB: \(fileRequests.map { ($0.headers["range"] ?? "-", $0.status ?? 0) })")
    }

    /// An origin that breaks off mid-body: the proxy ends the client's response short (it
    /// cannot end it cleanly: that would pass a cut file off as whole), souphttpsrc asks
    /// again from where it stopped, and playback goes on past the cut.
    func testAnOriginThatBreaksOffMidBodyIsResumedWithARange() throws {
        let cut = 4 << 20  // about a second of the file, after its index
        // Two: the player's own look at the first bytes (is it a playlist?) and the proxy's
        // request arrive in either order; the probe closes after its first chunk.
        server.dropConnection(path: "/" + file.lastPathComponent, afterBytes: cut, count: 2)
        let (status, s) = try daemon.post("/v1/player/open?wait=playing&timeout=30", ["uri": fileURL, "headers": ["X-Session": "cut"]])
        XCTAssertEqual(status, 200, "\(s)")
        let after = try daemon.waitFor("playing past the cut", timeout: 15) { $0.state == "playing" && ($0.position ?? 0) >= 3 }
        XCTAssertNil(after.errorCode, "\(after)")
        let resumed = fileRequests.compactMap { request -> Int? in
            guard let range = request.headers["range"], request.headers["x-session"] == "cut" else { return nil }
            return Int(range.dropFirst("bytes=".count).prefix { $0.isNumber })
        }
        XCTAssertTrue(resumed.contains { $0 > 0 && $0 <= cut }, "no request resumed at or before the cut: \(resumed)")
    }

    /// The proxy reads the origin no faster than the player takes the body: its share of the
    /// daemon's memory is a few chunks per stream, not the file. Measured as the peak VmRSS
    /// growth over an open, plays and two seeks through the proxy (about 50 MB of the 88 MB
    /// file streamed), against the same run played direct (no headers: souphttpsrc reads the
    /// origin itself) in the same daemon. On the 2-core dev machine: direct 2-8 MiB, through
    /// the proxy 6 MiB; the same proxy without flow control (a window of 1,000,000 chunks:
    /// it reads the fast origin to the end while the player reads at playback speed) grew
    /// by 89 MiB. 24 MiB of slack is far above the proxy's own share (4 x 64 KiB a stream
    /// and libsoup's buffers) and far below the file.
    func testTheDaemonDoesNotHoldTheFileInMemory() throws {
        // Warm-up, not counted: loads the plugins the runs share.
        try play(headers: nil, seekTo: [])
        let seeks = [10.0, Double(MediaFixtures.largeMP4Seconds) - 4]
        server.clearRequests()
        let direct = try peakGrowth { try play(headers: nil, seekTo: seeks) }
        server.clearRequests()
        let proxied = try peakGrowth { try play(headers: ["X-Session": "rss"], seekTo: seeks) }
        let streamed = fileRequests.reduce(0) { $0 + $1.bytesSent }
        XCTAssertTrue(fileRequests.allSatisfy { $0.headers["x-session"] == "rss" }, "every request went through the proxy")
        print("VmRSS peak growth: direct \(direct >> 20) MiB, through the proxy \(proxied >> 20) MiB; origin sent \(streamed >> 20) MiB")
        XCTAssertGreaterThan(streamed, 16 << 20, "the run must stream a good part of the file through the proxy")
        XCTAssertLessThan(proxied, direct + (24 << 20), "direct \(direct >> 20) MiB, proxied \(proxied >> 20) MiB")
    }

    /// Opens the file, plays 1.5 s, seeks to each of `seekTo` and plays 1.5 s there, stops.
    private func play(headers: [String: String]?, seekTo positions: [Double]) throws {
        var body: [String: Any] = ["uri": fileURL]
        if let headers { body["headers"] = headers }
        let (status, s) = try daemon.post("/v1/player/open?wait=playing&timeout=30", body)
        XCTAssertEqual(status, 200, "\(s)")
        usleep(1_500_000)
        for position in positions {
            XCTAssertEqual(try daemon.post("/v1/player/seek", ["position": position]).0, 200)
            _ = try daemon.waitFor("playing past \(position)", timeout: 15) { $0.state == "playing" && ($0.position ?? 0) >= position }
            usleep(1_500_000)
        }
        XCTAssertEqual(try daemon.post("/v1/player/stop?wait=idle").0, 200)
    }

    /// The highest VmRSS of the daemon while `body` runs (sampled every 20 ms), less the one before.
    private func peakGrowth(_ body: () throws -> Void) throws -> Int {
        let pid = daemon.pid
        let before = try Self.residentBytes(pid)
        let peak = PeakSampler()
        let sampler = Thread {
            while !peak.done {
                if let bytes = try? Self.residentBytes(pid) { peak.record(bytes) }
                usleep(20_000)
            }
        }
        sampler.start()
        defer { peak.finish() }
        try body()
        peak.finish()
        return max(0, peak.highest - before)
    }

    private static func residentBytes(_ pid: pid_t) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Int(line.split(separator: " ").dropFirst().first ?? "") else {
            throw NSError(domain: "VmRSS", code: 1, userInfo: [NSLocalizedDescriptionKey: "no VmRSS for \(pid)"])
        }
        return kib << 10
    }

    private final class PeakSampler: @unchecked Sendable {
        private let lock = NSLock()
        private var highestSeen = 0
        private var finished = false
        var done: Bool { lock.withLock { finished } }
        var highest: Int { lock.withLock { highestSeen } }
        func record(_ bytes: Int) { lock.withLock { highestSeen = max(highestSeen, bytes) } }
        func finish() { lock.withLock { finished = true } }
    }
}
