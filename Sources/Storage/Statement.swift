import CSQLite
import FoundationEssentials

/// One prepared statement (`sqlite3_stmt*`), finalized in `deinit`.
///
/// Ownership: holds a strong reference to its `SQLiteDatabase`, so the connection outlives
/// every statement prepared on it. Threading: like the database, not thread-safe; use it on
/// the thread that owns the database. Parameter and column indexes follow SQLite: parameters
/// count from 1, columns from 0.
public final class Statement {
    private let handle: OpaquePointer
    /// Keeps the connection open while this statement exists.
    private let database: SQLiteDatabase
    public let sql: String

    init(database: SQLiteDatabase, sql: String) throws {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(try database.connection(), sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            // A prepare that fails may still return nothing to finalize; finalize(nil) is a no-op.
            sqlite3_finalize(stmt)
            throw database.error(rc, "prepare \(Self.abbreviate(sql))")
        }
        self.handle = stmt
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    // MARK: Binding

    /// Binds every parameter in order (`?1`, `?2`, ...). Clears earlier bindings first, so a
    /// reused statement never carries a stale value into a parameter the caller left out.
    public func bind(_ values: [SQLiteValue]) throws {
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    public func bind(_ value: SQLiteValue, at index: Int32) throws {
        let rc: Int32
        switch value {
        case .integer(let v):
            rc = sqlite3_bind_int64(handle, index, v)
        case .real(let v):
            rc = sqlite3_bind_double(handle, index, v)
        case .text(let v):
            var s = v
            rc = s.withUTF8 { utf8 -> Int32 in
                // An empty buffer may have a nil base address, and SQLite binds a nil pointer
                // as NULL rather than "": give it a real empty C string instead.
                guard let base = utf8.baseAddress, !utf8.isEmpty else {
                    return sqlite3_bind_text(handle, index, "", 0, csqlite_transient)
                }
                // Explicit length, so a string with an embedded NUL is stored whole.
                return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                    sqlite3_bind_text64(handle, index, $0, sqlite3_uint64(utf8.count),
                                        csqlite_transient, UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let v):
            rc = v.withUnsafeBytes { bytes -> Int32 in
                // Same trap as text: a nil pointer would bind NULL, so an empty blob is a
                // zero-length zeroblob.
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    return sqlite3_bind_zeroblob(handle, index, 0)
                }
                return sqlite3_bind_blob64(handle, index, base, sqlite3_uint64(bytes.count), csqlite_transient)
            }
        case .null:
            rc = sqlite3_bind_null(handle, index)
        }
        guard rc == SQLITE_OK else { throw database.error(rc, "bind parameter \(index) of \(Self.abbreviate(sql))") }
    }

    // MARK: Stepping

    /// Advances to the next row: true when a row is ready to read, false when the statement
    /// is done. A write statement returns false once it has run.
    @discardableResult
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            // Reset so the statement is reusable and its implicit transaction (if any) ends.
            sqlite3_reset(handle)
            throw database.error(rc, "step \(Self.abbreviate(sql))")
        }
    }

    /// Rewinds the statement so it can run again, and clears its bindings.
    public func reset() {
        // sqlite3_reset repeats the last step's error, which step() has already thrown.
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: Columns (valid after step() returned true)

    public var columnCount: Int32 { sqlite3_column_count(handle) }

    public func columnName(_ index: Int32) -> String {
        sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
    }

    public func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// The column as an integer; 0 for NULL (SQLite's own conversion).
    public func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// The column as a double; 0 for NULL.
    public func double(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }

    /// The column as text; nil for NULL.
    public func string(_ index: Int32) -> String? {
        guard !isNull(index) else { return nil }
        // Text first, then bytes: SQLite's documented order, so the length matches the text.
        guard let text = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column as bytes; nil for NULL, empty Data for a zero-length blob.
    public func data(_ index: Int32) -> Data? {
        guard !isNull(index) else { return nil }
        guard let bytes = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, index)))
    }

    /// The column in its stored class.
    public func value(_ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(int64(index))
        case SQLITE_FLOAT: return .real(double(index))
        case SQLITE_TEXT: return .text(string(index) ?? "")
        case SQLITE_BLOB: return .blob(data(index) ?? Data())
        default: return .null
        }
    }

    /// Long SQL (migrations) would swamp an error message; the start says which statement.
    static func abbreviate(_ sql: String) -> String {
        let flat = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return flat.count > 80 ? String(flat.prefix(77)) + "..." : flat
    }
}
