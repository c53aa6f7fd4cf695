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
