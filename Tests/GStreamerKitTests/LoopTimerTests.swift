import GLibTestSupport
import GLibRuntime
import XCTest

@GLibActor
private final class Counter {
    var value = 0
}

final class LoopTimerTests: XCTestCase {
    override class func setUp() {
        super.setUp()
        MainLoop.startOnHelperThreadOnce()
    }

    @GLibActor
    func testTicksRepeatedlyAndStopsAfterCancel() async throws {
        let ticks = Counter()
        let timer = LoopTimer(milliseconds: 10) {
            GLibExecutor.shared.checkIsolated()
            ticks.value += 1
        }
        let ticked = try await eventually(timeout: 3) { ticks.value >= 3 }
        XCTAssertTrue(ticked, "only \(ticks.value) ticks")
        timer.cancel()
        let afterCancel = ticks.value
        try await Task.sleep(for: .milliseconds(60))
        XCTAssertEqual(ticks.value, afterCancel)
        timer.cancel()  // idempotent
    }

    @GLibActor
    func testRunAfterRunsOnce() async throws {
        let runs = Counter()
        let id = runAfter(milliseconds: 10) { runs.value += 1 }
        XCTAssertNotEqual(id, 0)
        XCTAssertEqual(runs.value, 0, "not run inline")
        let ran = try await eventually(timeout: 3) { runs.value > 0 }
        XCTAssertTrue(ran)
        try await Task.sleep(for: .milliseconds(60))
        XCTAssertEqual(runs.value, 1)
    }
}
