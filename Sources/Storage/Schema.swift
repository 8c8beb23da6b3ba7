/// The daemon's one database file holds every store, so the schema is one list of migrations
/// with one `user_version`: each store runs `migrate(Schema.migrations)` at start (idempotent),
/// and a new table or column is a new entry at the end, never an edit to a shipped one.
enum Schema {
    static let migrations: [Migration] = [
        Migration(version: 1, sql: """
            -- AUTOINCREMENT (not a plain INTEGER PRIMARY KEY) so a seq is never reused: SQLite
            -- keeps the highest ever assigned in sqlite_sequence, even after rows are deleted.
            CREATE TABLE analytics_outbox (
                seq        INTEGER PRIMARY KEY AUTOINCREMENT,
                kind       TEXT    NOT NULL,
                body       BLOB    NOT NULL,
                created_at REAL    NOT NULL,            -- Unix seconds
                attempts   INTEGER NOT NULL DEFAULT 0,
                last_error TEXT,
                state      INTEGER NOT NULL DEFAULT 0   -- 0 pending, 1 failed (permanently)
            );
            -- Pending rows in seq order without a scan past failed ones.
            CREATE INDEX analytics_outbox_state_seq ON analytics_outbox (state, seq);

            -- Lifetime counters, kept in the same transaction as the rows they count.
            CREATE TABLE analytics_counters (
                name  TEXT PRIMARY KEY,
                value INTEGER NOT NULL
            ) WITHOUT ROWID;
            INSERT INTO analytics_counters (name, value)
                VALUES ('pending', 0), ('sent', 0), ('failed', 0), ('dropped', 0);

            CREATE TABLE resume_points (
                content_id TEXT NOT NULL,
                user_id    TEXT NOT NULL,               -- '' for anonymous
                position   REAL NOT NULL,               -- seconds
                duration   REAL,                        -- seconds; NULL when unknown (live)
                watched    REAL NOT NULL DEFAULT 0,     -- accumulated seconds actually played
                updated_at REAL NOT NULL,               -- Unix seconds
                PRIMARY KEY (content_id, user_id)
            ) WITHOUT ROWID;
            """),
    ]
}
