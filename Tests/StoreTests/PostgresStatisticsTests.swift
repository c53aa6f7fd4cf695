import Foundation
import PostgresClient
@_spi(StoreInternals) import PostgresStore
@_spi(StoreInternals) import Store
import StoreContracts
import TestSupport
import Testing

/// Plans made on a table of a row or two outlive its growth: the node analyzes young tables that grew, so
/// that a statement prepared when `installs` was empty finds an install by its own index again.
@Suite(.serialized) struct PostgresStatisticsTests {
    static let lookup = "SELECT id FROM installs WHERE project_id = $1 AND install_instance_id = $2"

    static func plan(_ connection: PGConnection) throws -> String {
        try connection.query("EXPLAIN EXECUTE tier0('p', 'instance-7')").rows.compactMap { $0.first ?? nil }.joined(separator: "\n")
    }

    static func analyses(_ connection: PGConnection) throws -> Int64 {
        try connection.query("SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'installs'").integer(0, 0) ?? -1
    }

    @Test func aTableThatGrewIsAnalyzedAndItsCachedPlansFitItAgain() throws {
        let url = try PostgresCluster.shared().newDatabase()
        let connection = try PGConnection(url: url)
        try PGMigrator.migrate(connection)
        try connection.execute("INSERT INTO projects (id, name, token_hash, created_at, updated_at) VALUES ('p', 'Shop', '\\x01', 0, 0)")
        // Only the node's ANALYZE, below: autovacuum's could come at any moment on a busy cluster.
        try connection.execute("ALTER TABLE installs SET (autovacuum_enabled = false)")
        // Planned while the table holds one install (one page, never analyzed), kept for the
        // session as the pool's connections keep theirs.
        try connection.execute(
            "INSERT INTO installs (id, project_id, api, install_instance_id, created_at, last_seen_at) VALUES ('i-0', 'p', 'linkrunner', 'instance-0', 0, 0)"
        )
        try connection.execute("SET plan_cache_mode = force_generic_plan")
        try connection.execute("PREPARE tier0(text, text) AS \(Self.lookup)")
        #expect(try Self.plan(connection).contains("installs_by_time"), "the plan made on a table of one row")

        try connection.execute(
            """
            INSERT INTO installs (id, project_id, api, install_instance_id, created_at, last_seen_at)
            SELECT 'i-' || n, 'p', 'linkrunner', 'instance-' || n, n, n FROM generate_series(1, 3000) AS n
            """)
        _ = try connection.query("SELECT pg_stat_force_next_flush()")
        try connection.execute("SELECT 1")  // the transaction's end that reports the rows written
        // The plan is still the one made on one row here, 3,000 rows later, unless something
        // emptied this session's caches meanwhile: on a cluster busy with other tests' migrations
        // the shared invalidation queue overflows and resets them, which re-plans. So it is not
        // asserted; what is, is that the node's ANALYZE comes and the plan fits after it.

        let pool = PGPool(url: url, size: 2, errors: .store)
        _ = try eventually(timeout: 5) {
            try pool.analyzeGrownTables()
            return try Self.analyses(connection) > 0
        }
        #expect(try Self.analyses(connection) == 1)
        let plan = try Self.plan(connection)
        #expect(plan.contains("installs_by_instance"), "\(plan)")

        // Nothing changed since: no second ANALYZE.
        try pool.analyzeGrownTables()
        #expect(try Self.analyses(connection) == 1)
    }
}
