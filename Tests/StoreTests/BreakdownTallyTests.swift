import Foundation
import Testing

@_spi(StoreInternals) @testable import Store

/// The breakdown and cohort tallies of migration 0039 on SQLite, both ways they are counted: by the
/// writer's collector (`rollup_click_tally`, `rollup_event_tally`, `rollup_tally`) and by the
/// triggers' own SQL on a connection without one (added up at the writer's next start). After
/// `RollupTests.populate`'s writes and later changes, each equals the migration's fill from the rows.
@Suite struct BreakdownTallyTests {
    @Test(arguments: [true, false])
    func theTalliesEqualTheMigrationsFill(throughTheWriter: Bool) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-tallies-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("db.sqlite").path
        do {
            let database = try Database(path: path)
            if throughTheWriter { try database.writeAndWait { try RollupTests.populate($0, seed: 5) } }
        }
        if !throughTheWriter {
            let shell = try SQLiteConnection(path: path, mode: .readWrite)
            try shell.execute("PRAGMA foreign_keys = ON")
            try RollupTests.populate(shell, seed: 5)
            #expect(try shell.queryOne("SELECT count(*) FROM rollup_pending_tallies") { $0.int(0) } ?? 0 > 0)
        }
        let database = try Database(path: path)
        let ours = "dimension NOT IN ('confidence', 'skan1', 'skan2', 'skan3')"
        func tallies() throws -> Set<String> {
            Set(
                try database.read { connection in
                    try connection.query("SELECT project_id, dimension, hour, value, installs FROM rollup_tallies WHERE \(ours) AND installs <> 0") {
                        "\($0.string(0)) \($0.string(1)) \($0.int(2)) \($0.string(3)) \($0.int(4))"
                    }
                })
        }
        let counted = try tallies()
        let sql = try #require(Migration.bundled.first { $0.name.contains("breakdowns_and_cohorts") }).sql
        let fill = try #require(sql.range(of: "-- What the database already holds."))
        try database.writeAndWait { connection in
            try connection.execute("DELETE FROM rollup_tallies WHERE \(ours)")
            try connection.execute(String(sql[fill.upperBound...]))
        }
        #expect(try tallies() == counted)
        #expect(counted.contains { $0.contains(" event_installs ") } && counted.contains { $0.contains(" cohort_events ") })
    }
}
