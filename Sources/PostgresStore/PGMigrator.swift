import Attribution
import Foundation
public import PostgresClient
import SQLValues
@_spi(StoreInternals) public import Store
import StoreContracts

extension Migration {
    /// PostgreSQL's migrations (`migrations/postgres/`), in file-name order.
    public static let postgres: [Migration] = EmbeddedMigrations.all.map { Migration(name: $0.name, sql: $0.sql) }
}

/// Applies PostgreSQL's pending migrations, each in its own transaction, holding a session
/// advisory lock for the whole run so that nodes started together migrate one after another: the
/// second finds the work done.
public enum PGMigrator {
    /// The advisory lock's key, shared by every node of a deployment ("attrmigr" in ASCII).
    static let lockKey: Int64 = 0x6174_7472_6D69_6772

    /// Connects to `url` and migrates: `attributiond migrate` with a `postgres://` database.
    @discardableResult
    public static func migrate(url: String, migrations: [Migration] = Migration.postgres) throws -> [String] {
        try migrate(try PGConnection(url: url), migrations: migrations)
    }

    /// - Returns: the names of the migrations applied by this call.
    @discardableResult
    public static func migrate(_ connection: PGConnection, migrations: [Migration] = Migration.postgres) throws -> [String] {
        _ = try connection.query("SELECT pg_advisory_lock($1)", [.integer(lockKey)])
        defer { _ = try? connection.query("SELECT pg_advisory_unlock($1)", [.integer(lockKey)]) }
        try connection.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)")
        let applied = Set(try appliedMigrations(connection))
        try SchemaNewerError.check(applied: Array(applied), known: migrations)
        let now = SystemClock().now().milliseconds
        var newlyApplied: [String] = []
        for migration in migrations.sorted(by: { $0.name < $1.name }) where !applied.contains(migration.name) {
            do {
                try connection.execute("BEGIN")
                try connection.execute(migration.sql)
                _ = try connection.query("INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)", [.text(migration.name), .integer(now)])
                try connection.execute("COMMIT")
            } catch {
                _ = try? connection.execute("ROLLBACK")
                throw PGMigrationError(migration: migration.name, underlying: error)
            }
            newlyApplied.append(migration.name)
        }
        return newlyApplied
    }

    public static func appliedMigrations(_ connection: PGConnection) throws(PGError) -> [String] {
        try connection.query("SELECT name FROM schema_migrations ORDER BY name").rows.compactMap { $0[0] }
    }
}

public struct PGMigrationError: Error, CustomStringConvertible {
    public let migration: String
    public let underlying: any Error
    public var description: String { "migration \(migration) failed: \(underlying)" }
}
