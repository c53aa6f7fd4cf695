internal import CSQLite

/// Facts about the linked SQLite library (reported by `attributiond version`).
public enum SQLiteLibrary {
    public static var version: String { String(cString: sqlite3_libversion()) }
}
