import FoundationEssentials

/// The daemon's database file and the stores in it, opened together at start.
///
/// Ownership and threading: owns one `SQLiteDatabase`; the stores share it. Not thread-safe:
/// create and use it on the GLib thread only. Opening fails with a `StorageError` whose kind
/// says why (`.corrupt`, `.locked`, `.cannotOpen`, `.schemaTooNew`): the daemon should refuse
/// to start and print it.
public final class DaemonStorage {
    public static let fileName = "marquee.sqlite3"

    public let database: SQLiteDatabase
    public let analytics: AnalyticsOutbox
    public let resume: ResumeStore

    /// Opens or creates `<directory>/marquee.sqlite3`. The directory must exist.
    public init(directory: String, maxPendingAnalytics: Int = AnalyticsOutbox.defaultMaxPending) throws {
        database = try SQLiteDatabase(path: Self.path(directory, Self.fileName))
        analytics = try AnalyticsOutbox(database: database, maxPending: maxPendingAnalytics)
        resume = try ResumeStore(database: database)
    }

    public func close() { database.close() }

    /// `NSString.appendingPathComponent`, which FoundationEssentials lacks: a "/" between
    /// the parts unless the directory is empty or already ends in one.
    static func path(_ directory: String, _ name: String) -> String {
        if directory.isEmpty || directory.hasSuffix("/") { return directory + name }
        return directory + "/" + name
    }
}
