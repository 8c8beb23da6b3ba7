import FoundationEssentials

/// One step of a schema: `apply` runs in a transaction together with setting
/// `PRAGMA user_version` to `version`, so a crash mid-migration leaves the previous version.
public struct Migration: Sendable {
    public let version: Int32
    public let apply: @Sendable (SQLiteDatabase) throws -> Void

    public init(version: Int32, apply: @escaping @Sendable (SQLiteDatabase) throws -> Void) {
        self.version = version
        self.apply = apply
    }

    /// A migration that runs `sql` (one or more statements).
    public init(version: Int32, sql: String) {
        self.init(version: version) { try $0.execute(sql) }
    }
}

extension SQLiteDatabase {
    /// The schema version stored in the file header (`PRAGMA user_version`); 0 for a new file.
    public func userVersion() throws -> Int32 {
        Int32(truncatingIfNeeded: try scalarInt64("PRAGMA user_version") ?? 0)
    }

    /// Brings the schema up to the last of `migrations`, running each one newer than the
    /// file's `user_version` in order, each in its own transaction. Idempotent: a file already
    /// at the last version is left alone, so every store can call this at start.
    ///
    /// - Parameter migrations: versions strictly increasing (a programming error otherwise).
    /// - Throws: `.schemaTooNew` when the file is at a version above the last migration: it
    ///   was written by a newer marquee, and this one would misread it.
    public func migrate(_ migrations: [Migration]) throws {
        precondition(zip(migrations, migrations.dropFirst()).allSatisfy { $0.version < $1.version },
                     "migration versions must increase")
        let latest = migrations.last?.version ?? 0
        let current = try userVersion()
        guard current <= latest else {
            throw StorageError(kind: .schemaTooNew,
                               message: "schema version \(current) is newer than this build knows (\(latest)); "
                                   + "a newer marquee wrote it",
                               context: "migrate \(path)")
        }
        for migration in migrations where migration.version > current {
            try transaction {
                // Read again under the write lock: another connection to the same file (the
                // offline library opens its own) may have applied it since the read above.
                guard try userVersion() < migration.version else { return }
                try migration.apply(self)
                // PRAGMA takes no parameters; the value is an Int32, so interpolation is safe.
                try execute("PRAGMA user_version = \(migration.version)")
            }
        }
    }
}
