import Foundation
import TestSupport
import Testing

/// `attributiond ad-platforms …` on a database file: the admin API's checks, credentials masked.
@Suite struct AdPlatformsCommandTests {
    @Test func connectionsAreManagedFromTheCommandLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-adplatforms-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("db.sqlite").path
        #expect(try run(["migrate", "--db", db]).status == 0)
        let created = try run(["project", "create", "--name", "Shop", "--json", "--db", db])
        let project = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String])?["id"])

        let refused = try run(["ad-platforms", "set", "tiktok", "--project", project, "--set", "event_source_id=73", "--db", db])
        #expect(refused.status == 2 && refused.stderr.contains("access_token: is required"), "\(refused.stderr)")
        let saved = try run([
            "ad-platforms", "set", "tiktok", "--project", project, "--set", "event_source_id=73", "--set", "access_token=tt-secret-9876",
            "--json", "--db", db,
        ])
        #expect(saved.status == 0, "\(saved.stderr)")
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(saved.stdout.utf8)) as? [String: String])
        #expect(fields["access_token"] == "••••9876" && fields["event_source_id"] == "73")
        let list = try run(["ad-platforms", "list", "--project", project, "--db", db])
        #expect(list.stdout.contains("tiktok") && !list.stdout.contains("tt-secret"))
        #expect(try run(["ad-platforms", "set", "myspace", "--project", project, "--db", db]).status != 0)
        #expect(try run(["ad-platforms", "delete", "tiktok", "--project", project, "--db", db]).status == 0)
        #expect(try run(["ad-platforms", "delete", "tiktok", "--project", project, "--db", db]).status == 1)
    }
}

/// `attributiond cost import` and `cost list` on a database file: the admin API's checks.
@Suite struct CostCommandTests {
    @Test func costIsImportedAndListedFromTheCommandLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-cost-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("db.sqlite").path
        #expect(try run(["migrate", "--db", db]).status == 0)
        let created = try run(["project", "create", "--name", "Shop", "--json", "--db", db])
        let project = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String])?["id"])
        let file = folder.appendingPathComponent("cost.csv").path
        try "date,network,campaign_id,campaign_name,spend\n2026-11-30,google,111,Winter,42.5\n".write(toFile: file, atomically: true, encoding: .utf8)
        let imported = try run(["cost", "import", file, "--project", project, "--db", db])
        #expect(imported.status == 0 && imported.stdout.contains("1 rows: 1 added, 0 replaced"), "\(imported.stdout)\(imported.stderr)")
        let listed = try run(["cost", "list", "--since", "2026-11-01", "--until", "2026-11-30", "--project", project, "--db", db])
        #expect(listed.stdout.contains("2026-11-30  google  Winter (111)  USD 42.50"), "\(listed.stdout)")
        let roas = try run(["stats", "--project", project, "--roas", "--since", "2026-11-30", "--until", "2026-12-01", "--db", db])
        #expect(roas.status == 0 && roas.stdout.contains("2026-11-30 to 2026-11-30, in USD"), "\(roas.stdout)\(roas.stderr)")
        let lines = roas.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("google") && $0.contains("111") && $0.contains("Winter") && $0.contains("42.5") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("total") && $0.contains("42.5") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("network") && $0.contains("campaign name") && !$0.contains("adgroup") }, "\(lines)")
        let byAdGroup = try run([
            "stats", "--project", project, "--roas", "--by", "adgroup", "--since", "2026-11-30", "--until", "2026-12-01", "--db", db,
        ])
        #expect(byAdGroup.stdout.split(separator: "\n").contains { $0.hasPrefix("network") && $0.contains("adgroup id") }, "\(byAdGroup.stdout)")
        let json = try run(["stats", "--project", project, "--roas", "--json", "--by", "network", "--since", "2026-11-30", "--db", db])
        let body = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
        let rows = try #require(body["rows"] as? [[String: Any]])
        #expect(body["by"] as? String == "network" && rows.first?["network"] as? String == "google" && rows.first?["spend"] as? Double == 42.5)
        #expect(try run(["stats", "--project", project, "--roas", "--by", "ad", "--db", db]).status != 0)
        try "date,network,campaign_id,campaign_name,spend\n2026-11-30,google,111,Winter,-1\n".write(toFile: file, atomically: true, encoding: .utf8)
        let refused = try run(["cost", "import", file, "--project", project, "--db", db])
        #expect(refused.status == 2 && refused.stderr.contains("line 2, column spend: must not be negative"), "\(refused.stderr)")
        let rates = folder.appendingPathComponent("eurofxref.csv").path
        try "Date, USD, JPY, \n27 November 2026, 1.0400, 160.00, \n".write(toFile: rates, atomically: true, encoding: .utf8)
        let imported2 = try run(["fx", "import", rates, "--db", db])
        #expect(imported2.status == 0 && imported2.stdout.contains("1 days, 2 rates"), "\(imported2.stdout)\(imported2.stderr)")
    }
}
