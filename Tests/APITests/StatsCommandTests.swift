import Attribution
import Foundation
import StoreContracts
import TestSupport
import Testing

@_spi(StoreInternals) @testable import Store

@Suite struct StatsCommandTests {
    @Test func statsPrintsTheSameCountsAsTheAdminAPIAsATableAndAsJSON() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-stats-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("db.sqlite").path
        #expect(try run(["migrate", "--db", db]).status == 0)
        let created = try run(["project", "create", "--name", "Shop", "--json", "--db", db])
        let id = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String])?["id"])
        try Fixtures.seed(try Database(path: db), projectID: id)

        let json = try run(["stats", "--project", id, "--json", "--db", db])
        #expect(json.status == 0, "\(json.stderr)")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let totals = try #require(body["totals"] as? [String: Any])
        #expect(totals["clicks"] as? Int == 2 && totals["bot_clicks"] as? Int == 1)
        #expect(totals["installs"] as? Int == 3 && totals["attributed_installs"] as? Int == 2 && totals["organic_installs"] as? Int == 1)
        #expect(totals["events"] as? Int == 3)
        #expect(totals["payment_revenue"] as? [String: Double] == ["USD": 20])
        #expect(totals["event_revenue"] as? [String: Double] == ["USD": 9.99])

        let table = try run(["stats", "--project", id, "--since", "7d", "--db", db])
        #expect(table.status == 0, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(
            lines.contains([
                "link", "clicks", "bot", "clicks", "installs", "attributed", "deterministic", "probabilistic", "organic",
                "events", "payments", "event", "values",
            ]), "\(table.stdout)")
        #expect(lines.contains(["abc", "2", "1", "2", "2", "1", "1", "0", "3", "20.00", "USD", "9.99", "USD"]), "\(table.stdout)")
        #expect(lines.contains(["total", "2", "1", "3", "2", "1", "1", "1", "3", "20.00", "USD", "9.99", "USD"]), "\(table.stdout)")

        let long = try run(["stats", "--project", id, "--since", "2000-01-01T00:00:00Z", "--until", "2000-01-02T00:00:00Z", "--db", db])
        #expect(
            long.stdout.split(separator: "\n").last?.split(separator: " ").map(String.init)
                == ["total", "0", "0", "0", "0", "0", "0", "0", "0", "-", "-"])
    }

    @Test func badStatsFlagsExitTwoNamingTheFlagAndAnUnknownProjectOne() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-stats-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("db.sqlite").path
        #expect(try run(["migrate", "--db", db]).status == 0)
        for (flags, named) in [(["--since", "yesterday"], "--since"), (["--until", "999999999999999d"], "--until"), ([], "--project")] {
            let result = try run(["stats"] + (named == "--project" ? [] : ["--project", "p"]) + flags + ["--db", db])
            #expect(result.status == 2, "\(flags)")
            #expect(result.stderr.contains(named), "\(result.stderr)")
        }
        let unknown = try run(["stats", "--project", "nope", "--db", db])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no project nope"))
    }
}
