import Foundation
import GLibTestSupport
import GLibRuntime
import GStreamerKit
import TestMedia
@testable import Timeshift
import XCTest

/// What a `TimeshiftBuffer` reported, and the buffer as each `.recorded` event found it.
@GLibActor
private final class Probe {
    struct Recorded {
        var count: Int
        var ready: Bool
        var newest: RingSegment?
        var filePresent: Bool
    }

    weak var buffer: TimeshiftBuffer?
    private(set) var events: [TimeshiftBuffer.Event] = []
    private(set) var recorded: [Recorded] = []

    func handle(_ event: TimeshiftBuffer.Event) {
        events.append(event)
        guard event == .recorded, let buffer else { return }
        let newest = buffer.ring.segments.last
        let present = newest.map {
            FileManager.default.fileExists(atPath: buffer.folder.appendingPathComponent($0.fileName).path)
        } ?? false
        recorded.append(Recorded(count: buffer.ring.recordedCount, ready: buffer.isReady, newest: newest, filePresent: present))
    }
}

/// `TimeshiftBuffer` on real recorder pipelines.
final class RecorderTests: GStreamerTestCase {
    private func name(_ sequence: Int) -> String { String(format: "seg%08d.ts", sequence) }

    @GLibActor
    func testDemoRecordsOneSecondSegmentsIntoABoundedRing() async throws {
        let folder = temporaryFolder("marquee-timeshift-test")
        let probe = Probe()
        // A 1 s window: the ring keeps it plus the edge allowance (4 s), so 5 s in all.
        let buffer = TimeshiftBuffer(source: .demo, window: 1, folder: folder) { [probe] event in probe.handle(event) }
        XCTAssertEqual(buffer.ring.window, 1 + TimeshiftBuffer.edgeAllowance)
        probe.buffer = buffer
        defer { buffer.close() }
        try buffer.start()
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.path), "start() creates the folder")
        XCTAssertFalse(buffer.isReady)

        // Ready at three segments: the player's origin is where the ring starts then.
        let ready = try await eventually(timeout: 10) { buffer.isReady }
        XCTAssertTrue(ready, "not ready after 10 s: \(buffer.ring.recordedCount) segments, events \(probe.events)")
        XCTAssertNil(buffer.playbackOrigin, "set only when the player first reads the playlist")
        let server = try RingServer()
        let components = try XCTUnwrap(URLComponents(string: buffer.serve(from: server)))
        let firstPlaylist = try await fetch(port: try XCTUnwrap(components.port), path: components.path)
        XCTAssertEqual(firstPlaylist.status, 200)
        XCTAssertEqual(buffer.playbackOrigin, 0)
        XCTAssertTrue(firstPlaylist.text.hasPrefix("#EXTM3U\n"), firstPlaylist.text)

        // Seven segments: with 5 s kept of ~1 s segments the oldest have been dropped.
        let recordedSeven = try await eventually(timeout: 10) { buffer.ring.recordedCount >= 7 }
        XCTAssertTrue(recordedSeven, "only \(buffer.ring.recordedCount) segments after ~12 s")
        let ring = buffer.ring
        let count = ring.recordedCount

        // One `.recorded` per segment, nothing else; each segment about a second, its file there.
        XCTAssertEqual(probe.events, Array(repeating: .recorded, count: count))
        XCTAssertEqual(probe.recorded.map(\.count), Array(1...count))
        XCTAssertEqual(probe.recorded.map(\.ready), [false, false] + Array(repeating: true, count: count - 2),
                       "ready from the third segment on")
        XCTAssertEqual(probe.recorded.map { $0.newest?.sequence }, Array(0..<count))
        XCTAssertEqual(probe.recorded.map { $0.newest?.fileName }, (0..<count).map(name))
        for entry in probe.recorded {
            let segment = try XCTUnwrap(entry.newest)
            XCTAssertTrue((0.9...1.6).contains(segment.duration), "\(segment.fileName) lasts \(segment.duration) s")
            XCTAssertGreaterThan(segment.bytes, 10_000, "\(segment.fileName) has \(segment.bytes) bytes")
            XCTAssertFalse(segment.discontinuity, segment.fileName)
            XCTAssertTrue(entry.filePresent, "\(segment.fileName) missing when reported")
        }

        // Bounded: the smallest run covering 5 s.
        XCTAssertLessThanOrEqual(ring.segments.count, 6, "\(ring.segments.map(\.duration))")
        XCTAssertGreaterThanOrEqual(ring.available, ring.window)
        XCTAssertGreaterThan(ring.start, 0, "nothing dropped")
        if ring.segments.count > 1 {
            XCTAssertLessThan(ring.edge - ring.segments[1].start, ring.window, "keeps more than it needs")
        }
        let firstKept = try XCTUnwrap(ring.segments.first).sequence
        XCTAssertGreaterThan(firstKept, 0)

        // Dropped files are deleted, listed ones are there; besides them only the open fragment.
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        for sequence in 0..<firstKept {
            XCTAssertFalse(files.contains(name(sequence)), "dropped \(name(sequence)) still on disk")
        }
        for segment in ring.segments {
            XCTAssertTrue(files.contains(segment.fileName), "listed \(segment.fileName) not on disk")
            let size = try FileManager.default.attributesOfItem(
                atPath: folder.appendingPathComponent(segment.fileName).path)[.size] as? Int
            XCTAssertEqual(size, segment.bytes, segment.fileName)
        }
        let expected = Set(ring.segments.map(\.fileName)).union([name(count)])
        XCTAssertTrue(files.isSubset(of: expected), "unexpected files: \(files.subtracting(expected).sorted())")

        // The origin stays where the player started, though the ring has moved on.
        let playlist = try await fetch(port: try XCTUnwrap(components.port), path: components.path).text
        XCTAssertEqual(buffer.playbackOrigin, 0)
        XCTAssertTrue(playlist.contains("#EXT-X-MEDIA-SEQUENCE:\(buffer.ring.segments[0].sequence)\n"), playlist)

        // The folder goes once the recorder is down (it stops on its worker, off this thread).
        buffer.close()
        let deleted = try await eventually(timeout: 5) { !FileManager.default.fileExists(atPath: folder.path) }
        XCTAssertTrue(deleted, "close() deletes the folder")
    }

    @GLibActor
    func testASourceThatNeverDeliversIsRestartedWithBackoff() async throws {
        // Short timeouts so the restarts happen in a few seconds: first segment 1.5 s,
        // backoff 1, 2, 2 (capped) s.
        let timeouts = TimeshiftBuffer.Timeouts(firstSegment: 1.5, stall: 1, maximumBackoff: 2)
        let port = try LiveUDPSender.freeUDPPort()
        let folder = temporaryFolder("marquee-timeshift-test")
        let probe = Probe()
        let buffer = TimeshiftBuffer(source: .uri("udp://127.0.0.1:\(port)"), window: 3, folder: folder,
                                     timeouts: timeouts) { [probe] event in
            probe.handle(event)
        }
        probe.buffer = buffer
        defer { buffer.close() }
        let started = Date()
        try buffer.start()

        let reported = try await eventually(timeout: 5) { !probe.events.isEmpty }
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertTrue(reported, "no event 5 s after start")
        XCTAssertEqual(probe.events.first, .reconnecting(attempt: 1, delay: 1, reason: "no data for 1.5 s"))
        XCTAssertGreaterThanOrEqual(elapsed, 1.5, "restarted before the first-segment timeout")
        XCTAssertLessThan(elapsed, 3, "the watchdog checks often enough")

        // Each failed attempt waits longer, up to the cap: 1 s + 1.5 s, then 2 s + 1.5 s.
        let third = try await eventually(timeout: 10) { probe.events.count >= 3 }
        XCTAssertTrue(third, "\(probe.events)")
        XCTAssertEqual(Array(probe.events.prefix(3)), [
            .reconnecting(attempt: 1, delay: 1, reason: "no data for 1.5 s"),
            .reconnecting(attempt: 2, delay: 2, reason: "no data for 1.5 s"),
            .reconnecting(attempt: 3, delay: 2, reason: "no data for 1.5 s"),
        ])
        XCTAssertEqual(buffer.ring.recordedCount, 0)
        XCTAssertFalse(buffer.isReady)

        // The folder goes once the recorder is down (it stops on its worker, off this thread).
        buffer.close()
        let deleted = try await eventually(timeout: 5) { !FileManager.default.fileExists(atPath: folder.path) }
        XCTAssertTrue(deleted, "close() deletes the folder")
    }
}
