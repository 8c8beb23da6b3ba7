import FoundationEssentials

/// The durable outbox for playback analytics events: the player appends, a sender uploads in
/// `seq` order and reports each outcome.
///
/// Guarantees:
/// - `append` returns only after the row is committed and fsynced (WAL, synchronous=FULL), so
///   an event acknowledged as recorded survives a crash or power loss.
/// - `seq` increases for the daemon's lifetime, across restarts; a seq is never reused, even
///   after its row is deleted (SQLite AUTOINCREMENT keeps the highest ever assigned).
/// - Counters (`sent`, `failed`, `dropped`, `pending`) are updated in the same transaction as
///   the rows they count, so they persist and agree with the rows after a crash.
///
/// The one exception to "never lost": pending rows are bounded by `maxPending`. Without a
/// bound, a collector that is down for weeks would fill the disk under the daemon. The default
/// is generous (100,000 events: days of continuous playback at one event every few seconds,
/// tens of megabytes), and every event dropped to stay under it is counted in `dropped`, so
/// the loss is visible in `GET /v1/analytics` rather than silent. The oldest pending events
/// go first: recent playback is worth more than old, and the sender is likely retrying the
/// oldest already.
///
/// Rows that fail permanently (`markFailed`) stay with their reason for inspection, the most
/// recent `maxFailedKept` of them; the `failed` counter counts all of them forever.
///
/// Threading: like its `SQLiteDatabase`, not thread-safe; one thread (the GLib thread) owns
/// both. Assumes it is the only writer of its tables (one outbox per database).
public final class AnalyticsOutbox {
    public struct Entry: Sendable, Equatable {
        public var seq: Int64
        public var kind: String
        /// The event as appended (JSON).
        public var body: Data
        /// Delivery attempts so far (retryable failures, plus the final one for failed rows).
        public var attempts: Int
        public var createdAt: Date
        /// The last retryable error, or the permanent failure's reason.
        public var lastError: String?
    }

    public struct Counters: Sendable, Equatable {
        /// Appended and not yet sent, failed or dropped.
        public var pending: Int
        /// Delivered (lifetime).
        public var sent: Int
        /// Rejected permanently, e.g. an HTTP 4xx (lifetime).
        public var failed: Int
        /// Discarded undelivered: by `dropPending` or by the `maxPending` bound (lifetime).
        public var dropped: Int
    }

    public static let defaultMaxPending = 100_000
    public static let defaultMaxFailedKept = 1_000

    public let database: SQLiteDatabase
    public let maxPending: Int
    public let maxFailedKept: Int
    private let clock: () -> Date

    private static let pendingState: Int64 = 0
    private static let failedState: Int64 = 1

    /// Creates the tables if needed (see `Schema`) and reconciles the stored pending count with
    /// the rows.
    public init(database: SQLiteDatabase, maxPending: Int = AnalyticsOutbox.defaultMaxPending,
                maxFailedKept: Int = AnalyticsOutbox.defaultMaxFailedKept,
                clock: @escaping () -> Date = Date.init) throws {
        precondition(maxPending > 0 && maxFailedKept >= 0)
        self.database = database
        self.maxPending = maxPending
        self.maxFailedKept = maxFailedKept
        self.clock = clock
        try database.migrate(Schema.migrations)
        // The stored count exists so `append` can enforce the bound without a count(*) scan;
        // it is maintained transactionally, but recounting once at start costs one scan and
        // makes any drift (a hand edit of the file) heal itself.
        let rows = try database.scalarInt64("SELECT count(*) FROM analytics_outbox WHERE state = ?",
                                            .integer(Self.pendingState)) ?? 0
        if rows != Int64(try counters().pending) {
            try database.run("UPDATE analytics_counters SET value = ? WHERE name = 'pending'", .integer(rows))
        }
    }

    // MARK: Writing

    /// Records one event and returns its seq. Durable when this returns. When this makes the
    /// pending count exceed `maxPending`, the oldest pending events are dropped and counted.
    @discardableResult
    public func append(event: Data, kind: String) throws -> Int64 {
        try database.transaction {
            try database.run("INSERT INTO analytics_outbox (kind, body, created_at) VALUES (?, ?, ?)",
                             .text(kind), .blob(event), .real(clock().timeIntervalSince1970))
            let seq = database.lastInsertRowID
            let pending = try add(1, to: "pending")
            if pending > maxPending {
                let dropped = try database.run("""
                    DELETE FROM analytics_outbox WHERE seq IN
                        (SELECT seq FROM analytics_outbox WHERE state = ? ORDER BY seq LIMIT ?)
                    """, .integer(Self.pendingState), .integer(Int64(pending - maxPending)))
                try add(dropped, to: "dropped")
                try add(-dropped, to: "pending")
            }
            return seq
        }
    }

    /// Marks a delivered event: its row is deleted and `sent` counts it. Returns false (and
    /// counts nothing) when `seq` is not pending: already sent, failed, dropped or unknown, so
    /// a repeated acknowledgement never counts twice.
    @discardableResult
    public func markSent(_ seq: Int64) throws -> Bool {
        try markSent([seq]) == 1
    }

    /// Marks a delivered batch in one transaction (one fsync for the batch). Returns how many
    /// of `seqs` were pending.
    @discardableResult
    public func markSent(_ seqs: [Int64]) throws -> Int {
        guard !seqs.isEmpty else { return 0 }
        return try database.transaction {
            let delete = try database.prepare("DELETE FROM analytics_outbox WHERE seq = ? AND state = ?")
            var count = 0
            for seq in seqs {
                try delete.bind([.integer(seq), .integer(Self.pendingState)])
                try delete.step()
                count += database.changes
                delete.reset()
            }
            try add(count, to: "sent")
            try add(-count, to: "pending")
            return count
        }
    }

    /// Marks a permanent failure (the collector rejected the event, e.g. HTTP 4xx): no longer
    /// pending, counted in `failed`, kept with `reason` (see `failures`). Returns false when
    /// `seq` is not pending.
    @discardableResult
    public func markFailed(_ seq: Int64, reason: String) throws -> Bool {
        try database.transaction {
            let changed = try database.run("""
                UPDATE analytics_outbox SET state = ?, attempts = attempts + 1, last_error = ?
                    WHERE seq = ? AND state = ?
                """, .integer(Self.failedState), .text(reason), .integer(seq), .integer(Self.pendingState))
            guard changed == 1 else { return false }
            try add(1, to: "failed")
            try add(-1, to: "pending")
            // Failed rows are for diagnosis; the counter is the record, so old rows can go.
            try database.run("""
                DELETE FROM analytics_outbox WHERE state = ?1 AND seq NOT IN
                    (SELECT seq FROM analytics_outbox WHERE state = ?1 ORDER BY seq DESC LIMIT ?2)
                """, .integer(Self.failedState), .integer(Int64(maxFailedKept)))
            return true
        }
    }

    /// Records a retryable failure (network error, 5xx): `attempts` + 1 and the error kept;
    /// the event stays pending. Returns false when `seq` is not pending.
    @discardableResult
    public func recordAttempt(_ seq: Int64, error: String) throws -> Bool {
        // One statement commits atomically on its own; no counter changes.
        try database.run("""
            UPDATE analytics_outbox SET attempts = attempts + 1, last_error = ? WHERE seq = ? AND state = ?
            """, .text(error), .integer(seq), .integer(Self.pendingState)) == 1
    }

    /// Drops every pending event (an operator's "discard the backlog") and counts them in
    /// `dropped`. Returns how many were dropped.
    @discardableResult
    public func dropPending() throws -> Int {
        try database.transaction {
            let count = try database.run("DELETE FROM analytics_outbox WHERE state = ?", .integer(Self.pendingState))
            try add(count, to: "dropped")
            try add(-count, to: "pending")
            return count
        }
    }

    // MARK: Reading

    /// Up to `limit` pending events, oldest (lowest seq) first.
    public func nextPending(limit: Int) throws -> [Entry] {
        try entries(state: Self.pendingState, order: "ASC", limit: limit)
    }

    /// Up to `limit` permanently failed events still kept, most recent first.
    public func failures(limit: Int) throws -> [Entry] {
        try entries(state: Self.failedState, order: "DESC", limit: limit)
    }

    public func counters() throws -> Counters {
        var values: [String: Int] = [:]
        for (name, value) in try database.query("SELECT name, value FROM analytics_counters", row: {
            ($0.string(0) ?? "", Int($0.int64(1)))
        }) {
            values[name] = value
        }
        return Counters(pending: values["pending"] ?? 0, sent: values["sent"] ?? 0,
                        failed: values["failed"] ?? 0, dropped: values["dropped"] ?? 0)
    }

    /// The highest seq ever assigned (0 before the first append), whether or not its row remains.
    public func lastSeq() throws -> Int64 {
        try database.scalarInt64("SELECT seq FROM sqlite_sequence WHERE name = 'analytics_outbox'") ?? 0
    }

    // MARK: Internals

    private func entries(state: Int64, order: String, limit: Int) throws -> [Entry] {
        guard limit >= 0 else {
            // SQLite reads a negative LIMIT as "no limit": refuse it rather than load everything.
            throw StorageError(kind: .invalidArgument, message: "limit \(limit) is negative", context: "analytics outbox")
        }
        return try database.query("""
            SELECT seq, kind, body, attempts, created_at, last_error FROM analytics_outbox
                WHERE state = ? ORDER BY seq \(order) LIMIT ?
            """, .integer(state), .integer(Int64(limit))) {
            Entry(seq: $0.int64(0), kind: $0.string(1) ?? "", body: $0.data(2) ?? Data(),
                  attempts: Int($0.int64(3)), createdAt: Date(timeIntervalSince1970: $0.double(4)),
                  lastError: $0.string(5))
        }
    }

    /// Adds `delta` to a counter and returns the new value. Call inside a transaction.
    @discardableResult
    private func add(_ delta: Int, to counter: String) throws -> Int {
        guard delta != 0 else {
            return Int(try database.scalarInt64("SELECT value FROM analytics_counters WHERE name = ?", .text(counter)) ?? 0)
        }
        try database.run("UPDATE analytics_counters SET value = value + ? WHERE name = ?", .integer(Int64(delta)), .text(counter))
        return Int(try database.scalarInt64("SELECT value FROM analytics_counters WHERE name = ?", .text(counter)) ?? 0)
    }
}
