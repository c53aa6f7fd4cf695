import Foundation
import TestSupport
import Testing

/// `attributiond domains …` on a database file: the same rules as the admin API.
@Suite struct DomainsCommandTests {
    @Test func domainsAreClaimedListedAndRemovedFromTheCommandLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-domains-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("db.sqlite").path
        #expect(try run(["migrate", "--db", db]).status == 0)
        func project(_ name: String) throws -> String {
            let created = try run(["project", "create", "--name", name, "--json", "--db", db])
            return try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String])?["id"])
        }
        let shop = try project("Shop")
        let news = try project("News")

        let added = try run(["domains", "add", "Links.Shop.test", "--project", shop, "--json", "--db", db])
        #expect(added.status == 0, "\(added.stderr)")
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: String])
        #expect(fields["domain"] == "links.shop.test" && fields["id"]?.hasPrefix("dom_") == true)

        let taken = try run(["domains", "add", "links.shop.test", "--project", news, "--db", db])
        #expect(taken.status == 1 && taken.stderr.contains("already claimed"), "\(taken.stderr)")
        let wildcard = try run(["domains", "add", "*.shop.test", "--project", news, "--db", db])
        #expect(wildcard.status == 2 && wildcard.stderr.contains("domain: '*.shop.test' may not be a wildcard"), "\(wildcard.stderr)")

        #expect(try run(["domains", "list", "--project", shop, "--db", db]).stdout.contains("links.shop.test"))
        #expect(try run(["domains", "list", "--project", news, "--db", db]).stdout.contains("no domains"))
        #expect(try run(["domains", "remove", "links.shop.test", "--project", news, "--db", db]).status == 1)
        #expect(try run(["domains", "remove", "links.shop.test", "--project", shop, "--db", db]).status == 0)
        #expect(try run(["domains", "list", "--project", shop, "--db", db]).stdout.contains("no domains"))
    }
}
