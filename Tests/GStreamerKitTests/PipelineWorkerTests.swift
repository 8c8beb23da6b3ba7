import CGStreamer
import Dispatch
import Foundation
import GLibTestSupport
import GStreamerKit
import Synchronization
import XCTest

/// The worker's promise about teardowns: a pipeline that GStreamer deadlocks on its way to
/// NULL is left behind after a bounded wait, and the next pipeline still starts.
final class PipelineWorkerTests: GStreamerTestCase {
    func testAStuckTeardownIsLeftBehindAndTheNextPipelineStillStarts() throws {
        // A sink whose streaming thread is held inside a buffer probe: its pad cannot be
        // deactivated until the probe returns, so the change to NULL waits (as playbin3 1.22
        // did, for ever, in the deadlock `PipelineControl.release` describes).
        let stuck = try PipelineTemplate.parse("fakesrc ! fakesink name=sink")
        let pad = try XCTUnwrap(stuck.child(named: "sink")?.staticPad("sink"))
        gst_pad_add_probe(pad.pointer, GST_PAD_PROBE_TYPE_BUFFER, { _, _, _ in
            if !ProbeGate.entered.exchange(true, ordering: .sequentiallyConsistent) {
                ProbeGate.inside.signal()
                ProbeGate.open.wait()
            }
            return GST_PAD_PROBE_OK
        }, nil, nil)
        XCTAssertNotEqual(stuck.setState(.playing), .failure)
        XCTAssertEqual(ProbeGate.inside.wait(timeout: .now() + 5), .success, "the first buffer never reached the probe")

        let reported = DispatchSemaphore(value: 0)
        let worker = PipelineWorker(name: "test-worker") { _ in reported.signal() }
        worker.control(stuck).release()

        let next = try PipelineTemplate.parse("fakesrc num-buffers=1 ! fakesink")
        let started = Date()
        let nextControl = worker.control(next)  // jobs hold their control weakly
        nextControl.setState(.paused)
        XCTAssertEqual(reported.wait(timeout: .now() + 10), .success, "the stuck teardown was not reported")
        let deadline = Date().addingTimeInterval(5)
        while next.currentState.current != .paused && Date() < deadline { usleep(10_000) }
        let waited = Date().timeIntervalSince(started)
        XCTAssertEqual(next.currentState.current, .paused, "the next pipeline did not start after the stuck teardown")
        XCTAssertGreaterThan(waited, 2.5, "the worker should wait for a teardown before leaving it behind")
        XCTAssertLessThan(waited, 6, "the worker waited too long for a stuck teardown")

        // Once GStreamer lets go, the left-behind teardown ends on its own thread.
        ProbeGate.open.signal()
        let freed = Date().addingTimeInterval(5)
        while stuck.currentState.current != .null && Date() < freed { usleep(10_000) }
        XCTAssertEqual(stuck.currentState.current, .null)

        nextControl.release()
        worker.drain()
        XCTAssertEqual(next.currentState.current, .null)
    }
}

/// What the probe of the stuck pipeline waits on (a C callback captures nothing).
private enum ProbeGate {
    static let entered = Atomic<Bool>(false)
    static let inside = DispatchSemaphore(value: 0)
    static let open = DispatchSemaphore(value: 0)
}
