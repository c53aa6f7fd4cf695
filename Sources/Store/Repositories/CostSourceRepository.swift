import Attribution
import SQLValues
import StoreContracts

/// The networks' reporting connections and their pull leases, on either backend.
struct CostSources<Source: SessionSource>: CostSourceStore {
    let source: Source

    func save(_ connection: CostSourceConnection) throws {
        try source.writeSession { session in
            try session.run(
                CostSourceRepository.upsert, connection.projectID, connection.network.rawValue, JSONText.encode(connection.settings),
                JSONText.encode(connection.secrets), connection.backfillDays, connection.nextPullAt.milliseconds, connection.updatedAt.milliseconds)
        }
    }

    func connection(projectID: String, network: CostNetwork) throws -> CostSourceConnection? {
        try source.read { session in
            try session.queryOne(CostSourceRepository.one, projectID, network.rawValue, map: CostSourceRepository.connection) ?? nil
        }
    }

    func connections(projectID: String) throws -> [CostSourceConnection] {
        try source.read { session in
            try session.query(CostSourceRepository.ofProject, projectID, map: CostSourceRepository.connection).compactMap { $0 }
        }
    }

    func delete(projectID: String, network: CostNetwork) throws -> Bool {
        try source.writeSession { session in try session.run(CostSourceRepository.deleteOne, projectID, network.rawValue) > 0 }
    }

    func due(at now: Timestamp, limit: Int) throws -> [CostSourceConnection] {
        try source.read { session in
            try session.query(CostSourceRepository.due, now.milliseconds, now.milliseconds, limit, map: CostSourceRepository.connection).compactMap {
                $0
            }
        }
    }

    func claim(projectID: String, network: CostNetwork, node: String, until: Timestamp, at now: Timestamp) throws -> Bool {
        try source.writeSession { session in
            try session.run(CostSourceRepository.claim, node, until.milliseconds, projectID, network.rawValue, now.milliseconds) > 0
        }
    }

    func finish(projectID: String, network: CostNetwork, node: String, nextPullAt: Timestamp, result: String, at now: Timestamp) throws {
        try source.writeSession { session in
            _ = try session.run(
                CostSourceRepository.finish, nextPullAt.milliseconds, now.milliseconds, String(result.prefix(1000)), projectID, network.rawValue, node
            )
        }
    }
}

/// The cost sources' SQL, for both backends.
enum CostSourceRepository {
    static let columns = "project_id, network, settings, secrets, backfill_days, next_pull_at, last_pulled_at, last_result, updated_at"
    static let upsert = """
        INSERT INTO cost_sources (project_id, network, settings, secrets, backfill_days, next_pull_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (project_id, network) DO UPDATE SET settings = excluded.settings, secrets = excluded.secrets,
            backfill_days = excluded.backfill_days, next_pull_at = excluded.next_pull_at, updated_at = excluded.updated_at
        """
    static let one = "SELECT \(columns) FROM cost_sources WHERE project_id = ? AND network = ?"
    static let ofProject = "SELECT \(columns) FROM cost_sources WHERE project_id = ? ORDER BY network"
    static let deleteOne = "DELETE FROM cost_sources WHERE project_id = ? AND network = ?"
    static let due = """
        SELECT \(columns) FROM cost_sources WHERE next_pull_at <= ? AND (claimed_until IS NULL OR claimed_until < ?)
        ORDER BY next_pull_at LIMIT ?
        """
    /// Taken only when no lease is held, or the one held ran out.
    static let claim = """
        UPDATE cost_sources SET claimed_by = ?, claimed_until = ?
        WHERE project_id = ? AND network = ? AND (claimed_until IS NULL OR claimed_until < ?)
        """
    static let finish = """
        UPDATE cost_sources SET next_pull_at = ?, last_pulled_at = ?, last_result = ?, claimed_by = NULL, claimed_until = NULL
        WHERE project_id = ? AND network = ? AND claimed_by = ?
        """

    static func connection(_ row: some ColumnReader) -> CostSourceConnection? {
        guard let network = CostNetwork(rawValue: row.string(1)) else { return nil }
        return CostSourceConnection(
            projectID: row.string(0), network: network, settings: CodableText.decode([String: String].self, row.string(2)) ?? [:],
            secrets: CodableText.decode([String: String].self, row.string(3)) ?? [:], backfillDays: Int(row.int(4)),
            nextPullAt: Timestamp(milliseconds: row.int(5)), lastPulledAt: row.optionalInt(6).map { Timestamp(milliseconds: $0) },
            lastResult: row.optionalString(7), updatedAt: Timestamp(milliseconds: row.int(8)))
    }
}
