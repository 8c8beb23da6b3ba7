import Foundation
import XCTest
@testable import Storage

final class AnalyticsOutboxTests: TempDirTestCase {
    private let clock = ManualClock()

    private func openOutbox(maxPending: Int = AnalyticsOutbox.defaultMaxPending,
                            maxFailedKept: Int = AnalyticsOutbox.defaultMaxFailedKept) throws -> AnalyticsOutbox {
        let clock = self.clock
        return try AnalyticsOutbox(database: openDatabase(), maxPending: maxPending,
                                   maxFailedKept: maxFailedKept, clock: { clock.now })
    }

    func testSchemaIsCreated() throws {
        let outbox = try openOutbox()
        let tables = try outbox.database.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
            $0.string(0) ?? ""
        }
        // One file, one schema: the outbox's start creates every store's tables.
        XCTAssertEqual(Set(tables), ["analytics_outbox", "analytics_counters", "resume_points", "sqlite_sequence",
                                     "library_items", "library_files", "library_chunks", "library_meta"])
        XCTAssertEqual(try outbox.database.userVersion(), Schema.migrations.last?.version)
        XCTAssertEqual(try outbox.counters(), .init(pending: 0, sent: 0, failed: 0, dropped: 0))
        XCTAssertEqual(try outbox.lastSeq(), 0)
        XCTAssertEqual(try outbox.nextPending(limit: 10), [])
    }

    func testPendingComesBackInSeqOrderWithItsFields() throws {
        let outbox = try openOutbox()
        var seqs: [Int64] = []
        for n in 0..<5 {
            seqs.append(try outbox.append(event: event(n), kind: n.isMultiple(of: 2) ? "heartbeat" : "start"))
            clock.advance(1)
        }
        XCTAssertEqual(seqs, [1, 2, 3, 4, 5])
        let pending = try outbox.nextPending(limit: 3)
        XCTAssertEqual(pending.map(\.seq), [1, 2, 3])
        XCTAssertEqual(pending[1], .init(seq: 2, kind: "start", body: event(1), attempts: 0,
                                         createdAt: Date(timeIntervalSince1970: 1_700_000_001), lastError: nil))
        XCTAssertEqual(try outbox.nextPending(limit: 100).map(\.seq), seqs)
        XCTAssertEqual(try outbox.nextPending(limit: 0), [])
        XCTAssertEqual(assertStorageError(try outbox.nextPending(limit: -1))?.kind, .invalidArgument)
    }

    func testMarkSentRemovesAndCountsOnce() throws {
        let outbox = try openOutbox()
        for n in 0..<4 { try outbox.append(event: event(n), kind: "e") }
        XCTAssertTrue(try outbox.markSent(2))
        XCTAssertFalse(try outbox.markSent(2), "a repeated acknowledgement counts once")
        XCTAssertFalse(try outbox.markSent(99), "unknown seq")
        XCTAssertEqual(try outbox.markSent([1, 3, 3, 42]), 2)
        XCTAssertEqual(try outbox.nextPending(limit: 10).map(\.seq), [4])
        XCTAssertEqual(try outbox.counters(), .init(pending: 1, sent: 3, failed: 0, dropped: 0))
    }

    func testRecordAttemptKeepsPendingAndCountsAttempts() throws {
        let outbox = try openOutbox()
        let seq = try outbox.append(event: event(0), kind: "e")
        XCTAssertTrue(try outbox.recordAttempt(seq, error: "connection refused"))
        XCTAssertTrue(try outbox.recordAttempt(seq, error: "HTTP 503"))
        let entry = try XCTUnwrap(try outbox.nextPending(limit: 1).first)
        XCTAssertEqual(entry.attempts, 2)
        XCTAssertEqual(entry.lastError, "HTTP 503")
        XCTAssertEqual(try outbox.counters(), .init(pending: 1, sent: 0, failed: 0, dropped: 0))
        XCTAssertFalse(try outbox.recordAttempt(77, error: "x"))
    }

    func testMarkFailedKeepsReasonAndLeavesPending() throws {
        let outbox = try openOutbox()
        for n in 0..<3 { try outbox.append(event: event(n), kind: "e") }
        try outbox.recordAttempt(2, error: "timeout")
        XCTAssertTrue(try outbox.markFailed(2, reason: "HTTP 422: bad schema"))
        XCTAssertFalse(try outbox.markFailed(2, reason: "again"))
        XCTAssertFalse(try outbox.markSent(2), "a failed event is not pending")
        XCTAssertEqual(try outbox.nextPending(limit: 10).map(\.seq), [1, 3])
        let failure = try XCTUnwrap(try outbox.failures(limit: 10).first)
        XCTAssertEqual(failure.seq, 2)
        XCTAssertEqual(failure.lastError, "HTTP 422: bad schema")
        XCTAssertEqual(failure.attempts, 2)
        XCTAssertEqual(try outbox.counters(), .init(pending: 2, sent: 0, failed: 1, dropped: 0))
    }

    func testFailedRowsArePrunedButCounted() throws {
        let outbox = try openOutbox(maxFailedKept: 2)
        for n in 0..<5 { try outbox.append(event: event(n), kind: "e") }
        for seq in 1...4 as ClosedRange<Int64> { try outbox.markFailed(seq, reason: "HTTP 400 #\(seq)") }
        XCTAssertEqual(try outbox.failures(limit: 10).map(\.seq), [4, 3])
        XCTAssertEqual(try outbox.counters(), .init(pending: 1, sent: 0, failed: 4, dropped: 0))
    }

    func testDropPendingCountsDropped() throws {
        let outbox = try openOutbox()
        for n in 0..<5 { try outbox.append(event: event(n), kind: "e") }
        try outbox.markSent(1)
        try outbox.markFailed(2, reason: "HTTP 400")
        XCTAssertEqual(try outbox.dropPending(), 3)
        XCTAssertEqual(try outbox.dropPending(), 0)
        XCTAssertEqual(try outbox.nextPending(limit: 10), [])
        XCTAssertEqual(try outbox.failures(limit: 10).map(\.seq), [2], "failed rows are not pending")
        XCTAssertEqual(try outbox.counters(), .init(pending: 0, sent: 1, failed: 1, dropped: 3))
        XCTAssertEqual(try outbox.append(event: event(9), kind: "e"), 6, "seq continues after a drop")
    }

    func testBoundDropsOldestPendingAndCountsIt() throws {
        let outbox = try openOutbox(maxPending: 3)
        for n in 0..<5 { try outbox.append(event: event(n), kind: "e") }
        XCTAssertEqual(try outbox.nextPending(limit: 10).map(\.seq), [3, 4, 5])
        XCTAssertEqual(try outbox.counters(), .init(pending: 3, sent: 0, failed: 0, dropped: 2))
        XCTAssertFalse(try outbox.markSent(1), "a dropped event cannot also count as sent")
    }

    func testSeqIncreasesAcrossReopenAndIsNeverReused() throws {
        do {
            let outbox = try openOutbox()
            for n in 0..<3 { try outbox.append(event: event(n), kind: "e") }
            // Deleting the newest rows must not let their seqs come back.
            XCTAssertEqual(try outbox.markSent([2, 3]), 2)
            XCTAssertEqual(try outbox.lastSeq(), 3)
        }
        let outbox = try openOutbox()
        XCTAssertEqual(try outbox.append(event: event(3), kind: "e"), 4)
        XCTAssertEqual(try outbox.dropPending(), 2)
        let reopened = try openOutbox()
        XCTAssertEqual(try reopened.append(event: event(4), kind: "e"), 5)
    }

    func testEverythingPersistsAcrossReopen() throws {
        do {
            let outbox = try openOutbox()
            for n in 0..<6 { try outbox.append(event: event(n), kind: "k\(n)") }
            try outbox.markSent([1, 2])
            try outbox.markFailed(3, reason: "HTTP 413")
            try outbox.recordAttempt(4, error: "reset by peer")
            outbox.database.close()
        }
        let outbox = try openOutbox()
        XCTAssertEqual(try outbox.counters(), .init(pending: 3, sent: 2, failed: 1, dropped: 0))
        let pending = try outbox.nextPending(limit: 10)
        XCTAssertEqual(pending.map(\.seq), [4, 5, 6])
        XCTAssertEqual(pending.map(\.kind), ["k3", "k4", "k5"])
        XCTAssertEqual(pending.map(\.body), [event(3), event(4), event(5)])
        XCTAssertEqual(pending[0].attempts, 1)
        XCTAssertEqual(pending[0].lastError, "reset by peer")
        XCTAssertEqual(try outbox.failures(limit: 1).first?.lastError, "HTTP 413")
    }

    func testPendingCounterHealsAtOpen() throws {
        do {
            let outbox = try openOutbox()
            for n in 0..<3 { try outbox.append(event: event(n), kind: "e") }
            try outbox.database.run("UPDATE analytics_counters SET value = 99 WHERE name = 'pending'")
        }
        XCTAssertEqual(try openOutbox().counters().pending, 3)
    }

    func testEmptyBodyIsStored() throws {
        let outbox = try openOutbox()
        try outbox.append(event: Data(), kind: "")
        XCTAssertEqual(try outbox.nextPending(limit: 1).first?.body, Data())
    }

    func testDaemonStorageOpensBothStoresInOneFile() throws {
        do {
            let storage = try DaemonStorage(directory: directory.path)
            try storage.analytics.append(event: event(0), kind: "e")
            try storage.resume.save(contentId: "c", position: 12, duration: 100)
            storage.close()
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: path(DaemonStorage.fileName)))
        let storage = try DaemonStorage(directory: directory.path)
        XCTAssertEqual(try storage.analytics.counters().pending, 1)
        XCTAssertEqual(try storage.resume.load(contentId: "c")?.position, 12)
    }
}
