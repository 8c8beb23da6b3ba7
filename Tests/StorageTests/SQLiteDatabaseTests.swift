import CSQLite
import Foundation
import XCTest
@testable import Storage

final class SQLiteDatabaseTests: TempDirTestCase {
    func testOpenSetsWALFullSyncAndForeignKeys() throws {
        let db = try openDatabase()
        XCTAssertEqual(try db.query("PRAGMA journal_mode") { $0.string(0) }, ["wal"])
        XCTAssertEqual(try db.scalarInt64("PRAGMA synchronous"), 2, "2 is FULL")
        XCTAssertEqual(try db.scalarInt64("PRAGMA foreign_keys"), 1)
        XCTAssertEqual(try db.scalarInt64("PRAGMA busy_timeout"), 2000)
        // WAL is persistent in the file: a second connection sees it without asking.
        db.close()
        var raw: OpaquePointer?
        XCTAssertEqual(sqlite3_open(path(), &raw), SQLITE_OK)
        defer { sqlite3_close(raw) }
        let rawDB = try XCTUnwrap(raw)
        var stmt: OpaquePointer?
        sqlite3_prepare_v2(rawDB, "PRAGMA journal_mode", -1, &stmt, nil)
        defer { sqlite3_finalize(stmt) }
        XCTAssertEqual(sqlite3_step(stmt), SQLITE_ROW)
        XCTAssertEqual(String(cString: sqlite3_column_text(stmt, 0)), "wal")
    }

    func testBindsAndReadsEveryType() throws {
        let db = try openDatabase()
        try db.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n)")
        let blob = Data([0, 1, 2, 255])
        try db.run("INSERT INTO t VALUES (?, ?, ?, ?, ?)", .integer(Int64.max), .real(-1.5), "héllo\0world", .blob(blob), nil)
        try db.run("INSERT INTO t VALUES (?, ?, ?, ?, ?)", 0, 0.0, "", .blob(Data()), .text(nil as String?))
        let rows = try db.query("SELECT i, r, s, b, n FROM t ORDER BY rowid") { s in
            (0..<s.columnCount).map { s.value($0) }
        }
        XCTAssertEqual(rows, [
            [.integer(Int64.max), .real(-1.5), .text("héllo\0world"), .blob(blob), .null],
            // Empty text and blob stay empty, not NULL.
            [.integer(0), .real(0), .text(""), .blob(Data()), .null],
        ])
        let statement = try db.prepare("SELECT s, b, n FROM t ORDER BY rowid DESC")
        XCTAssertTrue(try statement.step())
        XCTAssertEqual(statement.string(0), "")
        XCTAssertEqual(statement.data(1), Data())
        XCTAssertNil(statement.string(2))
        XCTAssertNil(statement.data(2))
        XCTAssertTrue(statement.isNull(2))
        XCTAssertEqual(statement.columnName(1), "b")
    }

    func testStatementIsReusableAfterReset() throws {
        let db = try openDatabase()
        try db.execute("CREATE TABLE t (v INTEGER)")
        let insert = try db.prepare("INSERT INTO t VALUES (?)")
        for v in 1...3 as ClosedRange<Int64> {
            try insert.bind([.integer(v)])
            XCTAssertFalse(try insert.step())
            insert.reset()
        }
        XCTAssertEqual(try db.scalarInt64("SELECT sum(v) FROM t"), 6)
    }

    func testTransactionCommitsAndRollsBack() throws {
        let db = try openDatabase()
        try db.execute("CREATE TABLE t (v INTEGER)")
        let value = try db.transaction { () -> Int in
            try db.run("INSERT INTO t VALUES (1)")
            return 42
        }
        XCTAssertEqual(value, 42)
        struct Boom: Error {}
        XCTAssertThrowsError(try db.transaction {
            try db.run("INSERT INTO t VALUES (2)")
            throw Boom()
        }) { XCTAssertTrue($0 is Boom) }
        XCTAssertFalse(db.isInTransaction)
        XCTAssertEqual(try db.query("SELECT v FROM t") { $0.int64(0) }, [1])
    }

    func testNestedTransactionIsASavepoint() throws {
        let db = try openDatabase()
        try db.execute("CREATE TABLE t (v INTEGER)")
        struct Boom: Error {}
        try db.transaction {
            try db.run("INSERT INTO t VALUES (1)")
            // The inner failure undoes only the inner work.
            XCTAssertThrowsError(try db.transaction {
                try db.run("INSERT INTO t VALUES (2)")
                throw Boom()
            })
            try db.transaction { try db.run("INSERT INTO t VALUES (3)") }
            XCTAssertTrue(db.isInTransaction)
        }
        XCTAssertEqual(try db.query("SELECT v FROM t ORDER BY v") { $0.int64(0) }, [1, 3])
    }

    func testSQLErrorCarriesMessageAndCode() throws {
        let db = try openDatabase()
        let prepareError = assertStorageError(try db.prepare("SELECT * FROM missing"))
        XCTAssertEqual(prepareError?.kind, .sqlite)
        XCTAssertEqual(prepareError?.code, SQLITE_ERROR)
        XCTAssertEqual(prepareError?.message, "no such table: missing")
        XCTAssertTrue(prepareError?.description.contains("SELECT * FROM missing") ?? false)

        try db.execute("CREATE TABLE t (v INTEGER NOT NULL)")
        let stepError = assertStorageError(try db.run("INSERT INTO t VALUES (NULL)"))
        XCTAssertEqual(stepError?.code, SQLITE_CONSTRAINT | (5 << 8), "SQLITE_CONSTRAINT_NOTNULL: an extended result code")
        XCTAssertTrue(stepError?.message.contains("NOT NULL constraint failed") ?? false)
    }

    func testForeignKeysAreEnforced() throws {
        let db = try openDatabase()
        try db.execute("CREATE TABLE parent (id INTEGER PRIMARY KEY); CREATE TABLE child (p INTEGER REFERENCES parent(id))")
        let error = assertStorageError(try db.run("INSERT INTO child VALUES (7)"))
        // SQLITE_CONSTRAINT_FOREIGNKEY (Swift does not import the extended-code macros).
        XCTAssertEqual(error?.code, SQLITE_CONSTRAINT | (3 << 8))
    }

    func testMigrationsRunOnceInOrderAndSetUserVersion() throws {
        let migrations = [
            Migration(version: 1, sql: "CREATE TABLE a (v INTEGER)"),
            Migration(version: 2, sql: "INSERT INTO a VALUES (2)"),
        ]
        do {
            let db = try openDatabase()
            XCTAssertEqual(try db.userVersion(), 0)
            try db.migrate(Array(migrations.prefix(1)))
            XCTAssertEqual(try db.userVersion(), 1)
            try db.migrate(migrations)
            try db.migrate(migrations)
            XCTAssertEqual(try db.userVersion(), 2)
        }
        let db = try openDatabase()
        XCTAssertEqual(try db.userVersion(), 2)
        XCTAssertEqual(try db.scalarInt64("SELECT count(*) FROM a"), 1, "migration 2 ran once")
    }

    func testFailedMigrationLeavesThePreviousVersion() throws {
        let db = try openDatabase()
        try db.migrate([Migration(version: 1, sql: "CREATE TABLE a (v INTEGER)")])
        XCTAssertNotNil(assertStorageError(try db.migrate([
            Migration(version: 1, sql: "CREATE TABLE a (v INTEGER)"),
            Migration(version: 2, sql: "CREATE TABLE b (v INTEGER); SELECT * FROM nowhere"),
        ])))
        XCTAssertEqual(try db.userVersion(), 1)
        XCTAssertEqual(try db.scalarInt64("SELECT count(*) FROM sqlite_master WHERE name = 'b'"), 0)
    }

    func testNewerSchemaIsRefused() throws {
        let db = try openDatabase()
        try db.execute("PRAGMA user_version = 9")
        let error = assertStorageError(try db.migrate(Schema.migrations))
        XCTAssertEqual(error?.kind, .schemaTooNew)
        XCTAssertTrue(error?.message.contains("9") ?? false)
    }

    func testMissingFolderFailsToOpen() throws {
        let error = assertStorageError(try SQLiteDatabase(path: directory.appendingPathComponent("no/such/dir/x.sqlite3").path))
        XCTAssertEqual(error?.kind, .cannotOpen)
        XCTAssertEqual(error.map { $0.code & 0xff }, SQLITE_CANTOPEN)
    }

    func testGarbageFileFailsAtOpenAsCorrupt() throws {
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: URL(fileURLWithPath: path()))
        let error = assertStorageError(try openDatabase())
        XCTAssertEqual(error?.kind, .corrupt)
        XCTAssertEqual(error?.code, SQLITE_NOTADB)
        XCTAssertTrue(error?.description.contains(path()) ?? false, error?.description ?? "")
        XCTAssertTrue(error?.message.contains("not a database") ?? false, error?.message ?? "")
    }

    func testDamagedPageFailsAtOpenAsCorrupt() throws {
        do {
            let db = try openDatabase()
            try db.execute("CREATE TABLE t (v TEXT); CREATE INDEX t_v ON t (v)")
            try db.transaction {
                for i in 0..<2000 { try db.run("INSERT INTO t VALUES (?)", .text("row \(i) " + String(repeating: "x", count: 50))) }
            }
            // Move everything into the main file, so damage there is all SQLite sees.
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path()))
        let pageSize: UInt64 = 4096
        // Pages 3 and 4: b-tree pages of the table or index, past the schema page.
        try handle.seek(toOffset: pageSize * 2 + 100)
        handle.write(Data(repeating: 0xA5, count: Int(pageSize) * 2 - 200))
        try handle.close()
        let error = assertStorageError(try openDatabase())
        XCTAssertEqual(error?.kind, .corrupt, error?.description ?? "")
        XCTAssertFalse(error?.description.contains("\n") ?? true, "one line for the log")
    }

    func testDatabaseLockedByAnotherWriterFailsAtOpen() throws {
        let holder = try openDatabase()
        try holder.execute("CREATE TABLE t (v INTEGER)")
        try holder.execute("BEGIN IMMEDIATE")
        try holder.run("INSERT INTO t VALUES (1)")

        let started = Date()
        let error = assertStorageError(try SQLiteDatabase(path: path(), busyTimeout: .milliseconds(150)))
        XCTAssertEqual(error?.kind, .locked)
        XCTAssertEqual(error.map { $0.code & 0xff }, SQLITE_BUSY)
        XCTAssertTrue(error?.message.contains("another process holds the write lock") ?? false, error?.message ?? "")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.14, "waited for the busy timeout")

        try holder.execute("COMMIT")
        XCTAssertEqual(try SQLiteDatabase(path: path()).scalarInt64("SELECT count(*) FROM t"), 1)
    }

    func testDatabaseLockedInRollbackModeFailsAtOpen() throws {
        // A file that never became WAL, held exclusively by a plain connection: here even the
        // integrity check's read waits, and open must still say "locked", not something vaguer.
        var raw: OpaquePointer?
        XCTAssertEqual(sqlite3_open(path(), &raw), SQLITE_OK)
        defer { sqlite3_close(raw) }
        XCTAssertEqual(sqlite3_exec(raw, "CREATE TABLE t (v); BEGIN EXCLUSIVE; INSERT INTO t VALUES (1)", nil, nil, nil), SQLITE_OK)

        let error = assertStorageError(try SQLiteDatabase(path: path(), busyTimeout: .milliseconds(100)))
        XCTAssertEqual(error?.kind, .locked, error?.description ?? "")
        XCTAssertTrue(error?.message.contains("another process holds the write lock") ?? false)

        XCTAssertEqual(sqlite3_exec(raw, "COMMIT", nil, nil, nil), SQLITE_OK)
        sqlite3_close(raw)
        raw = nil
        XCTAssertEqual(try SQLiteDatabase(path: path()).query("PRAGMA journal_mode") { $0.string(0) }, ["wal"])
    }

    func testClosedDatabaseThrows() throws {
        let db = try openDatabase()
        db.close()
        db.close()
        XCTAssertFalse(db.isOpen)
        XCTAssertEqual(assertStorageError(try db.execute("SELECT 1"))?.code, SQLITE_MISUSE)
    }

    func testStatementKeepsConnectionAlive() throws {
        var db: SQLiteDatabase? = try openDatabase()
        let statement = try db!.prepare("SELECT 7")
        weak let weakDB = db
        db = nil
        XCTAssertNotNil(weakDB)
        XCTAssertTrue(try statement.step())
        XCTAssertEqual(statement.int64(0), 7)
    }
}
