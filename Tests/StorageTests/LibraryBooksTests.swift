import Foundation
import XCTest
@testable import Storage

final class LibraryBooksTests: TempDirTestCase {
    private let clock = ManualClock()

    private func openBooks(_ name: String = "test.sqlite3") throws -> LibraryBooks {
        let clock = self.clock
        return try LibraryBooks(database: openDatabase(name), clock: { clock.now })
    }

    private func item(_ id: String = "lib-0123456789ab", contentId: String = "movie", userId: String = "alice",
                      files: [LibraryFileRecord] = []) -> LibraryItemRecord {
        LibraryItemRecord(id: id, contentId: contentId, userId: userId, title: "A Film", uri: "https://cdn.example/a.mp4",
                          kind: .file, options: #"{"variant":"highest"}"#, sealedHeaders: Data([1, 2, 3]),
                          wrappedKey: Data(repeating: 9, count: 60), totalBytes: 5_000_000, createdAt: clock.now,
                          license: .init(expires: Date(timeIntervalSince1970: 1_800_000_000), maxPlays: 3, maxPlayTime: 600),
                          files: files)
    }

    private func file(_ name: String = "media", role: LibraryFileRecord.Role = .media, position: Int = 0) -> LibraryFileRecord {
        LibraryFileRecord(name: name, role: role, position: position, remoteURI: "https://cdn.example/\(name)",
                          iv: Data(repeating: UInt8(position), count: 16), totalBytes: 5_000_000)
    }

    private func sha(_ byte: UInt8) -> Data { Data(repeating: byte, count: 32) }

    func testInsertAndLoadRoundTrip() throws {
        let books = try openBooks()
        XCTAssertEqual(try books.loadAll(), [])
        let first = item(files: [file("media")])
        try books.insert(first)
        clock.advance(10)
        var second = item("lib-bbbbbbbbbbbb", contentId: "show", userId: "",
                          files: [file("seg-2", role: .segment, position: 2), file("index", role: .playlist, position: 0),
                                  file("seg-1", role: .segment, position: 1)])
        second.kind = .hls
        second.title = nil
        second.sealedHeaders = nil
        second.totalBytes = nil
        second.license = .init()
        second.createdAt = clock.now
        try books.insert(second)

        let loaded = try books.loadAll()
        XCTAssertEqual(loaded.map(\.id), [first.id, second.id], "oldest first")
        XCTAssertEqual(loaded[0], first)
        XCTAssertEqual(loaded[1].files.map(\.name), ["index", "seg-1", "seg-2"], "in download order")
        var expected = second
        expected.files = [second.files[1], second.files[2], second.files[0]]
        XCTAssertEqual(loaded[1], expected)
        XCTAssertEqual(try books.load(id: second.id), expected)
        XCTAssertNil(try books.load(id: "lib-000000000000"))
    }

    func testOneItemPerContentAndUser() throws {
        let books = try openBooks()
        try books.insert(item())
        let error = assertStorageError(try books.insert(item("lib-cccccccccccc")))
        XCTAssertEqual(error?.code, 2067, "SQLITE_CONSTRAINT_UNIQUE")
        XCTAssertNoThrow(try books.insert(item("lib-dddddddddddd", userId: "bob")))
        XCTAssertNoThrow(try books.insert(item("lib-eeeeeeeeeeee", userId: "")))
        XCTAssertEqual(try books.loadAll().count, 3)
    }

    func testStateErrorAndCompletion() throws {
        let books = try openBooks()
        try books.insert(item())
        let id = item().id
        XCTAssertTrue(try books.updateState(id: id, state: .downloading))
        XCTAssertTrue(try books.updateState(id: id, state: .failed,
                                            failure: .init(code: "origin_error", message: "the origin answered 503")))
        var loaded = try XCTUnwrap(books.load(id: id))
        XCTAssertEqual(loaded.state, .failed)
        XCTAssertEqual(loaded.failure, .init(code: "origin_error", message: "the origin answered 503"))
        XCTAssertNil(loaded.completedAt)

        clock.advance(100)
        let completedAt = clock.now
        XCTAssertTrue(try books.updateState(id: id, state: .complete))
        clock.advance(100)
        XCTAssertTrue(try books.updateState(id: id, state: .complete))
        loaded = try XCTUnwrap(books.load(id: id))
        XCTAssertNil(loaded.failure, "a new state without a failure clears it")
        XCTAssertEqual(loaded.completedAt, completedAt, "stamped once")
        XCTAssertTrue(try books.updateState(id: id, state: .queued))
        XCTAssertNil(try books.load(id: id)?.completedAt, "not complete any more")
        XCTAssertFalse(try books.updateState(id: "lib-unknown", state: .paused))
    }

    func testTotals() throws {
        let books = try openBooks()
        try books.insert(item(files: [file()]))
        XCTAssertTrue(try books.updateTotalBytes(id: item().id, totalBytes: 42))
        XCTAssertTrue(try books.updateFileTotalBytes(itemId: item().id, name: "media", totalBytes: 41))
        XCTAssertEqual(try books.load(id: item().id)?.totalBytes, 42)
        XCTAssertEqual(try books.load(id: item().id)?.files.first?.totalBytes, 41)
        XCTAssertTrue(try books.updateTotalBytes(id: item().id, totalBytes: nil))
        XCTAssertNil(try books.load(id: item().id)?.totalBytes)
        XCTAssertFalse(try books.updateTotalBytes(id: "lib-unknown", totalBytes: 1))
        XCTAssertFalse(try books.updateFileTotalBytes(itemId: item().id, name: "other", totalBytes: 1))
        XCTAssertEqual(assertStorageError(try books.updateTotalBytes(id: item().id, totalBytes: -1))?.kind, .invalidArgument)
    }

    func testFileProgressChunksAndReset() throws {
        let books = try openBooks()
        let id = item().id
        try books.insert(item(files: [file("a"), file("b", position: 1)]))
        try books.recordFileProgress(itemId: id, name: "a", storedBytes: 1 << 20, newChunks: [.init(index: 0, sha256: sha(1))])
        try books.recordFileProgress(itemId: id, name: "a", storedBytes: 2 << 20 + 5, newChunks: [.init(index: 1, sha256: sha(2))])
        try books.recordFileProgress(itemId: id, name: "b", storedBytes: 7, newChunks: [])
        var loaded = try XCTUnwrap(books.load(id: id))
        XCTAssertEqual(loaded.files.map(\.storedBytes), [2 << 20 + 5, 7])
        XCTAssertEqual(loaded.files.map(\.complete), [false, false])
        XCTAssertEqual(loaded.storedBytes, 2 << 20 + 12)
        XCTAssertEqual(try books.chunkChecksums(itemId: id, name: "a"), [sha(1), sha(2)])
        XCTAssertEqual(try books.chunkChecksums(itemId: id, name: "b"), [])

        try books.recordFileProgress(itemId: id, name: "a", storedBytes: 2 << 20 + 10,
                                     newChunks: [.init(index: 2, sha256: sha(3))], complete: true)
        loaded = try XCTUnwrap(books.load(id: id))
        XCTAssertEqual(loaded.files[0].complete, true)
        XCTAssertEqual(try books.chunkChecksums(itemId: id, name: "a"), [sha(1), sha(2), sha(3)])

        try books.resetFile(itemId: id, name: "a")
        loaded = try XCTUnwrap(books.load(id: id))
        XCTAssertEqual(loaded.files[0].storedBytes, 0)
        XCTAssertEqual(loaded.files[0].complete, false)
        XCTAssertEqual(try books.chunkChecksums(itemId: id, name: "a"), [])
        XCTAssertEqual(loaded.files[1].storedBytes, 7, "the other file is untouched")

        XCTAssertEqual(assertStorageError(try books.recordFileProgress(itemId: id, name: "zzz", storedBytes: 1, newChunks: []))?.kind,
                       .invalidArgument)
        XCTAssertEqual(assertStorageError(try books.resetFile(itemId: "lib-unknown", name: "a"))?.kind, .invalidArgument)
        XCTAssertEqual(assertStorageError(try books.recordFileProgress(itemId: id, name: "a", storedBytes: -1, newChunks: []))?.kind,
                       .invalidArgument)
    }

    /// The offset and the chunks are one transaction: a failure in the middle records neither.
    func testFileProgressIsAllOrNothing() throws {
        let books = try openBooks()
        let id = item().id
        try books.insert(item(files: [file("a")]))
        try books.recordFileProgress(itemId: id, name: "a", storedBytes: 100, newChunks: [])
        XCTAssertNotNil(assertStorageError(try books.recordFileProgress(
            itemId: id, name: "a", storedBytes: 3 << 20,
            newChunks: [.init(index: 0, sha256: sha(1)), .init(index: -1, sha256: sha(2))])))
        XCTAssertEqual(try books.load(id: id)?.files[0].storedBytes, 100)
        XCTAssertEqual(try books.chunkChecksums(itemId: id, name: "a"), [])
    }

    func testAMissingChunkReadsAsEmptySoVerificationFailsThere() throws {
        let books = try openBooks()
        let id = item().id
        try books.insert(item(files: [file("a")]))
        try books.recordFileProgress(itemId: id, name: "a", storedBytes: 3 << 20,
                                     newChunks: [.init(index: 0, sha256: sha(1)), .init(index: 2, sha256: sha(3))])
        XCTAssertEqual(try books.chunkChecksums(itemId: id, name: "a"), [sha(1), Data(), sha(3)])
    }

    func testAddFilesLater() throws {
        let books = try openBooks()
        let id = item().id
        try books.insert(item())
        try books.addFiles([file("index", role: .playlist), file("seg-0", role: .segment, position: 1)], to: id)
        try books.addFiles([file("key", role: .key, position: 2)], to: id)
        XCTAssertEqual(try books.load(id: id)?.files.map(\.role), [.playlist, .segment, .key])
        XCTAssertNotNil(assertStorageError(try books.addFiles([file("index")], to: id)), "a name once per item")
        XCTAssertNotNil(assertStorageError(try books.addFiles([file("x")], to: "lib-unknown")), "foreign key")
    }

    func testDeleteCascadesToFilesAndChunks() throws {
        let books = try openBooks()
        let id = item().id
        try books.insert(item(files: [file("a"), file("b")]))
        try books.insert(item("lib-bbbbbbbbbbbb", contentId: "other", files: [file("a")]))
        try books.recordFileProgress(itemId: id, name: "a", storedBytes: 1 << 20, newChunks: [.init(index: 0, sha256: sha(1))])
        try books.recordFileProgress(itemId: "lib-bbbbbbbbbbbb", name: "a", storedBytes: 1 << 20,
                                     newChunks: [.init(index: 0, sha256: sha(2))])
        XCTAssertTrue(try books.delete(id: id))
        XCTAssertFalse(try books.delete(id: id))
        XCTAssertEqual(try books.loadAll().map(\.id), ["lib-bbbbbbbbbbbb"])
        let database = books.database
        XCTAssertEqual(try database.scalarInt64("SELECT count(*) FROM library_files WHERE item_id = ?", .text(id)), 0)
        XCTAssertEqual(try database.scalarInt64("SELECT count(*) FROM library_chunks WHERE item_id = ?", .text(id)), 0)
        XCTAssertEqual(try books.chunkChecksums(itemId: "lib-bbbbbbbbbbbb", name: "a"), [sha(2)])
        // The same content can be added again.
        XCTAssertNoThrow(try books.insert(item()))
    }

    func testPlaysPlayTimeAndLicenceRenewal() throws {
        let books = try openBooks()
        let id = item().id
        try books.insert(item())
        XCTAssertEqual(try books.addPlay(id: id), 1)
        XCTAssertEqual(try books.addPlay(id: id), 2)
        XCTAssertEqual(try books.addPlayTime(id: id, seconds: 12.5), 12.5)
        XCTAssertEqual(try books.addPlayTime(id: id, seconds: 30), 42.5)
        XCTAssertNil(try books.addPlay(id: "lib-unknown"))
        XCTAssertNil(try books.addPlayTime(id: "lib-unknown", seconds: 1))
        XCTAssertEqual(assertStorageError(try books.addPlayTime(id: id, seconds: .nan))?.kind, .invalidArgument)
        XCTAssertEqual(assertStorageError(try books.addPlayTime(id: id, seconds: -1))?.kind, .invalidArgument)

        let renewed = LibraryItemRecord.LicenseTerms(expires: Date(timeIntervalSince1970: 1_900_000_000), maxPlays: 5)
        XCTAssertTrue(try books.replaceLicense(id: id, license: renewed, resetUsage: false))
        var loaded = try XCTUnwrap(books.load(id: id))
        XCTAssertEqual(loaded.license, renewed, "replaced whole: no play-time limit any more")
        XCTAssertEqual(loaded.plays, 2)
        XCTAssertEqual(loaded.playTime, 42.5)
        XCTAssertTrue(try books.replaceLicense(id: id, license: .init(), resetUsage: true))
        loaded = try XCTUnwrap(books.load(id: id))
        XCTAssertEqual(loaded.license, .init())
        XCTAssertEqual(loaded.plays, 0)
        XCTAssertEqual(loaded.playTime, 0)
        XCTAssertFalse(try books.replaceLicense(id: "lib-unknown", license: .init(), resetUsage: true))
        XCTAssertEqual(assertStorageError(try books.replaceLicense(id: id, license: .init(maxPlays: -1), resetUsage: false))?.kind,
                       .invalidArgument)
        XCTAssertEqual(assertStorageError(try books.replaceLicense(id: id, license: .init(maxPlayTime: .infinity), resetUsage: false))?.kind,
                       .invalidArgument)
    }

    func testLatestSeenTimeOnlyMovesForward() throws {
        let books = try openBooks()
        XCTAssertNil(try books.latestSeenTime())
        let t = Date(timeIntervalSince1970: 1_750_000_000.25)
        XCTAssertEqual(try books.advanceLatestSeenTime(to: t), t)
        XCTAssertEqual(try books.advanceLatestSeenTime(to: t - 3600), t, "an earlier time does not lower it")
        XCTAssertEqual(try books.latestSeenTime(), t)
        XCTAssertEqual(try books.advanceLatestSeenTime(to: t + 60), t + 60)
        books.database.close()
        XCTAssertEqual(try openBooks().latestSeenTime(), t + 60, "kept across restarts")
    }

    /// What each call committed is in the files as a crash leaves them: the database and its
    /// WAL copied while the connection is still open (nothing checkpointed).
    func testReopenAfterASimulatedCrashKeepsWhatWasCommitted() throws {
        let books = try openBooks("live.sqlite3")
        let id = item().id
        try books.insert(item(files: [file("a")]))
        try books.updateState(id: id, state: .downloading)
        try books.recordFileProgress(itemId: id, name: "a", storedBytes: (1 << 20) + 99,
                                     newChunks: [.init(index: 0, sha256: sha(7))])
        try books.addPlay(id: id)
        try books.addPlayTime(id: id, seconds: 5)
        try books.advanceLatestSeenTime(to: clock.now)
        // Begun but never committed: must not survive.
        try books.database.execute("BEGIN IMMEDIATE")
        try books.database.run("UPDATE library_files SET stored_bytes = 999999999")

        let crashed = directory.appendingPathComponent("crashed")
        try FileManager.default.createDirectory(at: crashed, withIntermediateDirectories: false)
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: path("live.sqlite3") + suffix,
                                             toPath: crashed.appendingPathComponent("db.sqlite3").path + suffix)
        }
        withExtendedLifetime(books) {}

        let recovered = try LibraryBooks(database: SQLiteDatabase(path: crashed.appendingPathComponent("db.sqlite3").path))
        let loaded = try XCTUnwrap(recovered.load(id: id))
        XCTAssertEqual(loaded.state, .downloading)
        XCTAssertEqual(loaded.files[0].storedBytes, (1 << 20) + 99)
        XCTAssertEqual(loaded.plays, 1)
        XCTAssertEqual(loaded.playTime, 5)
        XCTAssertEqual(try recovered.chunkChecksums(itemId: id, name: "a"), [sha(7)])
        XCTAssertEqual(try recovered.latestSeenTime(), clock.now)
    }

    /// A database written by the previous build (schema 1, with data) gains the library
    /// tables and keeps its rows.
    func testMigratesAVersionOneDatabase() throws {
        do {
            let database = try openDatabase()
            try database.migrate(Array(Schema.migrations.prefix(1)))
            XCTAssertEqual(try database.userVersion(), 1)
            // Written with SQL: a store would migrate the file to the current version.
            try database.run("INSERT INTO resume_points (content_id, user_id, position, updated_at) VALUES ('c', '', 5, 1)")
        }
        let books = try openBooks()
        XCTAssertEqual(try books.database.userVersion(), 2)
        XCTAssertEqual(try ResumeStore(database: books.database).load(contentId: "c")?.position, 5)
        XCTAssertNoThrow(try books.insert(item()))
    }

    /// Two connections to one file, as the daemon has (the GLib thread's and the library's):
    /// both migrate at start, and the second finds the schema current.
    func testTwoConnectionsMigrateTheSameFile() throws {
        let first = try openDatabase()
        let second = try openDatabase()
        try first.migrate(Schema.migrations)
        XCTAssertNoThrow(try second.migrate(Schema.migrations))
        XCTAssertEqual(try second.userVersion(), 2)
        XCTAssertNoThrow(try LibraryBooks(database: second).insert(item()))
        XCTAssertEqual(try LibraryBooks(database: first).loadAll().count, 1)
    }
}
