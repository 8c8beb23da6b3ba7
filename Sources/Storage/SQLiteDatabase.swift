import CSQLite
import FoundationEssentials

/// The owner of one SQLite connection (`sqlite3*`) to one database file.
///
/// Opening sets the settings durability depends on and checks the file, so trouble shows at
/// start with a clear error instead of on the first write:
/// - `journal_mode=WAL`: a commit appends to the -wal file; readers never block the writer.
/// - `synchronous=FULL`: each commit fsyncs the WAL before returning, so a committed row
///   survives power loss, not only a crash of the process (WAL's NORMAL would lose the last
///   commits on power loss).
/// - `foreign_keys=ON` (SQLite's default is off, per connection).
/// - a busy timeout: waits for another connection's lock instead of failing at once.
/// - `PRAGMA quick_check`: a damaged file fails with `.corrupt` (O(size), milliseconds for
///   the few megabytes the daemon keeps).
/// - a `BEGIN IMMEDIATE` probe: when another process holds the write lock past the timeout
///   (a second marquee on the same data folder), open fails with `.locked`.
///
/// Threading: not thread-safe, and not Sendable. One instance belongs to one thread; the
/// daemon uses it from its GLib thread only. Statements it prepares must stay on that thread.
/// Ownership: the connection closes in `close()` or `deinit`; statements keep the database
/// alive (each holds a strong reference), so closing never invalidates a live statement.
public final class SQLiteDatabase {
    public let path: String
    private var handle: OpaquePointer?

    public static let defaultBusyTimeout: Duration = .milliseconds(2000)

    /// Opens (creating if absent) the database at `path`. The folder must exist: the caller
    /// owns the data directory and its permissions.
    /// - Throws: `StorageError` with kind `.cannotOpen`, `.corrupt`, `.locked` or `.sqlite`.
    public init(path: String, busyTimeout: Duration = SQLiteDatabase.defaultBusyTimeout) throws {
        self.path = path
        var db: OpaquePointer?
        // No NOMUTEX: the library's default (serialized) costs nothing measurable here and keeps
        // a misuse from another thread from corrupting SQLite's own state.
        let rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            // A failed open may still allocate a handle, which must be closed.
            sqlite3_close_v2(db)
            throw StorageError(code: rc, message: message, context: "open \(path)")
        }
        handle = db
        do {
            try configure(busyTimeout: busyTimeout)
        } catch let error as StorageError where error.kind == .locked {
            // Any step can meet the lock: the write probe in configure (WAL mode), the integrity check or the
            // switch to WAL when another process holds a file still in rollback mode.
            close()
            throw StorageError(kind: .locked, code: error.code,
                               message: "\(error.message); another process holds the write lock "
                                   + "(is another marquee using the same data folder?)",
                               context: "open \(path)")
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Closes the connection. Idempotent. Later calls on this object throw "database is
    /// closed"; a statement still alive stays usable, and SQLite frees the connection when the
    /// last such statement is finalized (sqlite3_close_v2).
    public func close() {
        guard let db = handle else { return }
        handle = nil
        sqlite3_close_v2(db)
    }

    public var isOpen: Bool { handle != nil }

    private func configure(busyTimeout: Duration) throws {
        let db = try connection()
        // Extended codes say more (SQLITE_BUSY_RECOVERY, SQLITE_IOERR_FSYNC, ...).
        sqlite3_extended_result_codes(db, 1)
        let ms = busyTimeout.components.seconds * 1000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(db, Int32(clamping: ms))

        // The integrity check runs first: on a file that is not a database every later pragma
        // would fail too, with a less helpful context.
        try checkIntegrity()

        let mode = try query("PRAGMA journal_mode=WAL") { $0.string(0) }.first ?? nil
        guard mode?.lowercased() == "wal" else {
            throw StorageError(kind: .sqlite, message: "journal_mode is \(mode ?? "unknown"), expected wal",
                               context: "open \(path)")
        }
        try execute("PRAGMA synchronous=FULL")
        try execute("PRAGMA foreign_keys=ON")

        // Readers never block in WAL mode, so only a write shows that another process holds
        // the database: take the write lock once and release it.
        try execute("BEGIN IMMEDIATE")
        try execute("ROLLBACK")
    }

    /// Runs `PRAGMA quick_check` and throws `.corrupt` unless it answers "ok".
    private func checkIntegrity() throws {
        let rows: [String]
        do {
            rows = try query("PRAGMA quick_check(10)") { $0.string(0) ?? "" }
        } catch let error as StorageError where error.kind == .corrupt {
            throw StorageError(kind: .corrupt, code: error.code,
                               message: "\(error.message); the file is damaged or not a database "
                                   + "(move it aside to start with an empty one)",
                               context: "open \(path)")
        }
        guard rows == ["ok"] else {
            // One line for the log: SQLite puts several findings in a row, one per line.
            let findings = rows.flatMap { $0.split(separator: "\n") }.filter { !$0.hasPrefix("*** in database") }
            let summary = findings.prefix(3).joined(separator: "; ") + (findings.count > 3 ? "; ..." : "")
            throw StorageError(kind: .corrupt, code: SQLITE_CORRUPT,
                               message: "integrity check failed: \(summary) "
                                   + "(move the file aside to start with an empty one)",
                               context: "open \(path)")
        }
    }

    // MARK: Running SQL

    /// Prepares one statement.
    public func prepare(_ sql: String) throws -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// Runs one or more statements without parameters (schema, pragmas, BEGIN/COMMIT).
    public func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(try connection(), sql, nil, nil, &errorMessage)
        defer { sqlite3_free(errorMessage) }
        guard rc == SQLITE_OK else {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            throw StorageError(code: rc, message: message, context: "execute \(Statement.abbreviate(sql))")
        }
    }

    /// Runs one write statement with parameters and returns how many rows it changed.
    @discardableResult
    public func run(_ sql: String, _ values: SQLiteValue...) throws -> Int {
        let statement = try prepare(sql)
        try statement.bind(values)
        try statement.step()
        return changes
    }

    /// Runs one query and maps each row.
    public func query<T>(_ sql: String, _ values: SQLiteValue..., row: (Statement) throws -> T) throws -> [T] {
        let statement = try prepare(sql)
        try statement.bind(values)
        var rows: [T] = []
        while try statement.step() { rows.append(try row(statement)) }
        return rows
    }

    /// The first column of the first row as an integer; nil when there is no row or it is NULL.
    public func scalarInt64(_ sql: String, _ values: SQLiteValue...) throws -> Int64? {
        let statement = try prepare(sql)
        try statement.bind(values)
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return statement.int64(0)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE on this connection.
    public var changes: Int { handle.map { Int(sqlite3_changes64($0)) } ?? 0 }

    /// The rowid of the last successful INSERT on this connection.
    public var lastInsertRowID: Int64 { handle.map { sqlite3_last_insert_rowid($0) } ?? 0 }

    /// True while a transaction is open on this connection.
    public var isInTransaction: Bool { handle.map { sqlite3_get_autocommit($0) == 0 } ?? false }

    // MARK: Transactions

    /// Runs `body` in a write transaction: `BEGIN IMMEDIATE` (takes the write lock up front, so
    /// a busy database fails here, within the busy timeout, rather than at the first write),
    /// `COMMIT` when `body` returns, `ROLLBACK` when it throws. The commit is durable when this
    /// returns (synchronous=FULL).
    ///
    /// Nested calls become savepoints, so a store method that opens its own transaction can run
    /// inside a caller's larger one.
    @discardableResult
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        if isInTransaction { return try savepoint(body) }
        try execute("BEGIN IMMEDIATE")
        let result: T
        do {
            result = try body()
            try execute("COMMIT")
        } catch {
            // After a failed COMMIT the transaction is still open; after some errors SQLite has
            // already rolled back, and a second ROLLBACK would fail: both are fine to ignore.
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
        return result
    }

    private func savepoint<T>(_ body: () throws -> T) throws -> T {
        try execute("SAVEPOINT nested")
        do {
            let result = try body()
            try execute("RELEASE nested")
            return result
        } catch {
            // ROLLBACK TO undoes the savepoint's work but leaves it open; RELEASE closes it.
            try? execute("ROLLBACK TO nested")
            try? execute("RELEASE nested")
            throw error
        }
    }

    // MARK: Internals

    func connection() throws -> OpaquePointer {
        guard let handle else {
            throw StorageError(kind: .sqlite, code: SQLITE_MISUSE, message: "database is closed", context: path)
        }
        return handle
    }

    /// An error for `rc` with the connection's current message.
    func error(_ rc: Int32, _ context: String) -> StorageError {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
        // sqlite3_extended_errcode gives the extended form when the caller only had the primary.
        let code = handle.map { sqlite3_extended_errcode($0) }.flatMap { $0 & 0xff == rc & 0xff ? $0 : nil } ?? rc
        return StorageError(code: code, message: message, context: context)
    }
}
