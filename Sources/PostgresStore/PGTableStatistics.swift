public import PostgresClient
import SQLValues
@_spi(StoreInternals) import Store
import StoreContracts

extension PGPool {
    /// Keeps the planner's statistics of young tables current, every second on one node.
    ///
    /// Why: a connection keeps a statement's plan for its session, and a plan made while a table
    /// is empty or never analyzed is wrong once it holds rows. Tier 0's instance lookup, planned
    /// on an empty `installs`, walked every install of the project by `installs_by_time` instead
    /// of one entry of `installs_by_instance` (auto_explain: 20–37 ms an install at 5,000 rows),
    /// until autovacuum's ANALYZE invalidated the plan, a minute later at best
    /// (`autovacuum_naptime`). Here a young table is analyzed each time it has changed by more
    /// than its own size (and 50 rows): its plans fit within a second of a new database's first
    /// rows, at about twenty ANALYZEs per table in all (~100 ms each at 15,000 installs, so not
    /// at autovacuum's every 10%, which it still does). Past a million rows a minute's lag no
    /// longer changes a plan. See docs/performance.md, "PostgreSQL".
    public func analyzeGrownTables() throws {
        try transaction { connection in
            guard try connection.query("SELECT pg_try_advisory_xact_lock($1)", [.integer(Self.statisticsLock)]).boolean(0, 0) == true
            else { return }
            let grown = try connection.query(Self.grownTablesSQL)
            let names = grown.rows.compactMap { $0.first ?? nil }
            guard !names.isEmpty else { return }
            try connection.execute("ANALYZE " + names.map(Self.quotedIdentifier).joined(separator: ", "))
        }
    }

    /// "attrSta\0": one node analyzes at a time (a second would wait on the first's table lock).
    static let statisticsLock: Int64 = 0x6174_7472_5374_6100

    /// The schema's tables changed by more than 50 rows plus their size since their last
    /// ANALYZE, while under a million rows. The rollups' delta tables are left out: they are
    /// emptied every second and only ever read whole.
    static let grownTablesSQL = """
        SELECT c.relname FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
        WHERE s.schemaname = current_schema() AND c.relname NOT LIKE 'rollup\\_%\\_deltas'
          AND c.reltuples < 1000000 AND s.n_mod_since_analyze > 50 + greatest(c.reltuples, 0)
        ORDER BY c.relname
        """

    static func quotedIdentifier(_ name: String) -> String {
        "\"" + name.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}
