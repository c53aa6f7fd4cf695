import StoreContracts
import Testing

@_spi(StoreInternals) @testable import Store

/// The lines of `EXPLAIN QUERY PLAN` for `sql`. Its parameters are left unbound, so NULL: the plan
/// does not depend on the values.
private func queryPlan(of sql: String, _ connection: SQLiteConnection) throws -> [String] {
    let statement = try connection.statement("EXPLAIN QUERY PLAN " + sql)
    var details: [String] = []
    while try statement.step() { details.append(Row(statement: statement).string(3)) }
    statement.reset()
    return details
}

/// The lookups every install runs on the writer read one index in order: no table scan, and no
/// temporary B-tree to sort the rows (SQLite opens and closes a whole temporary database for one).
@Suite struct QueryPlanTests {
    static let lookups: [(sql: String, index: String)] = [
        (CandidateFilter.clickID.sql, "sqlite_autoindex_clicks_1"),
        (CandidateFilter.link.sql, "clicks_by_link"),
        (CandidateFilter.idfv.sql, "clicks_by_idfv"),
        (CandidateFilter.advertisingID.sql, "clicks_by_advertising_id"),
        (CandidateFilter.network.sql, "clicks_by_ip"),
        (InstallRepository.KnownInstallSQL.byInstance, "installs_by_instance"),
        (InstallRepository.KnownInstallSQL.byDevice, "installs_by_device"),
        (InstallRepository.KnownInstallSQL.byIDFV, "installs_by_idfv"),
        (InstallRepository.KnownInstallSQL.byFingerprint, "installs_by_fingerprint"),
    ]

    @Test(arguments: 0..<lookups.count)
    func readsOneIndexInOrder(_ index: Int) throws {
        let lookup = Self.lookups[index]
        let temp = try TemporaryDatabase()
        let plan = try temp.database.read { try queryPlan(of: lookup.sql, $0) }
        #expect(plan.count == 1, "\(plan)")
        #expect(plan.allSatisfy { $0.hasPrefix("SEARCH ") && $0.contains("USING INDEX \(lookup.index) ") }, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
    }
}

/// Erasure is rare, but it runs on the writer: each of its statements must find its rows through an
/// index, not read the project's clicks, events or users.
@Suite struct ErasurePlanTests {
    /// Each statement and the search its plan must show.
    static let statements: [(sql: String, search: String)] = [
        (ErasureRepository.SQL.userEventInstalls, "USING PRIMARY KEY (project_id=? AND user_id=?)"),
        (ErasureRepository.SQL.deleteUserEventsOfInstall, "USING INDEX events_by_install (install_id=?)"),
        (ErasureRepository.SQL.forgetUserEventInstalls, "USING PRIMARY KEY (project_id=? AND user_id=?)"),
        (ErasureRepository.SQL.releaseClaimedClicks, "USING INDEX clicks_by_install (install_id=?)"),
        (ErasureRepository.SQL.unlinkUsers, "USING INDEX users_by_install (install_id=?)"),
        (ErasureRepository.SQL.forgetInstallsUserEvents, "USING COVERING INDEX user_event_installs_by_install (install_id=?)"),
        (OutboxRepository.deleteJobsOfInstall, "USING COVERING INDEX outbox_jobs_by_install (install_id=?)"),
    ]

    @Test(arguments: 0..<statements.count)
    func findsItsRowsThroughAnIndex(_ index: Int) throws {
        let statement = Self.statements[index]
        let temp = try TemporaryDatabase()
        let plan = try temp.database.read { try queryPlan(of: statement.sql, $0) }
        #expect(plan.count == 1 && plan[0].hasPrefix("SEARCH ") && plan[0].hasSuffix(statement.search), "\(plan)")
    }
}

/// A LinkForty event's re-sent copy is found through the index every event has an entry in.
@Suite struct EventDeduplicationPlanTests {
    @Test func sameContentIsFoundThroughEventsByInstall() throws {
        let temp = try TemporaryDatabase()
        let plan = try temp.database.read { try queryPlan(of: EventRepository.sameContent, $0) }
        #expect(plan == ["SEARCH events USING INDEX events_by_install (install_id=? AND occurred_at=? AND content_key=?)"], "\(plan)")
    }
}

/// Stats count a period's clicks through `clicks_by_link`'s time range, never by reading every
/// click of the project.
@Suite struct StatsPlanTests {
    @Test(arguments: [StatsRepository.SQL.clicksByLink, StatsRepository.SQL.unlinkedClicks])
    func clicksAreReadForThePeriodOnly(_ sql: String) throws {
        let temp = try TemporaryDatabase()
        let plan = try temp.database.read { try queryPlan(of: sql, $0) }
        #expect(
            plan.contains { $0.hasPrefix("SEARCH c") && $0.hasSuffix("USING INDEX clicks_by_link (link_id=? AND created_at>? AND created_at<?)") },
            "\(plan)")
        #expect(!plan.contains { $0.contains("clicks_by_ip") }, "\(plan)")
    }
}

/// SQLite finds the children of a deleted parent with `SELECT … FROM child WHERE column = ?`. Every
/// foreign key of the schema must be able to do that through an index, or a single delete reads the
/// whole child table on the writer.
@Suite struct ForeignKeyIndexTests {
    @Test func everyForeignKeysChildColumnIsSearchedThroughAnIndex() throws {
        let temp = try TemporaryDatabase()
        let plans = try temp.database.read { connection in
            let tables = try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") { $0.string(0) }
            var plans: [(key: String, plan: [String])] = []
            for table in tables {
                let columns = try connection.query("SELECT \"from\" FROM pragma_foreign_key_list(?)", table) { $0.string(0) }
                for column in columns {
                    plans.append(("\(table).\(column)", try queryPlan(of: "SELECT 1 FROM \(table) WHERE \(column) = ?", connection)))
                }
            }
            return plans
        }
        #expect(plans.count >= 16, "\(plans.map(\.key))")
        for (key, plan) in plans {
            // A WITHOUT ROWID table's primary key is its index.
            #expect(
                plan.count == 1 && plan[0].hasPrefix("SEARCH ") && (plan[0].contains("INDEX") || plan[0].contains("PRIMARY KEY")),
                "\(key): \(plan)")
        }
    }
}

/// The export reads an hour of each table through an index, in the index's order: never the whole
/// table, never a sort of the hour's rows.
@Suite struct ExportPlanTests {
    @Test(arguments: ExportTable.allCases)
    func readsAnHourThroughAnIndexInOrder(_ table: ExportTable) throws {
        let temp = try TemporaryDatabase()
        let read = ExportRepository.read(table)
        for sql in [read.firstPage, read.laterPage, read.count] {
            let plan = try temp.database.read { try queryPlan(of: sql, $0) }
            #expect(plan.allSatisfy { $0.hasPrefix("SEARCH ") }, "\(table): \(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(table): \(plan)")
        }
    }
}
