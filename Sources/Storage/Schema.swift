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

        // The offline library's books (LibraryBooks). No CHECK constraints on the enumerated
        // text columns (kind, state, role): SQLite cannot alter a CHECK, so a new state later
        // would mean rebuilding the table; the Swift enums validate instead.
        Migration(version: 2, sql: """
            CREATE TABLE library_items (
                id                    TEXT PRIMARY KEY,     -- "lib-" + 12 lowercase hex
                content_id            TEXT NOT NULL,
                user_id               TEXT NOT NULL DEFAULT '',  -- '' for anonymous
                title                 TEXT,
                uri                   TEXT NOT NULL,
                kind                  TEXT NOT NULL,        -- 'file' | 'hls'
                state                 TEXT NOT NULL,        -- 'queued' | 'downloading' | 'paused' | 'complete' | 'failed'
                error_code            TEXT,
                error_message         TEXT,
                options               TEXT,                 -- JSON: variant, audio, subtitles choices
                sealed_headers        BLOB,                 -- KeyWrap-sealed JSON {headers, keyHeaders}; NULL: none
                wrapped_key           BLOB NOT NULL,        -- the media key, KeyWrap-sealed
                total_bytes           INTEGER,              -- NULL while unknown
                created_at            REAL NOT NULL,        -- Unix seconds
                completed_at          REAL,
                license_expires       REAL,                 -- Unix seconds; NULL: no date limit
                license_max_plays     INTEGER,              -- NULL: unlimited
                license_max_play_time REAL,                 -- seconds; NULL: unlimited
                plays                 INTEGER NOT NULL DEFAULT 0,
                play_time             REAL NOT NULL DEFAULT 0,  -- seconds
                UNIQUE (content_id, user_id)
            );

            CREATE TABLE library_files (
                item_id      TEXT NOT NULL REFERENCES library_items (id) ON DELETE CASCADE,
                name         TEXT NOT NULL,                 -- on disk: <item folder>/<name>.enc
                role         TEXT NOT NULL DEFAULT 'media', -- 'media' | 'playlist' | 'segment' | 'key'
                position     INTEGER NOT NULL DEFAULT 0,    -- download order within the item
                remote_uri   TEXT,
                iv           BLOB NOT NULL,                 -- 16 random bytes, the CTR counter's start
                stored_bytes INTEGER NOT NULL DEFAULT 0,    -- acknowledged (fsynced) plaintext bytes
                total_bytes  INTEGER,                       -- NULL while unknown
                complete     INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (item_id, name)
            ) WITHOUT ROWID;

            -- SHA-256 of each 1 MiB plaintext chunk of a file, recorded as chunks complete.
            CREATE TABLE library_chunks (
                item_id     TEXT NOT NULL,
                name        TEXT NOT NULL,
                chunk_index INTEGER NOT NULL,
                sha256      BLOB NOT NULL,
                PRIMARY KEY (item_id, name, chunk_index),
                FOREIGN KEY (item_id, name) REFERENCES library_files (item_id, name) ON DELETE CASCADE
            ) WITHOUT ROWID;

            -- 'latest_seen_time' (REAL, Unix seconds): the licence clock rule.
            CREATE TABLE library_meta (
                key   TEXT PRIMARY KEY,
                value
            ) WITHOUT ROWID;
            """),
    ]
}
