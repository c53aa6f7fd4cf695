import Attribution
import Foundation
import PostgresClient
@_spi(StoreInternals) import PostgresStore
@_spi(StoreInternals) import Store
import StoreContracts
import TestSupport
import Testing

/// `migrate-data`'s copier: a SQLite deployment's rows arrive in PostgreSQL as they were —
/// hashed tokens, booleans, rollups, click ids — the counts agree, and a second run adds nothing.
@Suite(.serialized) struct DataCopierTests {
    @Test func aSQLiteDeploymentArrivesWholeAndASecondRunAddsNothing() throws {
        // Half the days' hours not folded yet (migration 0022): PostgreSQL receives them folded.
        let temp = try TemporaryDatabase(foldedThroughHour: (RollupTests.start + 6 * RollupTests.day) / 3_600_000)
        try temp.database.writeAndWait { try RollupTests.populate($0, seed: 7) }
        let sqlite = SQLiteStore(database: temp.database)
        let created = try sqlite.projects.create(name: "Moved", settings: BackendStoreTests.everySetting())
        let link = BackendStoreTests.fullLink(projectID: created.project.id, templateID: nil, code: "moved", at: 1_700_000_000_000)
        _ = try sqlite.links.create(link, codeIsCustom: true)
        let click = Click(
            clickID: "moved-click", projectID: created.project.id, linkID: link.id, source: .link,
            createdAt: Timestamp(milliseconds: 1_700_000_000_500), ip: "198.51.100.7", isBot: true, languages: ["fr"],
            networkClickID: NetworkClickID(parameter: "fbclid", value: "F"))
        try BackendStoreTests.wait { sqlite.clicks.record(countTowardLimit: false, click, completion: $0) }

        let url = try PostgresCluster.shared().newDatabase()
        let copier = DataCopier(source: temp.database, target: try PGConnection(url: url), batchRows: 97)  // pages end mid-table
        let counts = try copier.copy()
        #expect(counts.allSatisfy { $0.sqlite == $0.postgres }, "\(counts.filter { $0.sqlite != $0.postgres })")
        #expect(counts.first { $0.table == "clicks" }?.postgres == 602)
        #expect(counts.first { $0.table == "rollup_link_hours" }!.postgres > 0)

        let pool = PGPool(url: url, size: 2, errors: .store)
        #expect(try pool.projectStore().project(forToken: created.token) == created.project)  // BYTEA hash, every setting
        #expect(try pool.projectStore().project(forAPIKey: created.apiKey.key)?.id == created.project.id)
        #expect(try pool.linkStore().find(shortCode: "moved", domain: nil)?.link == link)
        #expect(try PGClickStore(pool: pool, writer: PGWriter(pool: pool)).find(clickID: "moved-click") == click)
        let connection = try PGConnection(url: url)
        func same(_ sql: String) throws {
            let here = try temp.database.read { try $0.queryOne(sql) { $0.string(0) } }
            #expect(try connection.query(sql).text(0, 0) == here, "\(sql)")
        }
        try same("SELECT count(*) FROM installs WHERE attributed")
        try same("SELECT count(*) FROM clicks WHERE is_bot")
        try same("SELECT sum(clicks + bot_clicks + installs + events) FROM rollup_link_days")
        try same("SELECT sum(clicks + bot_clicks + installs + events) FROM rollup_project_hours")
        try same("SELECT sum(clicks + bot_clicks + installs + events) FROM rollup_link_hours")
        #expect(try connection.query("SELECT sum(clicks + bot_clicks) FROM rollup_project_hours WHERE project_id = 'p'").text(0, 0) == "600")
        let range = (Timestamp(milliseconds: 0), Timestamp(milliseconds: RollupTests.start + 30 * RollupTests.day))
        RollupTests.expectSame(
            try Stats(source: PGSource(pool: pool, writer: PGWriter(pool: pool))).stats(
                projectID: "p", since: range.0, until: range.1, currency: "USD"),
            try Stats(source: temp.database).stats(projectID: "p", since: range.0, until: range.1, currency: "USD"), "copied")
        try same("SELECT sum(id * length(click_id)) FROM clicks")  // each id with its own click

        // A click stored after the copy (by hand: not counted, as the second copy below compares
        // the rollups' rows too) gets an id after the copied ones.
        try connection.run("INSERT INTO clicks (click_id, project_id, created_at) VALUES ('later', ?, 1)", created.project.id)
        #expect(
            try connection.query("SELECT id > (SELECT max(id) FROM clicks WHERE click_id <> 'later') FROM clicks WHERE click_id = 'later'").boolean(
                0, 0) == true)
        try connection.execute("DELETE FROM clicks WHERE click_id = 'later'")

        let again = try copier.copy()
        #expect(again == counts)
    }
}
