import Attribution
internal import CSQLite
internal import CSQLiteTuning
import Foundation
import StoreContracts

/// One SQLite connection and its prepared statements. Not thread-safe by design: each connection
/// is confined to one user at a time (the writer's serial queue, or one checkout from the reader
/// pool). SQLite's docs: "Multi-thread. In this mode, SQLite can be safely used by multiple threads
/// provided that no single database connection nor any object derived from database connection,
/// such as a prepared statement, is used in two or more threads at the same time." — so we open
/// with SQLITE_OPEN_NOMUTEX and never share a connection concurrently.
@_spi(StoreInternals) public final class SQLiteConnection {
    let handle: OpaquePointer
    private var statements: [String: Statement] = [:]

    public enum Mode { case readWrite, readOnly }

    /// Process-wide settings, applied once before the first connection opens.
    private static let libraryConfigured: Void = {
        _ = attributiond_sqlite_configure()
        _ = attributiond_install_page_cache()
        _ = attributiond_install_wal_write_buffer()
    }()

    public init(path: String, mode: Mode, busyTimeoutMilliseconds: Int32 = 5000) throws(SQLiteError) {
        _ = Self.libraryConfigured
        var handle: OpaquePointer?
        let flags =
            SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
            | (mode == .readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let result = sqlite3_open_v2(path, &handle, flags, nil)
        guard result == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(handle)
            throw SQLiteError(code: result, message: "\(message): \(path)")
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        registerRollupFunctions()
        registerReferrerHost()
    }

    /// `referrer_host(referer)`: `ReferrerHost.of`, for the breakdown triggers (migration 0039).
    private func registerReferrerHost() {
        sqlite3_create_function_v2(
            handle, "referrer_host", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { function, _, arguments in
                let referrer = arguments.flatMap { sqlite3_value_text($0[0]) }.map { String(cString: $0) }
                let host = ReferrerHost.of(referrer)
                sqlite3_result_text(function, host, -1, attributiond_sqlite_transient())
            }, nil, nil, nil)
    }

    /// Where this connection's writes hand their rollup deltas (the writer's); nil: each write
    /// adds its own up at once (`count`).
    var rollupCollector: RollupCollector?

    /// The functions the counting triggers of migrations 0015 to 0039 call, for a database
    /// migrated from before 0042 (which drops those triggers): each answers 0, "not taken", so a
    /// trigger that fires during the migrations writes its pending row, which 0042 adds up.
    private func registerRollupFunctions() {
        for (name, arguments) in [
            ("rollup_count", 15), ("rollup_money", 8), ("rollup_tally", 5), ("rollup_counted_by_caller", 0), ("rollup_click_tally", 6),
            ("rollup_event_tally", 8),
        ] {
            sqlite3_create_function_v2(
                handle, name, Int32(arguments), SQLITE_UTF8, nil, { function, _, _ in sqlite3_result_int(function, 0) }, nil, nil, nil)
        }
    }

    /// Frames in the WAL after this connection's last commit (the WAL hook's count; 0 before any).
    public private(set) var walFrames = 0

    /// Starts counting `walFrames`. Replaces `wal_autocheckpoint`, which uses the same hook.
    public func trackWALFrames() {
        sqlite3_wal_hook(
            handle,
            { context, _, _, frames in
                Unmanaged<SQLiteConnection>.fromOpaque(context!).takeUnretainedValue().walFrames = Int(frames)
                return SQLITE_OK
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Tables whose rows this connection changed since `takeChangedWatchedTables()`, among those
    /// `watchChanges(to:)` named. Kept by SQLite's update hook, called for every row written, so
    /// the test is a few byte comparisons (most rows are clicks and events, none of them watched).
    private var watched: [(first: CChar, name: [CChar])] = []
    private var changedWatched: Set<Int> = []

    public func watchChanges(to tables: [String]) {
        watched = tables.map { table in
            let name = table.utf8CString.map { $0 }
            return (name[0], name)
        }
        trackChanges()
    }

    private var tracksChanges = false

    private func trackChanges() {
        guard !tracksChanges else { return }
        tracksChanges = true
        sqlite3_update_hook(
            handle,
            { context, _, _, table, _ in
                guard let context, let table else { return }
                let connection = Unmanaged<SQLiteConnection>.fromOpaque(context).takeUnretainedValue()
                let first = table.pointee
                for index in connection.watched.indices
                where connection.watched[index].first == first
                    && strcmp(table, connection.watched[index].name) == 0
                {
                    connection.changedWatched.insert(index)
                }
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The watched tables changed since the last call (a rolled-back change counts too: callers
    /// only invalidate caches, which a spurious call merely empties).
    public func takeChangedWatchedTables() -> [String] {
        guard !changedWatched.isEmpty else { return [] }
        defer { changedWatched.removeAll(keepingCapacity: true) }
        return changedWatched.map { String(decoding: watched[$0].name.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self) }
    }

    /// After a RESTART checkpoint: the next commit writes from the WAL's beginning again.
    public func resetWALFrames() { walFrames = 0 }

    /// How long a statement waits for another connection's lock before giving up with SQLITE_BUSY.
    public func setBusyTimeout(milliseconds: Int32) { sqlite3_busy_timeout(handle, milliseconds) }

    deinit {
        for statement in statements.values { statement.finalize() }
        sqlite3_close_v2(handle)
    }

    /// Runs SQL text that takes no parameters (pragmas, migrations, transaction control).
    public func execute(_ sql: String) throws(SQLiteError) {
        var error: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &error)
        if result != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(error)
            throw SQLiteError(code: result, message: message, sql: sql)
        }
    }

    /// The prepared statement for `sql`, compiled on first use and kept for the connection's life.
    public func statement(_ sql: String) throws(SQLiteError) -> Statement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        var pointer: OpaquePointer?
        let result = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
        guard result == SQLITE_OK, let pointer else {
            throw SQLiteError(code: result, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
        }
        let statement = Statement(pointer, connection: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// Switches the file to WAL. Changing the journal mode needs the file to itself and does not
    /// wait in the busy handler, so when another process is opening the same file at that moment
    /// it is retried with backoff (about 10 s at most) instead of failing start-up.
    public func enableWAL() throws(SQLiteError) {
        var delay: UInt32 = 1_000
        var attempt = 0
        while true {
            do {
                try execute("PRAGMA journal_mode = WAL")
                return
            } catch {
                attempt += 1
                guard error.code & 0xFF == 5 /* SQLITE_BUSY */, attempt < 40 else { throw error }
                usleep(delay)
                delay = min(delay * 2, 250_000)
            }
        }
    }

    /// Prepares, binds and runs a statement that returns no rows; the number of rows changed.
    @discardableResult
    public func run<each Value: SQLiteValue>(_ sql: String, _ values: repeat each Value) throws(SQLiteError) -> Int {
        let statement = try statement(sql)
        try statement.bind(repeat each values)
        try statement.runToCompletion()
        return Int(sqlite3_changes(handle))
    }

    /// Every row of a query, mapped.
    public func query<T, each Value: SQLiteValue>(_ sql: String, _ values: repeat each Value, map: (Row) throws -> T) throws -> [T] {
        let statement = try statement(sql)
        try statement.bind(repeat each values)
        var rows: [T] = []
        while try statement.step() { rows.append(try map(Row(statement: statement))) }
        statement.reset()
        return rows
    }

    /// The first row of a query, mapped, or nil.
    public func queryOne<T, each Value: SQLiteValue>(_ sql: String, _ values: repeat each Value, map: (Row) throws -> T) throws -> T? {
        let statement = try statement(sql)
        try statement.bind(repeat each values)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return try map(Row(statement: statement))
    }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    public var changes: Int { Int(sqlite3_changes(handle)) }

    func lastError(sql: String?) -> SQLiteError {
        SQLiteError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }
}
