import Foundation
import Timeshift
import XCTest

/// `SegmentRing` is pure: no GStreamer, no files. (The project's HLS parser is not a
/// dependency of this target, so the playlist is checked as text.)
final class SegmentRingTests: XCTestCase {
    /// 2023-11-14T22:13:20Z.
    private let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    private func name(_ sequence: Int) -> String { String(format: "seg%08d.ts", sequence) }

    /// Appends segments of `durations`, named by their sequence, `began` one second apart
    /// from `t0`; returns what each append dropped.
    @discardableResult
    private func append(_ durations: [Double], to ring: inout SegmentRing, bytes: Int = 100) -> [[RingSegment]] {
        durations.map { duration in
            let sequence = ring.recordedCount
            return ring.append(fileName: name(sequence), duration: duration, bytes: bytes,
                               began: t0.addingTimeInterval(Double(sequence)))
        }
    }

    // MARK: Timeline

    func testEmptyRing() {
        let ring = SegmentRing(window: 4)
        XCTAssertEqual(ring.window, 4)
        XCTAssertEqual(ring.segments, [])
        XCTAssertEqual(ring.recordedCount, 0)
        XCTAssertEqual(ring.start, 0)
        XCTAssertEqual(ring.edge, 0)
        XCTAssertEqual(ring.available, 0)
        XCTAssertEqual(ring.totalBytes, 0)
        XCTAssertEqual(ring.targetDuration, 1)
        XCTAssertNil(ring.segment(at: 0))
        XCTAssertFalse(ring.contains(fileName: name(0)))
    }

    func testTimelineBeforeTheWindowFills() {
        var ring = SegmentRing(window: 4)
        let dropped = append([1, 1.5, 0.5], to: &ring, bytes: 10)
        XCTAssertEqual(dropped.map(\.count), [0, 0, 0])
        XCTAssertEqual(ring.segments.map(\.start), [0, 1, 2.5])
        XCTAssertEqual(ring.segments.map(\.end), [1, 2.5, 3])
        XCTAssertEqual(ring.start, 0)
        XCTAssertEqual(ring.edge, 3)
        XCTAssertEqual(ring.available, 3)
        XCTAssertEqual(ring.totalBytes, 30)
        XCTAssertEqual(ring.recordedCount, 3)
        // Dates follow the durations, whatever clock the later appends read.
        XCTAssertEqual(ring.segments.map(\.began), [t0, t0 + 1, t0 + 2.5])
    }

    func testDatesFollowDurationsAndRestartAfterAGap() {
        var ring = SegmentRing(window: 60)
        ring.append(fileName: name(0), duration: 1, bytes: 1, began: t0)
        ring.append(fileName: name(1), duration: 1, bytes: 1, began: t0 + 7)  // a late-read clock
        XCTAssertEqual(ring.segments[1].began, t0 + 1)
        ring.markDiscontinuity()
        ring.append(fileName: name(2), duration: 1, bytes: 1, began: t0 + 30)  // after a gap: the clock
        XCTAssertEqual(ring.segments[2].began, t0 + 30)
        ring.append(fileName: name(3), duration: 1, bytes: 1, began: t0 + 99)
        XCTAssertEqual(ring.segments[3].began, t0 + 31)
    }

    func testNegativeDurationCountsAsZero() {
        var ring = SegmentRing(window: 4)
        append([1, -2, 1], to: &ring)
        XCTAssertEqual(ring.segments.map(\.duration), [1, 0, 1])
        XCTAssertEqual(ring.edge, 2)
    }

    // MARK: Window

    func testEvenSegmentsKeepTheWindowAndDropTheOldest() {
        var ring = SegmentRing(window: 4)
        let dropped = append(Array(repeating: 1, count: 8), to: &ring)
        // Nothing is dropped until the four newest cover the window without the oldest.
        XCTAssertEqual(dropped.map { $0.map(\.sequence) }, [[], [], [], [], [0], [1], [2], [3]])
        XCTAssertEqual(ring.segments.map(\.sequence), [4, 5, 6, 7])
        XCTAssertEqual(ring.start, 4)
        XCTAssertEqual(ring.edge, 8)
        XCTAssertEqual(ring.available, 4)
        XCTAssertEqual(ring.recordedCount, 8)
    }

    func testAvailableStaysBetweenWindowAndWindowPlusOneSegment() {
        var ring = SegmentRing(window: 4)
        var reachedWindow = false
        for duration in [0.9, 1.2, 1.1, 0.95, 1.3, 1.0, 1.05, 0.9, 1.25, 1.1, 1.0, 0.92] {
            let dropped = ring.append(fileName: name(ring.recordedCount), duration: duration, bytes: 1, began: t0)
            reachedWindow = reachedWindow || ring.available >= 4
            if reachedWindow {
                XCTAssertGreaterThanOrEqual(ring.available, 4, "after \(ring.recordedCount) segments")
            }
            // Smallest run: without its oldest segment the ring would no longer cover the window.
            if ring.segments.count > 1 {
                XCTAssertLessThan(ring.edge - ring.segments[1].start, 4, "after \(ring.recordedCount) segments")
            }
            XCTAssertLessThan(ring.available, 4 + (ring.segments.first?.duration ?? 0))
            // Dropped segments lie right before the ring's first segment, in order.
            if let last = dropped.last { XCTAssertEqual(last.end, ring.start, accuracy: 1e-9) }
        }
        XCTAssertTrue(reachedWindow)
        XCTAssertLessThanOrEqual(ring.segments.count, 5)
    }

    func testUnevenDurationsKeepTheSmallestCoveringRun() {
        var ring = SegmentRing(window: 4)
        let dropped = append([3, 0.5, 0.5, 2], to: &ring)
        // 3 + 0.5 + 0.5 + 2 = 6 s, but without the 3 s segment only 3 s are left: all kept.
        XCTAssertEqual(dropped.map(\.count), [0, 0, 0, 0])
        XCTAssertEqual(ring.available, 6)

        // +1 s: the 3 s segment is no longer needed (0.5 + 0.5 + 2 + 1 = 4).
        XCTAssertEqual(ring.append(fileName: name(4), duration: 1, bytes: 100, began: t0).map(\.sequence), [0])
        XCTAssertEqual(ring.segments.map(\.sequence), [1, 2, 3, 4])
        XCTAssertEqual(ring.start, 3)
        XCTAssertEqual(ring.available, 4)

        // +3 s: 1 + 3 covers the window; three segments go at once, oldest first.
        let many = ring.append(fileName: name(5), duration: 3, bytes: 100, began: t0)
        XCTAssertEqual(many.map(\.sequence), [1, 2, 3])
        XCTAssertEqual(many.map(\.fileName), [name(1), name(2), name(3)])
        XCTAssertEqual(ring.segments.map(\.sequence), [4, 5])
        XCTAssertEqual(ring.start, 6)
        XCTAssertEqual(ring.edge, 10)
        XCTAssertEqual(ring.available, 4)
    }

    func testASegmentLongerThanTheWindowIsNeverDroppedAlone() {
        var ring = SegmentRing(window: 4)
        XCTAssertEqual(ring.append(fileName: name(0), duration: 10, bytes: 1, began: t0), [])
        XCTAssertEqual(ring.segments.count, 1)
        // The newest alone does not cover the window yet: the long one stays.
        XCTAssertEqual(ring.append(fileName: name(1), duration: 1, bytes: 1, began: t0), [])
        XCTAssertEqual(ring.available, 11)
        XCTAssertEqual(ring.append(fileName: name(2), duration: 5, bytes: 1, began: t0).map(\.sequence), [0, 1])
        XCTAssertEqual(ring.segments.map(\.sequence), [2])
        XCTAssertEqual(ring.available, 5)
    }

    func testSequenceNumbersIncreaseAcrossDrops() {
        var ring = SegmentRing(window: 2)
        let dropped = append(Array(repeating: 1, count: 10), to: &ring).flatMap { $0 }
        XCTAssertEqual(dropped.map(\.sequence), Array(0...7))
        XCTAssertEqual(ring.segments.map(\.sequence), [8, 9])
        XCTAssertEqual(ring.segments.map(\.fileName), [name(8), name(9)])
        XCTAssertEqual(ring.recordedCount, 10)
        // Starts keep counting recording time, not ring time.
        XCTAssertEqual(ring.segments.map(\.start), [8, 9])
    }

    func testTargetDurationRoundsToNearestAndNeverShrinks() {
        var ring = SegmentRing(window: 2)
        append([0.4], to: &ring)
        XCTAssertEqual(ring.targetDuration, 1, "never below 1")
        append([2.6], to: &ring)
        XCTAssertEqual(ring.targetDuration, 3)
        append([1, 1, 1], to: &ring)
        XCTAssertFalse(ring.segments.contains { $0.duration > 1 }, "the 2.6 s segment should be gone")
        XCTAssertEqual(ring.targetDuration, 3, "it never shrinks")
        XCTAssertTrue(ring.playlist().contains("#EXT-X-TARGETDURATION:3\n"))

        // RFC 8216 compares EXTINF rounded to the nearest integer: float noise on a 1 s
        // segment (splitmuxsink gives 1.0000000000000004) must not make the target 2.
        var noisy = SegmentRing(window: 10)
        append([1.0000000000000004, 1.2], to: &noisy)
        XCTAssertEqual(noisy.targetDuration, 1)

        var whole = SegmentRing(window: 10)
        append([3.0], to: &whole)
        XCTAssertEqual(whole.targetDuration, 3, "a whole number stays as it is")
    }

    // MARK: Lookup

    func testSegmentAtTimeIsClampedToTheRing() {
        var ring = SegmentRing(window: 4)
        append(Array(repeating: 1, count: 8), to: &ring)  // keeps 4 ..< 8
        XCTAssertEqual(ring.segment(at: 5.5)?.sequence, 5)
        XCTAssertEqual(ring.segment(at: 5.0)?.sequence, 5, "a boundary belongs to the later segment")
        XCTAssertEqual(ring.segment(at: 4.999)?.sequence, 4)
        XCTAssertEqual(ring.segment(at: 7.9)?.sequence, 7)
        XCTAssertEqual(ring.segment(at: 1)?.sequence, 4, "before the ring: its first segment")
        XCTAssertEqual(ring.segment(at: -3)?.sequence, 4)
        XCTAssertEqual(ring.segment(at: 100)?.sequence, 7, "past the edge: its last segment")
    }

    func testContainsOnlyListedFiles() {
        var ring = SegmentRing(window: 2)
        append(Array(repeating: 1, count: 5), to: &ring)  // keeps 3, 4
        XCTAssertTrue(ring.contains(fileName: name(3)))
        XCTAssertTrue(ring.contains(fileName: name(4)))
        XCTAssertFalse(ring.contains(fileName: name(2)), "dropped")
        XCTAssertFalse(ring.contains(fileName: name(5)), "not recorded yet")
        XCTAssertFalse(ring.contains(fileName: "index.m3u8"))
        XCTAssertFalse(ring.contains(fileName: ""))
    }

    // MARK: Playlist

    func testEmptyPlaylist() {
        XCTAssertEqual(SegmentRing(window: 4).playlist(), """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:1
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-DISCONTINUITY-SEQUENCE:0

            """)
    }

    func testPlaylistText() {
        var ring = SegmentRing(window: 10)
        ring.append(fileName: "seg00000000.ts", duration: 1, bytes: 1, began: t0)
        ring.append(fileName: "seg00000001.ts", duration: 1.5, bytes: 1, began: t0 + 1.25)
        ring.append(fileName: "seg00000002.ts", duration: 0.987654321, bytes: 1, began: t0 + 2.75)
        let text = ring.playlist()
        XCTAssertEqual(text, """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-DISCONTINUITY-SEQUENCE:0
            #EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:20.000Z
            #EXTINF:1.000000,
            seg00000000.ts
            #EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:21.000Z
            #EXTINF:1.500000,
            seg00000001.ts
            #EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:22.500Z
            #EXTINF:0.987654,
            seg00000002.ts

            """)
        XCTAssertFalse(text.contains("#EXT-X-ENDLIST"), "a live playlist")
        XCTAssertFalse(text.contains("#EXT-X-PLAYLIST-TYPE"), "neither VOD nor EVENT: segments leave the front")
    }

    func testMediaSequenceIsTheFirstListedSegment() {
        var ring = SegmentRing(window: 2)
        append(Array(repeating: 1, count: 6), to: &ring)  // keeps 4, 5
        XCTAssertEqual(ring.playlist(), """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:1
            #EXT-X-MEDIA-SEQUENCE:4
            #EXT-X-DISCONTINUITY-SEQUENCE:0
            #EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:24.000Z
            #EXTINF:1.000000,
            seg00000004.ts
            #EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:25.000Z
            #EXTINF:1.000000,
            seg00000005.ts

            """)
    }

    func testMarkDiscontinuityBeforeAnySegmentDoesNothing() {
        var ring = SegmentRing(window: 4)
        ring.markDiscontinuity()
        append([1, 1], to: &ring)
        XCTAssertEqual(ring.segments.map(\.discontinuity), [false, false])
        XCTAssertFalse(ring.playlist().contains("#EXT-X-DISCONTINUITY\n"))
        XCTAssertTrue(ring.playlist().contains("#EXT-X-DISCONTINUITY-SEQUENCE:0\n"))
    }

    func testDiscontinuityMarksOnlyTheNextSegment() {
        var ring = SegmentRing(window: 10)
        append([1], to: &ring)
        ring.markDiscontinuity()
        ring.markDiscontinuity()  // twice before a segment: still one discontinuity
        append([1, 1], to: &ring)
        XCTAssertEqual(ring.segments.map(\.discontinuity), [false, true, false])
        XCTAssertEqual(ring.playlist().components(separatedBy: "#EXT-X-DISCONTINUITY\n").count - 1, 1)
    }

    func testDiscontinuityTagAndSequenceAsSegmentsLeave() {
        var ring = SegmentRing(window: 3)
        append([1, 1], to: &ring)
        ring.markDiscontinuity()
        append([1, 1], to: &ring)  // s2 follows a gap; s0 is dropped
        XCTAssertEqual(ring.segments.map(\.sequence), [1, 2, 3])
        // The tag comes before the segment it applies to, ahead of its date.
        XCTAssertEqual(ring.playlist(), """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:1
            #EXT-X-MEDIA-SEQUENCE:1
            #EXT-X-DISCONTINUITY-SEQUENCE:0
            #EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:21.000Z
            #EXTINF:1.000000,
            seg00000001.ts
            #EXT-X-DISCONTINUITY
            #EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:22.000Z
            #EXTINF:1.000000,
            seg00000002.ts
            #EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:23.000Z
            #EXTINF:1.000000,
            seg00000003.ts

            """)

        // s1 leaves: the discontinuity segment is first, its tag goes and the sequence counts it.
        append([1], to: &ring)
        XCTAssertEqual(ring.playlist(), """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:1
            #EXT-X-MEDIA-SEQUENCE:2
            #EXT-X-DISCONTINUITY-SEQUENCE:1
            #EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:22.000Z
            #EXTINF:1.000000,
            seg00000002.ts
            #EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:23.000Z
            #EXTINF:1.000000,
            seg00000003.ts
            #EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:24.000Z
            #EXTINF:1.000000,
            seg00000004.ts

            """)

        // s2 leaves too: counted as dropped, the sequence stays at 1.
        append([1], to: &ring)
        XCTAssertEqual(ring.segments.map(\.sequence), [3, 4, 5])
        XCTAssertTrue(ring.playlist().contains("#EXT-X-MEDIA-SEQUENCE:3\n#EXT-X-DISCONTINUITY-SEQUENCE:1\n"))
        XCTAssertFalse(ring.playlist().contains("#EXT-X-DISCONTINUITY\n"))

        // A second gap: tagged while inside, then counted once it is first and once dropped.
        ring.markDiscontinuity()
        append([1], to: &ring)  // s6; keeps 4, 5, 6
        XCTAssertTrue(ring.playlist().contains("#EXT-X-DISCONTINUITY-SEQUENCE:1\n"))
        XCTAssertTrue(ring.playlist().hasSuffix("""
            #EXT-X-DISCONTINUITY
            #EXT-X-PROGRAM-DATE-TIME:2023-11-14T22:13:26.000Z
            #EXTINF:1.000000,
            seg00000006.ts

            """))
        append([1, 1], to: &ring)  // keeps 6, 7, 8
        XCTAssertTrue(ring.playlist().contains("#EXT-X-MEDIA-SEQUENCE:6\n#EXT-X-DISCONTINUITY-SEQUENCE:2\n"))
        XCTAssertFalse(ring.playlist().contains("#EXT-X-DISCONTINUITY\n"))
        append([1], to: &ring)  // keeps 7, 8, 9
        XCTAssertTrue(ring.playlist().contains("#EXT-X-MEDIA-SEQUENCE:7\n#EXT-X-DISCONTINUITY-SEQUENCE:2\n"))
    }

    func testPlaylistDurationsAddUpToAvailable() {
        var ring = SegmentRing(window: 4)
        append([0.9, 1.2, 1.1, 0.95, 1.3, 1.05], to: &ring)
        let durations = ring.playlist().split(separator: "\n")
            .filter { $0.hasPrefix("#EXTINF:") }
            .compactMap { Double($0.dropFirst("#EXTINF:".count).dropLast()) }
        XCTAssertEqual(durations.count, ring.segments.count)
        XCTAssertEqual(durations.reduce(0, +), ring.available, accuracy: 1e-5)
        XCTAssertEqual(ring.playlist().components(separatedBy: "#EXT-X-PROGRAM-DATE-TIME:").count - 1,
                       ring.segments.count)
    }
}
