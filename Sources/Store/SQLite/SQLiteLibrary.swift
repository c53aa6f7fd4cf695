internal import CSQLite
internal import CSQLiteTuning
import StoreContracts

/// Facts about the linked SQLite library (reported by `attributiond version`).
public enum SQLiteLibrary {
    public static var version: String { String(cString: sqlite3_libversion()) }

    /// Page-cache truncations on the calling thread: passed on to SQLite, and skipped because no
    /// page was at or above the limit.
    static var pageCacheTruncations: (passed: UInt64, skipped: UInt64) {
        var passed: UInt64 = 0
        var skipped: UInt64 = 0
        attributiond_page_cache_truncations(&passed, &skipped)
        return (passed, skipped)
    }

    /// WAL writes on the calling thread: made by SQLite, and issued to the file once gathered.
    static var walWrites: (requested: UInt64, issued: UInt64) {
        var requested: UInt64 = 0
        var issued: UInt64 = 0
        attributiond_wal_write_counts(&requested, &issued)
        return (requested, issued)
    }
}
