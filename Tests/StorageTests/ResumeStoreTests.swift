import Foundation
import XCTest
@testable import Storage

final class ResumeStoreTests: TempDirTestCase {
    private let clock = ManualClock()

    private func openStore() throws -> ResumeStore {
        let clock = self.clock
        return try ResumeStore(database: openDatabase(), clock: { clock.now })
    }

    func testRoundTripPerContentAndUser() throws {
        let store = try openStore()
        XCTAssertNil(try store.load(contentId: "movie", userId: "alice"))
        try store.save(contentId: "movie", userId: "alice", position: 61.5, duration: 5400, watched: 60)
        try store.save(contentId: "movie", userId: "", position: 10, duration: nil)
        try store.save(contentId: "show", userId: "alice", position: 3, duration: 1200)

        XCTAssertEqual(try store.load(contentId: "movie", userId: "alice"),
                       ResumePoint(contentId: "movie", userId: "alice", position: 61.5, duration: 5400,
                                   watched: 60, updatedAt: clock.now))
        let anonymous = try XCTUnwrap(try store.load(contentId: "movie"))
        XCTAssertEqual(anonymous.position, 10)
        XCTAssertNil(anonymous.duration)
        XCTAssertEqual(anonymous.watched, 0)
        XCTAssertEqual(try store.load(contentId: "show", userId: "alice")?.position, 3)
        XCTAssertNil(try store.load(contentId: "show", userId: "bob"))
    }

    func testSaveOverwritesPositionAndKeepsWatchedUnlessGiven() throws {
        let store = try openStore()
        try store.save(contentId: "c", userId: "u", position: 10, duration: 100, watched: 10)
        clock.advance(30)
        try store.save(contentId: "c", userId: "u", position: 40, duration: 100)
        var point = try XCTUnwrap(try store.load(contentId: "c", userId: "u"))
        XCTAssertEqual(point.position, 40)
        XCTAssertEqual(point.watched, 10, "nil watched keeps the total")
        XCTAssertEqual(point.updatedAt, clock.now)
        try store.save(contentId: "c", userId: "u", position: 5, duration: 100, watched: 0)
        point = try XCTUnwrap(try store.load(contentId: "c", userId: "u"))
        XCTAssertEqual(point.position, 5)
        XCTAssertEqual(point.watched, 0)
    }

    func testAddWatchedAccumulatesAndPersists() throws {
        do {
            let store = try openStore()
            XCTAssertEqual(try store.addWatched(contentId: "c", userId: "u", seconds: 12.5), 12.5)
            let created = try XCTUnwrap(try store.load(contentId: "c", userId: "u"))
            XCTAssertEqual(created.position, 0)
            XCTAssertNil(created.duration)
            try store.save(contentId: "c", userId: "u", position: 300, duration: 600)
            XCTAssertEqual(try store.addWatched(contentId: "c", userId: "u", seconds: 7.5), 20)
            XCTAssertEqual(try store.addWatched(contentId: "c", userId: "other", seconds: 1), 1)
            store.database.close()
        }
        let point = try XCTUnwrap(try openStore().load(contentId: "c", userId: "u"))
        XCTAssertEqual(point.watched, 20)
        XCTAssertEqual(point.position, 300, "adding watched time leaves the position")
        XCTAssertEqual(point.duration, 600)
    }

    func testInvalidNumbersAreRefused() throws {
        let store = try openStore()
        XCTAssertEqual(assertStorageError(try store.save(contentId: "c", position: .nan, duration: nil))?.kind, .invalidArgument)
        XCTAssertEqual(assertStorageError(try store.save(contentId: "c", position: 1, duration: .infinity))?.kind, .invalidArgument)
        XCTAssertEqual(assertStorageError(try store.addWatched(contentId: "c", seconds: -1))?.kind, .invalidArgument)
        XCTAssertNil(try store.load(contentId: "c"))
    }

    func testRemove() throws {
        let store = try openStore()
        try store.save(contentId: "c", position: 1, duration: 2)
        XCTAssertTrue(try store.remove(contentId: "c"))
        XCTAssertFalse(try store.remove(contentId: "c"))
        XCTAssertNil(try store.load(contentId: "c"))
    }
}
