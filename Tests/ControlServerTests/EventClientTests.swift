import Foundation
import XCTest
import ControlAPI
import GLibRuntime
@testable import ControlServer

/// An outlet whose kernel backlog the test sets. GLib thread only.
@GLibActor
private final class FakeOutlet: EventOutlet {
    var written: [String] = []
    var backlogBytes = 0
    /// Added to `backlogBytes` on every write, to model a socket that fills up.
    var bytesPerWrite = 0
    var closed = false

    func write(_ text: String) {
        written.append(text)
        backlogBytes += bytesPerWrite
    }

    func close() { closed = true }
    func heartbeat() {}

    func backUp() { backlogBytes = EventClient.backlogLimit }
    func drain() { backlogBytes = 0 }

    /// The written frames as JSON objects.
    var frames: [[String: Any]] {
        written.map { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [:] }
    }
    var types: [String] { frames.map { $0["type"] as? String ?? "?" } }
    var seqs: [Int] { frames.compactMap { $0["seq"] as? Int } }
}

/// Counts how often the client asks for a snapshot (it should only when it sends one).
@GLibActor
private final class SnapshotSource {
    var calls = 0
    var state: PlaybackState = .playing
    func make() -> PlayerSnapshot {
        calls += 1
        var s = PlayerSnapshot()
        s.state = state
        return s
    }
}

final class EventClientTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        MainLoop.startOnHelperThreadOnce()
    }

    private static func state(_ s: PlaybackState, _ previous: PlaybackState = .paused) -> PlayerEvent {
        .state(StateChange(state: s, previous: previous))
    }

    private static func seek(_ position: Double) -> PlayerEvent { .seek(SeekUpdate(position: position, exact: false)) }
    private static func position(_ p: Double) -> PlayerEvent { .position(PositionUpdate(position: p, duration: 60)) }

    @GLibActor
    private func makeClient() -> (EventClient, FakeOutlet, SnapshotSource) {
        let outlet = FakeOutlet()
        return (EventClient(id: 1, kind: "test", outlet: outlet), outlet, SnapshotSource())
    }

    @GLibActor
    func testWritesAtOnceWithSeqFromOne() async {
        let (client, outlet, snapshots) = makeClient()
        XCTAssertEqual(client.enqueue(.snapshot(snapshots.make()), snapshot: snapshots.make), 1)
        XCTAssertEqual(client.enqueue(Self.state(.playing), snapshot: snapshots.make), 1)
        XCTAssertEqual(client.enqueue(.eos, snapshot: snapshots.make), 1)
        XCTAssertEqual(outlet.types, ["snapshot", "state", "eos"])
        XCTAssertEqual(outlet.seqs, [1, 2, 3])
        XCTAssertFalse(client.hasBacklog)
        XCTAssertEqual(snapshots.calls, 1, "only the explicit snapshot")
        XCTAssertEqual(outlet.written[2], #"{"data":{},"seq":3,"type":"eos"}"#)
    }

    @GLibActor
    func testNothingIsWrittenWhileBackedUpThenAllInOrder() async {
        let (client, outlet, snapshots) = makeClient()
        outlet.backUp()
        for p in [1.0, 2.0, 3.0] { XCTAssertEqual(client.enqueue(Self.seek(p), snapshot: snapshots.make), 0) }
        XCTAssertEqual(client.enqueue(Self.state(.playing), snapshot: snapshots.make), 0)
        XCTAssertTrue(outlet.written.isEmpty)
        XCTAssertTrue(client.hasBacklog)
        XCTAssertEqual(client.flush(snapshot: snapshots.make), 0, "still backed up")
        XCTAssertTrue(outlet.written.isEmpty)

        outlet.backlogBytes = EventClient.backlogLimit - 1  // just under the limit counts as drained
        XCTAssertEqual(client.flush(snapshot: snapshots.make), 4)
        XCTAssertEqual(outlet.types, ["seek", "seek", "seek", "state"])
        XCTAssertEqual(outlet.frames.compactMap { ($0["data"] as? [String: Any])?["position"] as? Double }, [1, 2, 3])
        XCTAssertEqual(outlet.seqs, [1, 2, 3, 4])
        XCTAssertFalse(client.hasBacklog)
        XCTAssertEqual(client.overflows, 0)
        XCTAssertEqual(snapshots.calls, 0)
    }

    @GLibActor
    func testOverflowDropsTheQueueAndSendsASnapshotFirst() async {
        let (client, outlet, snapshots) = makeClient()
        XCTAssertEqual(client.enqueue(Self.state(.playing), snapshot: snapshots.make), 1)
        outlet.backUp()
        for i in 0..<EventClient.queueLimit {
            XCTAssertEqual(client.enqueue(Self.seek(Double(i)), snapshot: snapshots.make), 0)
        }
        XCTAssertEqual(client.overflows, 0, "exactly queueLimit events still fit")
        // One more: the queue is dropped and the client is marked for a fresh snapshot.
        XCTAssertEqual(client.enqueue(Self.seek(999), snapshot: snapshots.make), 0)
        XCTAssertEqual(client.overflows, 1)
        XCTAssertTrue(client.hasBacklog)
        // What comes while it waits is superseded by that snapshot too.
        _ = client.enqueue(Self.state(.paused, .playing), snapshot: snapshots.make)
        _ = client.enqueue(Self.position(5), snapshot: snapshots.make)
        XCTAssertEqual(outlet.written.count, 1, "nothing written while backed up")
        XCTAssertEqual(snapshots.calls, 0, "the snapshot is taken when it is sent, not before")

        outlet.drain()
        snapshots.state = .paused
        XCTAssertEqual(client.flush(snapshot: snapshots.make), 1)
        XCTAssertEqual(outlet.types, ["state", "snapshot"])
        XCTAssertEqual(outlet.seqs, [1, 2], "seq continues across the overflow")
        XCTAssertEqual((outlet.frames[1]["data"] as? [String: Any])?["state"] as? String, "paused", "the snapshot is current")
        XCTAssertEqual(snapshots.calls, 1)
        XCTAssertFalse(client.hasBacklog)

        // Afterwards events flow normally again.
        XCTAssertEqual(client.enqueue(.eos, snapshot: snapshots.make), 1)
        XCTAssertEqual(outlet.types.last, "eos")
        XCTAssertEqual(outlet.seqs.last, 3)
    }

    @GLibActor
    func testSecondOverflowCountsAgain() async {
        let (client, outlet, snapshots) = makeClient()
        for _ in 0..<2 {
            outlet.backUp()
            for i in 0...EventClient.queueLimit { _ = client.enqueue(Self.seek(Double(i)), snapshot: snapshots.make) }
            outlet.drain()
            XCTAssertEqual(client.flush(snapshot: snapshots.make), 1)
        }
        XCTAssertEqual(client.overflows, 2)
        XCTAssertEqual(outlet.types, ["snapshot", "snapshot"])
        XCTAssertEqual(outlet.seqs, [1, 2])
    }

    @GLibActor
    func testLatestValueEventsReplaceQueuedOnesOfTheSameType() async {
        let (client, outlet, snapshots) = makeClient()
        outlet.backUp()
        _ = client.enqueue(Self.position(1), snapshot: snapshots.make)
        _ = client.enqueue(Self.state(.playing), snapshot: snapshots.make)
        _ = client.enqueue(Self.position(2), snapshot: snapshots.make)
        _ = client.enqueue(.buffering(BufferingUpdate(percent: 10)), snapshot: snapshots.make)
        _ = client.enqueue(Self.seek(7), snapshot: snapshots.make)
        _ = client.enqueue(Self.position(3), snapshot: snapshots.make)
        _ = client.enqueue(.buffering(BufferingUpdate(percent: 60)), snapshot: snapshots.make)
        _ = client.enqueue(Self.seek(8), snapshot: snapshots.make)  // not latest-value: both kept
        XCTAssertTrue(outlet.written.isEmpty)

        outlet.drain()
        XCTAssertEqual(client.flush(snapshot: snapshots.make), 5)
        let frames = outlet.frames
        XCTAssertEqual(outlet.types.filter { $0 == "position" }.count, 1)
        XCTAssertEqual(outlet.types.filter { $0 == "buffering" }.count, 1)
        XCTAssertEqual(outlet.types.filter { $0 == "seek" }.count, 2)
        XCTAssertEqual(outlet.types.filter { $0 == "state" }.count, 1)
        let data = frames.map { $0["data"] as? [String: Any] ?? [:] }
        XCTAssertEqual(zip(outlet.types, data).first { $0.0 == "position" }?.1["position"] as? Double, 3, "the newest position")
        XCTAssertEqual(zip(outlet.types, data).first { $0.0 == "buffering" }?.1["percent"] as? Int, 60, "the newest buffering")
        XCTAssertEqual(zip(outlet.types, data).filter { $0.0 == "seek" }.map { $0.1["position"] as? Double }, [7, 8])
        XCTAssertEqual(outlet.seqs, [1, 2, 3, 4, 5])
    }

    @GLibActor
    func testLatestValueReplacementAvoidsOverflow() async {
        let (client, outlet, snapshots) = makeClient()
        outlet.backUp()
        for i in 0..<(EventClient.queueLimit * 3) { _ = client.enqueue(Self.position(Double(i)), snapshot: snapshots.make) }
        XCTAssertEqual(client.overflows, 0)
        outlet.drain()
        XCTAssertEqual(client.flush(snapshot: snapshots.make), 1)
        XCTAssertEqual(outlet.types, ["position"])
        XCTAssertEqual((outlet.frames[0]["data"] as? [String: Any])?["position"] as? Double, Double(EventClient.queueLimit * 3 - 1))
    }

    @GLibActor
    func testFlushStopsWhenTheSocketFillsUp() async {
        let (client, outlet, snapshots) = makeClient()
        outlet.backUp()
        for p in 1...5 { _ = client.enqueue(Self.seek(Double(p)), snapshot: snapshots.make) }
        outlet.drain()
        outlet.bytesPerWrite = EventClient.backlogLimit / 2
        XCTAssertEqual(client.flush(snapshot: snapshots.make), 2)
        XCTAssertTrue(client.hasBacklog)
        outlet.drain()
        outlet.bytesPerWrite = 0
        XCTAssertEqual(client.flush(snapshot: snapshots.make), 3)
        XCTAssertEqual(outlet.seqs, [1, 2, 3, 4, 5])
        XCTAssertFalse(client.hasBacklog)
    }

    @GLibActor
    func testRepliesHaveNoSeqAndAreNeverHeldBack() async {
        let (client, outlet, snapshots) = makeClient()
        _ = client.enqueue(.snapshot(snapshots.make()), snapshot: snapshots.make)
        client.reply(WebSocketReply(id: .number(7)))
        _ = client.enqueue(Self.state(.playing), snapshot: snapshots.make)
        outlet.backUp()
        client.reply(WebSocketReply(id: .string("a"), error: APIError(.notSeekable, "no")))
        XCTAssertEqual(outlet.written.count, 4, "a reply is written even while backed up")
        XCTAssertEqual(outlet.written[1], #"{"id":7,"ok":true}"#)
        XCTAssertNil(outlet.frames[1]["seq"])
        XCTAssertNil(outlet.frames[3]["seq"])
        XCTAssertEqual(outlet.frames[3]["ok"] as? Bool, false)
        XCTAssertEqual((outlet.frames[3]["error"] as? [String: Any])?["code"] as? String, "not_seekable")
        XCTAssertEqual(outlet.seqs, [1, 2], "replies do not use up seq numbers")
    }
}
