internal import CSQLite
internal import CSQLitePageCache

/// Facts about the linked SQLite library (reported by `attributiond version`).
public enum SQLiteLibrary {
    public static var version: String { String(cString: sqlite3_libversion()) }

    /// Page-cache truncations on the calling thread: passed on to SQLite, and skipped because no
    /// page was at or above the limit.
    public static var pageCacheTruncations: (passed: UInt64, skipped: UInt64) {
        var passed: UInt64 = 0
        var skipped: UInt64 = 0
        attributiond_page_cache_truncations(&passed, &skipped)
        return (passed, skipped)
    }
}
