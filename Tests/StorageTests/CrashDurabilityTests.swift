import Foundation
import XCTest
@testable import Storage

/// `append` promises the event is on disk when it returns. These tests check the promise the
/// two ways a process can stop without closing the database: a snapshot of the files as a
/// crash leaves them (nothing checkpointed, the events only in the WAL), and a real SIGKILL of
/// a child process in the middle of appending.
final class CrashDurabilityTests: TempDirTestCase {
    static let childDirectoryKey = "MARQUEE_STORAGE_CRASH_CHILD_DIR"

    func testSnapshotOfDatabaseAndWALHasEveryAppendedEvent() throws {
        let live = try openDatabase("live.sqlite3")
        let outbox = try AnalyticsOutbox(database: live)
        // Few enough that the WAL stays under its 1000-page autocheckpoint: every event is in
        // the WAL only, as after a crash between checkpoints.
        let acknowledged = try (0..<100).map { try outbox.append(event: event($0), kind: "e") }

        let files = FileManager.default
        let walSize = try files.attributesOfItem(atPath: path("live.sqlite3") + "-wal")[.size] as? Int ?? 0
        XCTAssertGreaterThan(walSize, 0)
        // The -shm index is rebuilt from the WAL on open (after a crash it is stale anyway).
        let crashed = directory.appendingPathComponent("crashed")
        let mainOnly = directory.appendingPathComponent("main-only")
        for folder in [crashed, mainOnly] { try files.createDirectory(at: folder, withIntermediateDirectories: false) }
        for suffix in ["", "-wal"] {
            try files.copyItem(atPath: path("live.sqlite3") + suffix,
                               toPath: crashed.appendingPathComponent("db.sqlite3").path + suffix)
        }
        try files.copyItem(atPath: path("live.sqlite3"), toPath: mainOnly.appendingPathComponent("db.sqlite3").path)
        withExtendedLifetime(live) {}  // copied while still open: no close, no checkpoint

        let recovered = try AnalyticsOutbox(database: SQLiteDatabase(path: crashed.appendingPathComponent("db.sqlite3").path))
        let pending = try recovered.nextPending(limit: 1000)
        XCTAssertEqual(pending.map(\.seq), acknowledged)
        XCTAssertEqual(pending.map(\.body), (0..<100).map(event))
        XCTAssertEqual(try recovered.counters().pending, 100)

        // Control: without its WAL the main file has none of them, so the check above really
        // exercised recovery from the WAL.
        let withoutWAL = try AnalyticsOutbox(database: SQLiteDatabase(path: mainOnly.appendingPathComponent("db.sqlite3").path))
        XCTAssertEqual(try withoutWAL.nextPending(limit: 1000).count, 0)
    }

    #if os(Linux)
    /// Runs this test binary again as a child that appends until killed, reads the seqs it
    /// acknowledges, SIGKILLs it mid-stream, and checks every acknowledged event is in the file.
    func testEventsAcknowledgedBeforeSIGKILLAreKept() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = ["StorageTests.CrashChild/testChildAppendsUntilKilled"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.childDirectoryKey] = directory.path
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let pid = process.processIdentifier
        // Should the child never print (a broken build), the blocking read below must end.
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
        defer { watchdog.cancel() }

        var acknowledged: [Int64] = []
        var buffer = Data()
        while acknowledged.count < 50 {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }  // EOF: the child ended on its own
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                if line.hasPrefix("SEQ "), let seq = Int64(line.dropFirst(4)) { acknowledged.append(seq) }
            }
        }
        if process.isRunning { kill(pid, SIGKILL) }
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal, "the child died by SIGKILL, not by itself")
        XCTAssertGreaterThanOrEqual(acknowledged.count, 50)

        let outbox = try AnalyticsOutbox(database: SQLiteDatabase(path: directory.appendingPathComponent("crash.sqlite3").path))
        let pending = try outbox.nextPending(limit: 100_000)
        // Every acknowledged event is there; the child may have committed a few more after its
        // last complete line, so the file holds a contiguous run from 1 at least that long.
        XCTAssertEqual(Array(pending.map(\.seq).prefix(acknowledged.count)), acknowledged)
        XCTAssertEqual(pending.map(\.seq), Array(1...Int64(pending.count)))
        XCTAssertEqual(pending.map(\.body), (0..<pending.count).map(event))
        XCTAssertEqual(try outbox.counters().pending, pending.count)
        XCTAssertEqual(try outbox.append(event: event(-1), kind: "e"), Int64(pending.count) + 1)
    }
    #endif
}

/// The child half of `testEventsAcknowledgedBeforeSIGKILLAreKept`; skips in a normal run.
final class CrashChild: XCTestCase {
    func testChildAppendsUntilKilled() throws {
        guard let folder = ProcessInfo.processInfo.environment[CrashDurabilityTests.childDirectoryKey] else {
            throw XCTSkip("runs only as the child of CrashDurabilityTests")
        }
        let outbox = try AnalyticsOutbox(database: SQLiteDatabase(path: folder + "/crash.sqlite3"))
        for n in 0..<100_000 {
            let seq = try outbox.append(event: event(n), kind: "e")
            // Printed only after append returned: the parent counts these as acknowledged.
            FileHandle.standardOutput.write(Data("SEQ \(seq)\n".utf8))
        }
    }
}
