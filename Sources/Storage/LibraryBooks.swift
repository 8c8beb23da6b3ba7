import FoundationEssentials

/// The offline library's books: items, their files, each file's acknowledged offset and chunk
/// checksums, and the licence usage, in the daemon's database (`Schema` version 2).
///
/// Each call is one committed, fsynced transaction (synchronous=FULL): what a call recorded
/// survives a crash or power loss once it returns. `recordFileProgress` is the one the
/// encrypted files' "write data, then the offset" rule depends on.
///
/// Threading: like its `SQLiteDatabase`, not thread-safe. The library opens a connection of
/// its own (WAL lets it write while the GLib thread's connection reads) and uses both on its
/// own thread only.
public final class LibraryBooks {
    public let database: SQLiteDatabase
    private let clock: () -> Date

    /// Creates the tables if needed (see `Schema`).
    public init(database: SQLiteDatabase, clock: @escaping () -> Date = Date.init) throws {
        self.database = database
        self.clock = clock
        try database.migrate(Schema.migrations)
    }

    // MARK: Items

    /// Adds an item with its files. A second item for the same (contentId, userId) fails with
    /// SQLite's SQLITE_CONSTRAINT_UNIQUE (code 2067); the library checks its own list first.
    public func insert(_ item: LibraryItemRecord) throws {
        try requireValid(item.license)
        try database.transaction {
            try database.run("""
                INSERT INTO library_items (id, content_id, user_id, title, uri, kind, state, error_code,
                    error_message, options, sealed_headers, wrapped_key, total_bytes, created_at, completed_at,
                    license_expires, license_max_plays, license_max_play_time, plays, play_time)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, .text(item.id), .text(item.contentId), .text(item.userId), .text(item.title), .text(item.uri),
                .text(item.kind.rawValue), .text(item.state.rawValue), .text(item.failure?.code),
                .text(item.failure?.message), .text(item.options), .blob(item.sealedHeaders), .blob(item.wrappedKey),
                .integer(item.totalBytes), .real(item.createdAt.timeIntervalSince1970),
                .real(item.completedAt?.timeIntervalSince1970), .real(item.license.expires?.timeIntervalSince1970),
                .integer(item.license.maxPlays.map(Int64.init)), .real(item.license.maxPlayTime),
                .integer(Int64(item.plays)), .real(item.playTime))
            try addFiles(item.files, to: item.id)
        }
    }

    /// Every item with its files (not their chunk checksums: see `chunkChecksums`), oldest first.
    public func loadAll() throws -> [LibraryItemRecord] {
        var files: [String: [LibraryFileRecord]] = [:]
        for (itemId, file) in try database.query("SELECT \(Self.fileColumns) FROM library_files ORDER BY item_id, position, name",
                                                  row: Self.file) {
            files[itemId, default: []].append(file)
        }
        return try database.query("SELECT \(Self.itemColumns) FROM library_items ORDER BY created_at, id") {
            var item = try Self.item($0)
            item.files = files[item.id] ?? []
            return item
        }
    }

    /// One item with its files; nil for an unknown id.
    public func load(id: String) throws -> LibraryItemRecord? {
        guard var item = try database.query("SELECT \(Self.itemColumns) FROM library_items WHERE id = ?", .text(id),
                                            row: Self.item).first else { return nil }
        item.files = try database.query("""
            SELECT \(Self.fileColumns) FROM library_files WHERE item_id = ? ORDER BY position, name
            """, .text(id), row: Self.file).map(\.1)
        return item
    }

    /// Sets the state and the failure (nil clears it). Entering `complete` stamps
    /// `completedAt` (once); any other state clears it. Returns false for an unknown id.
    @discardableResult
    public func updateState(id: String, state: LibraryItemRecord.State,
                            failure: LibraryItemRecord.Failure? = nil) throws -> Bool {
        try database.run("""
            UPDATE library_items SET state = ?2, error_code = ?3, error_message = ?4,
                completed_at = CASE WHEN ?2 = 'complete' THEN coalesce(completed_at, ?5) ELSE NULL END
                WHERE id = ?1
            """, .text(id), .text(state.rawValue), .text(failure?.code), .text(failure?.message),
            .real(clock().timeIntervalSince1970)) == 1
    }

    /// Sets the item's expected size (nil: unknown). Returns false for an unknown id.
    @discardableResult
    public func updateTotalBytes(id: String, totalBytes: Int64?) throws -> Bool {
        if let totalBytes { try requireNonNegative(totalBytes, "totalBytes") }
        return try database.run("UPDATE library_items SET total_bytes = ? WHERE id = ?",
                                .integer(totalBytes), .text(id)) == 1
    }

    /// Deletes the item with its files' rows and checksums (cascade). The media files on disk
    /// are the caller's to remove. Returns false for an unknown id.
    @discardableResult
    public func delete(id: String) throws -> Bool {
        try database.run("DELETE FROM library_items WHERE id = ?", .text(id)) == 1
    }

    // MARK: Files

    /// Adds files to an item (an HLS item learns its segments from its playlists), in one
    /// transaction. A name already used in the item fails (SQLITE_CONSTRAINT_PRIMARYKEY).
    public func addFiles(_ files: [LibraryFileRecord], to itemId: String) throws {
        guard !files.isEmpty else { return }
        try database.transaction {
            let insert = try database.prepare("""
                INSERT INTO library_files (item_id, name, role, position, remote_uri, iv, stored_bytes, total_bytes,
                    complete) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for file in files {
                try requireNonNegative(file.storedBytes, "storedBytes")
                try insert.bind([.text(itemId), .text(file.name), .text(file.role.rawValue),
                                 .integer(Int64(file.position)), .text(file.remoteURI), .blob(file.iv),
                                 .integer(file.storedBytes), .integer(file.totalBytes), .integer(file.complete ? 1 : 0)])
                try insert.step()
                insert.reset()
            }
        }
    }

    /// Forgets every file of an item with its checksums (an HLS item whose plan was cut short
    /// by a crash plans again); the media files on disk are the caller's to remove.
    public func removeFiles(of itemId: String) throws {
        _ = try database.run("DELETE FROM library_files WHERE item_id = ?", .text(itemId))
    }

    /// Sets a file's expected size (from Content-Length; nil: unknown). Returns false for an
    /// unknown file.
    @discardableResult
    public func updateFileTotalBytes(itemId: String, name: String, totalBytes: Int64?) throws -> Bool {
        if let totalBytes { try requireNonNegative(totalBytes, "totalBytes") }
        return try database.run("UPDATE library_files SET total_bytes = ? WHERE item_id = ? AND name = ?",
                                .integer(totalBytes), .text(itemId), .text(name)) == 1
    }

    /// Records, in one transaction, that the first `storedBytes` bytes of a file are durably on
    /// disk, the checksums of the chunks completed since the last record, and (with
    /// `complete`) that the file is whole. Call only after the data is fsynced.
    /// - Throws: `.invalidArgument` for an unknown file (the item was deleted meanwhile).
    public func recordFileProgress(itemId: String, name: String, storedBytes: Int64, newChunks: [ChunkChecksum],
                                   complete: Bool = false) throws {
        try requireNonNegative(storedBytes, "storedBytes")
        try database.transaction {
            let changed = try database.run("""
                UPDATE library_files SET stored_bytes = ?, complete = ? WHERE item_id = ? AND name = ?
                """, .integer(storedBytes), .integer(complete ? 1 : 0), .text(itemId), .text(name))
            guard changed == 1 else { throw unknownFile(itemId, name) }
            guard !newChunks.isEmpty else { return }
            let insert = try database.prepare("""
                INSERT OR REPLACE INTO library_chunks (item_id, name, chunk_index, sha256) VALUES (?, ?, ?, ?)
                """)
            for chunk in newChunks {
                try requireNonNegative(Int64(chunk.index), "chunk index")
                try insert.bind([.text(itemId), .text(name), .integer(Int64(chunk.index)), .blob(chunk.sha256)])
                try insert.step()
                insert.reset()
            }
        }
    }

    /// Empties a file's record (the origin ignored a Range request, so the file starts again):
    /// offset 0, not complete, no checksums; one transaction.
    /// - Throws: `.invalidArgument` for an unknown file.
    public func resetFile(itemId: String, name: String) throws {
        try database.transaction {
            let changed = try database.run("""
                UPDATE library_files SET stored_bytes = 0, complete = 0 WHERE item_id = ? AND name = ?
                """, .text(itemId), .text(name))
            guard changed == 1 else { throw unknownFile(itemId, name) }
            try database.run("DELETE FROM library_chunks WHERE item_id = ? AND name = ?", .text(itemId), .text(name))
        }
    }

    /// A file's chunk checksums in chunk order, for `EncryptedFileReader.verify`. A missing
    /// index (which the books never produce) is an empty value, so verification fails there.
    public func chunkChecksums(itemId: String, name: String) throws -> [Data] {
        var checksums: [Data] = []
        for chunk in try database.query("""
            SELECT chunk_index, sha256 FROM library_chunks WHERE item_id = ? AND name = ? ORDER BY chunk_index
            """, .text(itemId), .text(name), row: { ChunkChecksum(index: Int($0.int64(0)), sha256: $0.data(1) ?? Data()) }) {
            while checksums.count < chunk.index { checksums.append(Data()) }
            checksums.append(chunk.sha256)
        }
        return checksums
    }

    // MARK: Licence

    /// Counts one play (when playback begins) and returns the new count; nil for an unknown id.
    @discardableResult
    public func addPlay(id: String) throws -> Int? {
        try database.transaction {
            guard try database.run("UPDATE library_items SET plays = plays + 1 WHERE id = ?", .text(id)) == 1 else {
                return nil
            }
            return try database.scalarInt64("SELECT plays FROM library_items WHERE id = ?", .text(id)).map { Int($0) }
        }
    }

    /// Adds played seconds and returns the new total; nil for an unknown id.
    @discardableResult
    public func addPlayTime(id: String, seconds: Double) throws -> Double? {
        try requireValid(seconds, "seconds")
        return try database.transaction {
            guard try database.run("UPDATE library_items SET play_time = play_time + ? WHERE id = ?",
                                   .real(seconds), .text(id)) == 1 else { return nil }
            return try database.query("SELECT play_time FROM library_items WHERE id = ?", .text(id)) { $0.double(0) }.first
        }
    }

    /// Replaces the licence (a renewal). With `resetUsage`, plays and play time start again
    /// from 0: a renewed licence that repeats "3 plays" grants three new plays. Returns false
    /// for an unknown id.
    @discardableResult
    public func replaceLicense(id: String, license: LibraryItemRecord.LicenseTerms, resetUsage: Bool) throws -> Bool {
        try requireValid(license)
        return try database.run("""
            UPDATE library_items SET license_expires = ?, license_max_plays = ?, license_max_play_time = ?,
                plays = CASE WHEN ?4 THEN 0 ELSE plays END, play_time = CASE WHEN ?4 THEN 0 ELSE play_time END
                WHERE id = ?5
            """, .real(license.expires?.timeIntervalSince1970), .integer(license.maxPlays.map(Int64.init)),
            .real(license.maxPlayTime), .integer(resetUsage ? 1 : 0), .text(id)) == 1
    }

    /// The latest time the library has seen on the system clock; nil before the first record.
    public func latestSeenTime() throws -> Date? {
        try database.query("SELECT value FROM library_meta WHERE key = 'latest_seen_time'") {
            $0.isNull(0) ? nil : Date(timeIntervalSince1970: $0.double(0))
        }.first ?? nil
    }

    /// Records `time` as seen unless a later time is already recorded (the value only moves
    /// forward, so setting the clock back cannot lower it). Returns the recorded latest.
    @discardableResult
    public func advanceLatestSeenTime(to time: Date) throws -> Date {
        let seconds = time.timeIntervalSince1970
        try requireValid(seconds, "time")
        return try database.transaction {
            try database.run("""
                INSERT INTO library_meta (key, value) VALUES ('latest_seen_time', ?1)
                ON CONFLICT (key) DO UPDATE SET value = max(value, excluded.value)
                """, .real(seconds))
            return try latestSeenTime() ?? time
        }
    }

    // MARK: Rows

    private static let itemColumns = """
        id, content_id, user_id, title, uri, kind, state, error_code, error_message, options, sealed_headers,
        wrapped_key, total_bytes, created_at, completed_at, license_expires, license_max_plays,
        license_max_play_time, plays, play_time
        """

    private static func item(_ row: Statement) throws -> LibraryItemRecord {
        let id = row.string(0) ?? ""
        guard let kind = LibraryItemRecord.Kind(rawValue: row.string(5) ?? ""),
              let state = LibraryItemRecord.State(rawValue: row.string(6) ?? "") else {
            throw StorageError(kind: .corrupt, message: "item \(id) has kind '\(row.string(5) ?? "")' and state "
                                   + "'\(row.string(6) ?? "")', which this build does not know", context: "library books")
        }
        let failure = row.string(7).map { LibraryItemRecord.Failure(code: $0, message: row.string(8) ?? "") }
        return LibraryItemRecord(
            id: id, contentId: row.string(1) ?? "", userId: row.string(2) ?? "", title: row.string(3),
            uri: row.string(4) ?? "", kind: kind, state: state, failure: failure, options: row.string(9),
            sealedHeaders: row.data(10), wrappedKey: row.data(11) ?? Data(),
            totalBytes: row.isNull(12) ? nil : row.int64(12), createdAt: Date(timeIntervalSince1970: row.double(13)),
            completedAt: row.isNull(14) ? nil : Date(timeIntervalSince1970: row.double(14)),
            license: LibraryItemRecord.LicenseTerms(
                expires: row.isNull(15) ? nil : Date(timeIntervalSince1970: row.double(15)),
                maxPlays: row.isNull(16) ? nil : Int(row.int64(16)),
                maxPlayTime: row.isNull(17) ? nil : row.double(17)),
            plays: Int(row.int64(18)), playTime: row.double(19))
    }

    private static let fileColumns = "item_id, name, role, position, remote_uri, iv, stored_bytes, total_bytes, complete"

    private static func file(_ row: Statement) throws -> (String, LibraryFileRecord) {
        let itemId = row.string(0) ?? ""
        let name = row.string(1) ?? ""
        guard let role = LibraryFileRecord.Role(rawValue: row.string(2) ?? "") else {
            throw StorageError(kind: .corrupt, message: "file \(name) of item \(itemId) has role '\(row.string(2) ?? "")', "
                                   + "which this build does not know", context: "library books")
        }
        return (itemId, LibraryFileRecord(
            name: name, role: role, position: Int(row.int64(3)), remoteURI: row.string(4), iv: row.data(5) ?? Data(),
            storedBytes: row.int64(6), totalBytes: row.isNull(7) ? nil : row.int64(7), complete: row.int64(8) != 0))
    }

    // MARK: Checks

    private func unknownFile(_ itemId: String, _ name: String) -> StorageError {
        StorageError(kind: .invalidArgument, message: "no file '\(name)' in item \(itemId) (was the item deleted?)",
                     context: "library books")
    }

    private func requireValid(_ license: LibraryItemRecord.LicenseTerms) throws {
        if let maxPlays = license.maxPlays { try requireNonNegative(Int64(maxPlays), "maxPlays") }
        if let maxPlayTime = license.maxPlayTime { try requireValid(maxPlayTime, "maxPlayTime") }
        if let expires = license.expires, !expires.timeIntervalSince1970.isFinite {
            throw StorageError(kind: .invalidArgument, message: "expires is not a finite time", context: "library books")
        }
    }

    /// SQLite stores NaN as NULL and a negative amount is a caller bug: refuse both.
    private func requireValid(_ value: Double, _ name: String) throws {
        guard value.isFinite, value >= 0 else {
            throw StorageError(kind: .invalidArgument, message: "\(name) \(value) is not a finite, non-negative number",
                               context: "library books")
        }
    }

    private func requireNonNegative(_ value: Int64, _ name: String) throws {
        guard value >= 0 else {
            throw StorageError(kind: .invalidArgument, message: "\(name) \(value) is negative", context: "library books")
        }
    }
}
