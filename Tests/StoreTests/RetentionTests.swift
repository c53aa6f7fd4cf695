import Attribution
import Foundation
import StoreContracts
import Testing

@_spi(StoreInternals) @testable import Store

@Suite struct RetentionTests {
    @Test func deletesOnlyClicksOlderThanTheCutoffInBatches() throws {
        let temp = try TemporaryDatabase()
        let database = temp.database
        let now = Timestamp(milliseconds: 1_763_700_000_000)
        let project = try SQLiteStore(database: database).projects.create(name: "P", settings: ProjectSettings()).project
        try database.writeAndWait { connection in
            // 2,500 old clicks then 300 recent ones, in time order as the server writes them.
            for index in 0..<2800 {
                let hoursAgo: Int64 = index < 2500 ? 400 - Int64(index / 100) : 10
                let click = Click(
                    clickID: "c\(index)", projectID: project.id, linkID: nil, source: .link,
                    createdAt: now.adding(seconds: -hoursAgo * 3600))
                try ClickRepository.insert(click, connection)
            }
        }
        var retention = ClickRetention(database: database)
        retention.batchSize = 1000
        #expect(try retention.automaticHours() == 168 + 24)
        let deleted = try retention.deleteClicks(before: now.adding(seconds: -192 * 3600))
        #expect(deleted == 2500)
        let left = try database.read { try $0.queryOne("SELECT count(*), min(created_at) FROM clicks") { ($0.int(0), $0.int(1)) } }
        #expect(left?.0 == 300)
        #expect(left?.1 == now.adding(seconds: -10 * 3600).milliseconds)
        #expect(try retention.deleteClicks(before: now.adding(seconds: -192 * 3600)) == 0)  // nothing more, and it stops at once
    }

    @Test func aTestModeProjectsClicksAreKeptByItsOwnClock() throws {
        let temp = try TemporaryDatabase()
        let database = temp.database
        let now = Timestamp(milliseconds: 1_763_700_000_000)
        let projects = SQLiteStore(database: database).projects
        let live = try projects.create(name: "Live", settings: ProjectSettings()).project
        let sandbox = try projects.create(name: "Sandbox", settings: ProjectSettings(), testMode: true).project
        try database.writeAndWait { connection in
            // Written in this order: a sandbox click old by the server's clock comes first, so
            // the sweep has to step past a row it must keep.
            let rows: [(String, Project, Int64)] = [
                ("s-old", sandbox, -300), ("l-old", live, -300), ("s-new", sandbox, -100),
                ("l-mid", live, -250), ("l-new", live, -10),
            ]
            for (id, project, hours) in rows {
                try ClickRepository.insert(
                    Click(
                        clickID: id, projectID: project.id, linkID: nil, source: .link,
                        createdAt: now.adding(seconds: hours * 3600)), connection)
            }
        }
        var retention = ClickRetention(database: database)
        retention.batchSize = 1
        // The sandbox clock stands 200 h behind the server: by it, none of its clicks is 192 h old yet.
        let deleted = try retention.deleteClicks(
            before: now.adding(seconds: -192 * 3600),
            testProjectCutoffs: [sandbox.id: now.adding(seconds: -392 * 3600)])
        #expect(deleted == 2)
        let left = try database.read { try $0.query("SELECT click_id FROM clicks ORDER BY id") { $0.string(0) } }
        #expect(left == ["s-old", "s-new", "l-new"])
    }

    @Test func theLongestWindowInUseSetsTheAutomaticRetention() throws {
        let temp = try TemporaryDatabase()
        var settings = ProjectSettings()
        settings.attributionWindowHours = 720
        _ = try SQLiteStore(database: temp.database).projects.create(name: "Long", settings: settings)
        #expect(try ClickRetention(database: temp.database).automaticHours() == 744)
    }
}
