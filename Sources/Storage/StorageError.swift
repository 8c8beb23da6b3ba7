import CSQLite

/// A failure from the storage layer: what was being done, SQLite's message and its extended
/// result code, and a `kind` the daemon can act on without decoding SQLite codes (refuse to
/// start on `.corrupt` or `.locked`, for example). A plain value: Sendable, safe to log anywhere.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The file is not a database, or SQLite or the integrity check found damage.
        case corrupt
        /// Another connection (usually another process) holds the lock past the busy timeout.
        case locked
        /// The file cannot be opened or created (missing folder, permissions).
        case cannotOpen
        /// The file's schema version is newer than this build knows: written by a newer marquee.
        case schemaTooNew
        /// A value the store refuses before it reaches SQLite (NaN position, negative limit).
        case invalidArgument
        /// Any other SQLite error; `code` says which.
        case sqlite
    }

    public var kind: Kind
    /// SQLite's extended result code (`SQLITE_BUSY` = 5, `SQLITE_NOTADB` = 26, ...); 0 when the
    /// error did not come from SQLite.
    public var code: Int32
    /// SQLite's own message (`sqlite3_errmsg`), or ours when `code` is 0.
    public var message: String
    /// What the storage layer was doing: "open /var/lib/marquee/marquee.sqlite3", "prepare ...".
    public var context: String

    public init(kind: Kind, code: Int32 = 0, message: String, context: String) {
        self.kind = kind
        self.code = code
        self.message = message
        self.context = context
    }

    /// Classifies an SQLite result code by its primary code (the low byte).
    init(code: Int32, message: String, context: String) {
        let kind: Kind
        switch code & 0xff {
        case SQLITE_BUSY, SQLITE_LOCKED: kind = .locked
        case SQLITE_CORRUPT, SQLITE_NOTADB: kind = .corrupt
        case SQLITE_CANTOPEN: kind = .cannotOpen
        default: kind = .sqlite
        }
        self.init(kind: kind, code: code, message: message, context: context)
    }

    public var description: String {
        code == 0 ? "\(context): \(message)" : "\(context): \(message) (SQLite code \(code))"
    }
}
