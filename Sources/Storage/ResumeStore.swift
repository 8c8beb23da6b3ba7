import FoundationEssentials

/// Where a viewer left off in a piece of content, and how much of it they have watched.
public struct ResumePoint: Sendable, Equatable {
    public var contentId: String
    /// "" for an anonymous viewer.
    public var userId: String
    /// Seconds from the start.
    public var position: Double
    /// Seconds; nil when unknown (live).
    public var duration: Double?
    /// Seconds actually played, accumulated across sessions (seeks do not add to it).
    public var watched: Double
    public var updatedAt: Date
}

/// Resume positions and watched time per (content, user), in the daemon's database.
///
/// Each call is one committed, fsynced transaction (synchronous=FULL): save on pause, stop and
/// every few seconds of playback, not on every position tick.
///
/// Threading: like its `SQLiteDatabase`, not thread-safe; one thread (the GLib thread) owns both.
public final class ResumeStore {
    public let database: SQLiteDatabase
    private let clock: () -> Date

    /// Creates the table if needed (see `Schema`).
    public init(database: SQLiteDatabase, clock: @escaping () -> Date = Date.init) throws {
        self.database = database
        self.clock = clock
        try database.migrate(Schema.migrations)
    }

    /// Stores the position and duration. `watched` replaces the accumulated total when given;
    /// nil keeps it (use `addWatched` to accumulate).
    public func save(contentId: String, userId: String = "", position: Double, duration: Double?,
                     watched: Double? = nil) throws {
        try requireValid(position, "position")
        if let duration { try requireValid(duration, "duration") }
        if let watched { try requireValid(watched, "watched") }
        // COALESCE keeps the stored total when `watched` is NULL.
        try database.run("""
            INSERT INTO resume_points (content_id, user_id, position, duration, watched, updated_at)
                VALUES (?1, ?2, ?3, ?4, coalesce(?5, 0), ?6)
            ON CONFLICT (content_id, user_id) DO UPDATE SET
                position = excluded.position, duration = excluded.duration,
                watched = coalesce(?5, watched), updated_at = excluded.updated_at
            """, .text(contentId), .text(userId), .real(position), .real(duration), .real(watched),
            .real(clock().timeIntervalSince1970))
    }

    public func load(contentId: String, userId: String = "") throws -> ResumePoint? {
        try database.query("""
            SELECT position, duration, watched, updated_at FROM resume_points
                WHERE content_id = ? AND user_id = ?
            """, .text(contentId), .text(userId)) {
            ResumePoint(contentId: contentId, userId: userId, position: $0.double(0),
                        duration: $0.isNull(1) ? nil : $0.double(1), watched: $0.double(2),
                        updatedAt: Date(timeIntervalSince1970: $0.double(3)))
        }.first
    }

    /// Adds played seconds to the total and returns the new total. Creates the entry (position
    /// 0, duration unknown) when there is none yet.
    @discardableResult
    public func addWatched(contentId: String, userId: String = "", seconds: Double) throws -> Double {
        try requireValid(seconds, "seconds")
        return try database.transaction {
            try database.run("""
                INSERT INTO resume_points (content_id, user_id, position, duration, watched, updated_at)
                    VALUES (?1, ?2, 0, NULL, ?3, ?4)
                ON CONFLICT (content_id, user_id) DO UPDATE SET
                    watched = watched + excluded.watched, updated_at = excluded.updated_at
                """, .text(contentId), .text(userId), .real(seconds), .real(clock().timeIntervalSince1970))
            return try database.query("SELECT watched FROM resume_points WHERE content_id = ? AND user_id = ?",
                                      .text(contentId), .text(userId)) { $0.double(0) }.first ?? seconds
        }
    }

    /// Forgets the entry (e.g. the viewer finished the content). Returns whether one existed.
    @discardableResult
    public func remove(contentId: String, userId: String = "") throws -> Bool {
        try database.run("DELETE FROM resume_points WHERE content_id = ? AND user_id = ?",
                         .text(contentId), .text(userId)) == 1
    }

    /// SQLite stores NaN as NULL (violating NOT NULL) and a negative time means a caller bug:
    /// refuse both with a clear error.
    private func requireValid(_ value: Double, _ name: String) throws {
        guard value.isFinite, value >= 0 else {
            throw StorageError(kind: .invalidArgument, message: "\(name) \(value) is not a finite, non-negative number",
                               context: "resume store")
        }
    }
}
