import Foundation
import TestSupport
import Testing

/// A Takeout-shaped export imported through the admin API: every column, awkward values, row by
/// row outcomes, dry runs that write nothing, re-runs that change nothing, conflicts reported.
@Suite struct FDLImportTests {
    static let header =
        "Short link,Deep link (link),Android package name (apn),Android fallback link (afl),Android minimum package version code (amv),"
        + "iOS bundle ID (ibi),iOS fallback link (ifl),iOS custom scheme (ius),iOS iPad fallback link (ipfl),iOS iPad bundle ID (ipbi),"
        + "iOS app store ID (isi),iOS minimum version (imv),Enable forced redirect? (efr),Desktop fallback link (ofl),Social title (st),"
        + "Social description (sd),Social image link (si),UTM source (utm_source),UTM medium (utm_medium),UTM campaign (utm_campaign),"
        + "UTM term (utm_term),UTM content (utm_content),iTunes Connect at,iTunes Connect ct,iTunes Connect mt,iTunes Connect pt,"
        + "Archived?,Link name,Creation timestamp"

    static let rows = [
        // Every column, a title with a comma, quotes and a line break, and Unicode.
        #"https://shop.page.link/spring,https://shop.example/p/1,com.example.shop,,120,com.example.shop,,shopapp,,,123456,2.1,1,https://shop.example/web,"Spring, ""new""","Line one"#
            + "\n"
            + #"line two — ünïcödé",https://shop.example/1.png,mail,email,spring,,,11l,spring,8,pt1,false,Spring sale 🌸,2024-03-01 10:00:00"#,
        // Only the required columns filled; archived.
        "https://shop.page.link/old,https://shop.example/old,,,,,,,,,,,,,,,,,,,,,,,,,true,,",
        // Refused: the deep link is not a web URL.
        "https://shop.page.link/bad,javascript:alert(1),,,,,,,,,,,,,,,,,,,,,,,,,,,",
        // Refused: a link on another domain.
        "https://other.page.link/x1,https://shop.example/x,,,,,,,,,,,,,,,,,,,,,,,,,,,",
    ]

    static func csv(_ rows: [String] = rows, header: String = header) -> String { ([header] + rows).joined(separator: "\r\n") + "\r\n" }

    static func app() throws -> (TestApp, String) {
        let app = try TestApp()
        let project = try #require(try app.createProject("Shop", extra: #","ios_bundle_id":"com.example.shop""#)["id"] as? String)
        #expect(try app.request("POST", "/admin/v1/projects/\(project)/domains", json: #"{"domain":"shop.page.link"}"#).status == 201)
        return (app, project)
    }

    func upload(_ app: TestApp, _ project: String, _ csv: String, query: String = "", domain: String = "shop.page.link") throws -> TestResponse {
        try app.send("POST", "/admin/v1/projects/\(project)/imports/fdl?domain=\(domain)\(query)", body: Array(csv.utf8), contentType: "text/csv")
    }

    @Test func aDryRunReportsEveryRowAndWritesNothing() throws {
        let (app, project) = try Self.app()
        let report = try upload(app, project, Self.csv(), query: "&dry_run=true")
        #expect(report.status == 200, "\(report.bodyText)")
        let json = try #require(report.json)
        #expect(json["dry_run"] as? Bool == true && json["created"] as? Int == 2 && json["refused"] as? Int == 2, "\(json)")
        let rows = try #require(json["rows"] as? [[String: Any]])
        // Lines as the file has them: the first row spans two (a line break inside quotes).
        #expect(rows[2]["column"] as? String == "Deep link (link)" && rows[2]["line"] as? Int == 5, "\(rows[2])")
        #expect((rows[3]["reason"] as? String)?.contains("not a link on shop.page.link") == true)
        #expect(try app.count("SELECT count(*) FROM links") == 0)
    }

    @Test func anImportCreatesLinksThatWorkAndARerunChangesNothing() throws {
        let (app, project) = try Self.app()
        let first = try upload(app, project, Self.csv())
        #expect(first.json?["created"] as? Int == 2, "\(first.bodyText)")
        let links = try #require(try app.request("GET", "/admin/v1/projects/\(project)/links").jsonArray)
        let spring = try #require(links.first { $0["short_code"] as? String == "spring" })
        #expect(spring["title"] as? String == "Spring sale 🌸" && spring["domain"] as? String == "shop.page.link")
        #expect(spring["created_at"] as? String == "2024-03-01T10:00:00Z", "\(spring["created_at"] ?? "")")
        #expect((spring["og"] as? [String: String])?["title"] == #"Spring, "new""#)
        #expect((spring["og"] as? [String: String])?["description"] == "Line one\nline two — ünïcödé")
        #expect(links.first { $0["short_code"] as? String == "old" }?["active"] as? Bool == false, "archived rows come in disabled")
        // efr=1 and an App Store id: an iPhone goes straight to the store with the tokens.
        let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148"
        let tap = try app.request("GET", "/spring", adminKey: nil, headers: ["User-Agent": iPhone], host: "shop.page.link")
        #expect(
            tap.status == 302 && tap.header("Location")?.hasPrefix("https://apps.apple.com/app/id123456?at=11l&ct=spring&mt=8&pt=pt1") == true,
            "\(tap.header("Location") ?? "")")

        let again = try #require(try upload(app, project, Self.csv()).json)
        #expect(again["created"] as? Int == 0 && again["skipped"] as? Int == 2, "\(again)")
        #expect(try app.count("SELECT count(*) FROM links") == 2)
    }

    @Test func aTakenCodeIsAConflictUnlessReplacingIsAsked() throws {
        let (app, project) = try Self.app()
        #expect(
            try app.request(
                "POST", "/admin/v1/projects/\(project)/links",
                json: #"{"short_code":"spring","domain":"shop.page.link","web_url":"https://shop.example/mine"}"#
            ).status == 201)
        let conflicted = try #require(try upload(app, project, Self.csv()).json)
        #expect(conflicted["conflicts"] as? Int == 1 && conflicted["created"] as? Int == 1, "\(conflicted)")
        #expect(try app.count("SELECT count(*) FROM links WHERE short_code = 'spring' AND fdl IS NULL") == 1, "never overwritten unasked")
        let replaced = try #require(try upload(app, project, Self.csv(), query: "&on_conflict=replace").json)
        #expect(replaced["replaced"] as? Int == 1 && replaced["skipped"] as? Int == 1, "\(replaced)")
        #expect(try app.count("SELECT count(*) FROM links WHERE short_code = 'spring' AND fdl IS NOT NULL") == 1)
    }

    @Test func columnsInAnotherOrderAreReadAndAnUnknownColumnRefusesTheFile() throws {
        let (app, project) = try Self.app()
        let reordered = try upload(app, project, "Link name,Deep link (link),Short link\nHome,https://shop.example/,https://shop.page.link/home\n")
        #expect(reordered.json?["created"] as? Int == 1, "\(reordered.bodyText)")
        let unknown = try upload(
            app, project,
            Self.csv(["https://shop.page.link/x2,https://shop.example/,,,,,,,,,,,,,,,,,,,,,,,,,,,,extra"], header: Self.header + ",Favourite colour"))
        #expect(unknown.status == 422 && unknown.bodyText.contains("Favourite colour"), "\(unknown.bodyText)")
        let broken = try upload(app, project, "Short link,Deep link (link)\n\"https://shop.page.link/q,https://shop.example/\n")
        #expect(broken.status == 422 && broken.bodyText.contains("never closed"), "\(broken.bodyText)")
        #expect(try app.count("SELECT count(*) FROM links") == 1, "a bad file changes nothing")
        let notOurs = try upload(app, project, Self.csv(), query: "").status
        #expect(notOurs == 200)
        let otherDomain = try upload(app, project, Self.csv(), domain: "other.page.link")
        #expect(otherDomain.status == 422 && otherDomain.bodyText.contains("domain"), "\(otherDomain.bodyText)")
        #expect(try app.request("POST", "/admin/v1/projects/\(project)/imports/fdl?domain=shop.page.link", json: "{}").status == 415)
    }

    @Test func theCommandLineImportsTheSameFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-fdl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("db.sqlite").path
        let file = folder.appendingPathComponent("export.csv")
        try Data(Self.csv().utf8).write(to: file)
        #expect(try run(["migrate", "--db", db]).status == 0)
        let created = try run(["project", "create", "--name", "Shop", "--json", "--db", db])
        let project = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String])?["id"])
        #expect(try run(["domains", "add", "shop.page.link", "--project", project, "--db", db]).status == 0)
        let dry = try run(["import", "fdl", "--project", project, "--domain", "shop.page.link", "--dry-run", file.path, "--db", db])
        #expect(
            dry.status == 1 && dry.stdout.contains("dry run: would create 2") && dry.stdout.contains("line 5: refused (Deep link (link))"),
            "\(dry.stdout)")
        let done = try run(["import", "fdl", "--project", project, "--domain", "shop.page.link", file.path, "--json", "--db", db])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(done.stdout.utf8)) as? [String: Any])
        #expect(report["created"] as? Int == 2 && report["refused"] as? Int == 2 && done.status == 1, "\(done.stdout)")
        // Run again with only the rows that came: nothing refused, exit 0, nothing created twice.
        let good = Self.csv(Array(Self.rows.prefix(2)))
        try Data(good.utf8).write(to: file)
        let again = try run(["import", "fdl", "--project", project, "--domain", "shop.page.link", file.path, "--db", db])
        #expect(again.status == 0 && again.stdout.contains("created 0, skipped 2"), "\(again.stdout)")
        let wrongDomain = try run(["import", "fdl", "--project", project, "--domain", "other.page.link", file.path, "--db", db])
        #expect(wrongDomain.status == 2 && wrongDomain.stderr.contains("domain"), "\(wrongDomain.stderr)")
    }

    @Test func theDashboardUploadsAnExport() throws {
        let (app, project) = try Self.app()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let links = "/projects/\(project)/links"
        #expect(try browser.get(links).bodyText.contains("Import from Firebase Dynamic Links"))
        let dry = try browser.submitMultipart(
            from: links, to: links + "/import-fdl", [("domain", "shop.page.link"), ("on_conflict", "skip"), ("dry_run", "1")],
            file: ("file", Array(Self.csv().utf8)))
        #expect(
            dry.status == 200 && dry.bodyText.contains("Dry run — would create 2") && dry.bodyText.contains("not a link on shop.page.link"),
            "\(dry.bodyText)")
        #expect(try app.count("SELECT count(*) FROM links") == 0)
        let done = try browser.submitMultipart(
            from: links, to: links + "/import-fdl", [("domain", "shop.page.link"), ("on_conflict", "skip")], file: ("file", Array(Self.csv().utf8)))
        #expect(done.bodyText.contains("Created 2"), "\(done.bodyText)")
        #expect(try app.count("SELECT count(*) FROM links WHERE fdl IS NOT NULL") == 2)
    }
}
