import Foundation
import GLibRuntime
import GStreamerKit
import XCTest

/// Base class for tests on the GLib thread: GStreamer initialised and the GLib loop running
/// on its helper thread before any test hops onto `GLibActor` (otherwise that hop waits
/// forever).
open class GStreamerTestCase: XCTestCase {
    override open class func setUp() {
        super.setUp()
        GStreamer.initialize()
        MainLoop.startOnHelperThreadOnce()
    }
}

/// Polls `condition` every 20 ms (yielding the GLib thread so timers, bus watches and
/// servers on it run) until it holds or `timeout` seconds pass. Returns whether it held.
@GLibActor
public func eventually(timeout: Double = 5, _ condition: @GLibActor () -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() >= deadline { return false }
        try await Task.sleep(for: .milliseconds(20))
    }
    return true
}
