public import Attribution
import Foundation
public import StoreContracts

/// Retention's SQL on either backend. On PostgreSQL each batch first takes a transaction-level
/// advisory lock and stops when another node holds it: one node prunes at a time.
@_spi(StoreInternals) public struct ClickPruner<Source: SessionSource>: ClickPruning {
    let source: Source

    public init(source: Source) { self.source = source }
    static var advisoryLock: Int64 { 0x6174_7472_5265_7400 }  // "attrRet\0"

    public func longestWindowHours() throws -> Int64? {
        try source.read { connection in
            try connection.queryOne(
                """
                SELECT max(h) FROM (
                    SELECT max(attribution_window_hours) AS h FROM projects
                    UNION ALL SELECT max(attribution_window_hours) FROM templates
                    UNION ALL SELECT max(attribution_window_hours) FROM links) AS windows
                """
            ) { $0.optionalInt(0) } ?? nil
        }
    }

    /// False when another node is pruning (PostgreSQL); always true on SQLite's one writer.
    private static func mayPrune(_ connection: Source.Session) throws -> Bool {
        guard Source.Session.hasConcurrentWriters else { return true }
        return try connection.queryOne("SELECT pg_try_advisory_xact_lock(?)", advisoryLock) { $0.bool(0) } ?? false
    }

    public func deleteClicks(before cutoff: Timestamp, testProjectCutoffs: [String: Timestamp], batchSize: Int) throws -> Int {
        var total = 0
        for (projectID, projectCutoff) in testProjectCutoffs.sorted(by: { $0.key < $1.key }) {
            total += try source.writeSession { connection in
                guard try Self.mayPrune(connection) else { return 0 }
                let deleted = try connection.run("DELETE FROM clicks WHERE project_id = ? AND created_at < ?", projectID, projectCutoff.milliseconds)
                if deleted > 0 { try Self.notePruned(projectID: projectID, before: projectCutoff, connection) }
                return deleted
            }
        }
        let others = "project_id NOT IN (SELECT id FROM projects WHERE test_mode)"
        var from: Int64 = 0
        while true {
            let (deleted, next) = try source.writeSession { connection -> (Int, Int64?) in
                guard try Self.mayPrune(connection) else { return (0, nil) }
                guard
                    let (oldestID, oldestTime) = try connection.queryOne(
                        "SELECT id, created_at FROM clicks WHERE id >= ? AND \(others) ORDER BY id LIMIT 1", from,
                        map: { ($0.int(0), $0.int(1)) }), oldestTime < cutoff.milliseconds
                else { return (0, nil) }
                let deleted = try connection.run(
                    """
                    DELETE FROM clicks WHERE id >= ? AND id < ? AND created_at < ? AND \(others)
                    """, oldestID, oldestID + Int64(batchSize), cutoff.milliseconds)
                if deleted > 0 { try Self.notePruned(projectID: "", before: cutoff, connection) }
                return (deleted, oldestID + Int64(batchSize))
            }
            total += deleted
            guard let next else { return total }
            from = next
        }
    }
}

extension ClickPruner {
    /// Clicks before `before` are pruned from the project's rows ('': every project not in test
    /// mode), and stay counted: a recount keeps the rollups' click counts before it
    /// (`RollupRecount.clickHorizon`).
    static func notePruned(projectID: String, before: Timestamp, _ connection: Source.Session) throws {
        try connection.run(
            """
            INSERT INTO clicks_pruned (project_id, pruned_before) VALUES (?, ?) ON CONFLICT (project_id) DO UPDATE SET
                pruned_before = CASE WHEN excluded.pruned_before > clicks_pruned.pruned_before THEN excluded.pruned_before ELSE clicks_pruned.pruned_before END
            """, projectID, before.milliseconds)
    }
}

extension ClickRetention {
    public init(database: Database) { self.init(pruner: ClickPruner(source: database)) }
}
