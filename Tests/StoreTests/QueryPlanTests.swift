import Testing
@testable import Store

/// The lookups every install runs on the writer read one index in order: no table scan, and no
/// temporary B-tree to sort the rows (SQLite opens and closes a whole temporary database for one).
@Suite struct QueryPlanTests {
    static let lookups: [(sql: String, index: String)] = [
        (InstallRepository.CandidateFilter.clickID.sql, "sqlite_autoindex_clicks_1"),
        (InstallRepository.CandidateFilter.idfv.sql, "clicks_by_idfv"),
        (InstallRepository.CandidateFilter.advertisingID.sql, "clicks_by_advertising_id"),
        (InstallRepository.CandidateFilter.network.sql, "clicks_by_ip"),
        (InstallRepository.KnownInstallSQL.byInstance, "installs_by_instance"),
        (InstallRepository.KnownInstallSQL.byDevice, "installs_by_device"),
        (InstallRepository.KnownInstallSQL.byFingerprint, "installs_by_fingerprint"),
    ]

    @Test(arguments: 0..<lookups.count)
    func readsOneIndexInOrder(_ index: Int) throws {
        let lookup = Self.lookups[index]
        let temp = try TemporaryDatabase()
        let plan = try temp.database.read { connection in
            // The plan does not depend on the values: each parameter is left unbound, which is NULL.
            let statement = try connection.statement("EXPLAIN QUERY PLAN " + lookup.sql)
            var details: [String] = []
            while try statement.step() { details.append(Row(statement: statement).string(3)) }
            statement.reset()
            return details
        }
        #expect(plan.count == 1, "\(plan)")
        #expect(plan.allSatisfy { $0.hasPrefix("SEARCH ") && $0.contains("USING INDEX \(lookup.index) ") }, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
    }
}
