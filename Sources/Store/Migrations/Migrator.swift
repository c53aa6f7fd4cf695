import Attribution
import Foundation
import StoreContracts

/// A schema change: a file of `migrations/` (embedded in the binary at build time).
public struct Migration: Sendable, Equatable {
    public let name: String
    public let sql: String

    public init(name: String, sql: String) {
        self.name = name
        self.sql = sql
    }

    /// The migrations this build carries, in file-name order.
    public static let bundled: [Migration] = EmbeddedMigrations.all.map { Migration(name: $0.name, sql: $0.sql) }
}

public struct MigrationError: Error, CustomStringConvertible {
    public let migration: String
    public let underlying: SQLiteError
    public var description: String { "migration \(migration) failed: \(underlying.message)" }
}

/// Applies pending migrations in order, each in its own transaction, recording each in
/// `schema_migrations`. A failing migration is rolled back whole and stops the run.
///
/// Foreign keys are off while migrations run, as SQLite's own procedure for changing a table asks
/// (rebuild it under a new name, copy, drop, rename: with them on, dropping the old table would
/// cascade into its children), and each migration's rows are checked with
/// `PRAGMA foreign_key_check` before its COMMIT: a migration that leaves an orphan fails.
public enum Migrator {
    /// Opens the database file at `path` (creating it and its folder), switches it to WAL and
    /// applies the pending migrations: `attributiond migrate`. Returns the names applied.
    public static func migrate(path: String) throws -> [String] {
        try Database.createFolder(for: path)
        let connection = try SQLiteConnection(path: path, mode: .readWrite)
        try connection.enableWAL()
        return try migrate(connection)
    }

    /// - Returns: the names of the migrations applied by this call.
    @discardableResult
    @_spi(StoreInternals) public static func migrate(_ connection: SQLiteConnection, migrations: [Migration] = Migration.bundled) throws -> [String] {
        let now = SystemClock().now().milliseconds
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                name TEXT PRIMARY KEY,
                applied_at INTEGER NOT NULL
            )
            """)
        try SchemaNewerError.check(applied: try appliedMigrations(connection), known: migrations)
        // Outside any transaction, where the pragma takes effect; on again however the run ends.
        try connection.execute("PRAGMA foreign_keys = OFF")
        defer { _ = try? connection.execute("PRAGMA foreign_keys = ON") }
        var newlyApplied: [String] = []
        for migration in migrations.sorted(by: { $0.name < $1.name }) {
            do {
                // Checked inside the write transaction: another process migrating the same file
                // at the same time either finished this one already or waits for us.
                try connection.execute("BEGIN IMMEDIATE")
                let done = try connection.queryOne("SELECT 1 FROM schema_migrations WHERE name = ?", migration.name) { _ in true } ?? false
                if done {
                    try connection.execute("COMMIT")
                    continue
                }
                try connection.execute(migration.sql)
                if let orphan = try connection.queryOne(
                    "PRAGMA foreign_key_check", map: { "\($0.string(0)) row \($0.int(1)) refers to a missing \($0.string(2)) row" })
                {
                    throw SQLiteError(code: 19, message: "foreign key check failed: \(orphan)")  // SQLITE_CONSTRAINT
                }
                try connection.run("INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)", migration.name, now)
                try connection.execute("COMMIT")
            } catch {
                _ = try? connection.execute("ROLLBACK")
                throw MigrationError(
                    migration: migration.name,
                    underlying: error as? SQLiteError
                        ?? SQLiteError(code: 1, message: "\(error)"))
            }
            newlyApplied.append(migration.name)
        }
        return newlyApplied
    }

    @_spi(StoreInternals) public static func appliedMigrations(_ connection: SQLiteConnection) throws -> [String] {
        try connection.query("SELECT name FROM schema_migrations ORDER BY name") { $0.string(0) }
    }
}
