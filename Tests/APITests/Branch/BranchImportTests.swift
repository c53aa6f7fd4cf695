import Foundation
import TestSupport
import Testing

/// A CSV of Branch links moved over through `POST …/imports/branch`: rows created with their
/// data as the links' fields, a re-run skipping them, a changed row a conflict until replace is
/// asked, bad rows refused naming their column; an imported link serves taps and Branch's SDK.
@Suite struct BranchImportTests {
    static let csv = """
        url,data,channel,feature,campaign,stage,tags,title
        https://shop.app.link/summer-sale,"{""$deeplink_path"":""product/42"",""$og_title"":""Summer"",""promo"":""S10"",""$ios_url"":""https://apps.apple.com/app/id9""}",mail,newsletter,summer,,a;b,Summer sale
        https://shop.app.link/refer?x=1,"{""referrer"":""u-1""}",share,referral,,,,
        https://shop.app.link/,"{}",,,,,,
        https://shop.app.link/broken,"{not json",,,,,,
        https://shop.app.link/refer,"{""referrer"":""u-2""}",share,referral,,,,
        """

    private func upload(_ app: TestApp, _ projectID: String, _ csv: String, query: String = "") throws -> TestResponse {
        try app.send("POST", "/admin/v1/projects/\(projectID)/imports/branch\(query)", body: Array(csv.utf8), contentType: "text/csv")
    }

    @Test func aBranchLinkCSVImportsIdempotentlyRowByRowAndTheLinksServe() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, _, _) = try app.projectWithLink()
        let dry = try upload(app, projectID, Self.csv, query: "?dry_run=true")
        #expect(dry.status == 200 && dry.json?["dry_run"] as? Bool == true && dry.json?["created"] as? Int == 2, "\(dry.bodyText)")
        let links = try app.count("SELECT count(*) FROM links")

        let first = try upload(app, projectID, Self.csv)
        let body = try #require(first.json, "\(first.bodyText)")
        #expect(body["created"] as? Int == 2 && body["refused"] as? Int == 3, "\(first.bodyText)")
        let rows = try #require(body["rows"] as? [[String: Any]])
        #expect(rows.contains { $0["line"] as? Int == 4 && $0["column"] as? String == "url" }, "no code: \(rows)")
        #expect(rows.contains { $0["line"] as? Int == 5 && $0["column"] as? String == "data" }, "\(rows)")
        #expect(rows.contains { $0["line"] as? Int == 6 && ($0["reason"] as? String)?.contains("line 3") == true }, "\(rows)")
        #expect(try app.count("SELECT count(*) FROM links") == links + 2)

        // The link as Branch's SDK reads it back, and as a tap opens it.
        let key = try app.branchKey(projectID)
        let read = try app.request("GET", "/v1/url?url=http%3A%2F%2Ftest%2Fsummer-sale&branch_key=\(key)", adminKey: nil)
        let data = try #require(read.json?["data"] as? [String: Any], "\(read.bodyText)")
        #expect(data["$deeplink_path"] as? String == "product/42" && data["promo"] as? String == "S10" && data["$og_title"] as? String == "Summer")
        #expect(
            data["~channel"] as? String == "mail" && data["~campaign"] as? String == "summer" && data["~tags"] as? [String] == ["a", "b"], "\(data)")
        let tap = try app.request("GET", "/summer-sale", adminKey: nil, headers: ["User-Agent": safariIPhone])
        #expect(tap.status < 400 && tap.header("X-Click-Id") != nil)

        // Again: nothing new. A changed row is a conflict, then replaced when asked.
        let again = try upload(app, projectID, Self.csv)
        #expect(again.json?["created"] as? Int == 0 && again.json?["skipped"] as? Int == 2, "\(again.bodyText)")
        let changed = "url,data\nhttps://shop.app.link/refer,\"{\"\"referrer\"\":\"\"u-3\"\"}\"\n"
        #expect(try upload(app, projectID, changed).json?["conflicts"] as? Int == 1)
        #expect(try upload(app, projectID, changed, query: "?on_conflict=replace").json?["replaced"] as? Int == 1)
        #expect(try app.count("SELECT count(*) FROM links") == links + 2)

        // A header that is not Branch's, or a domain not the project's: refused, nothing stored.
        let header = try upload(app, projectID, "short,data\nx,{}\n")
        #expect(header.json?["refused"] as? Int == 1 && (header.json?["rows"] as? [[String: Any]])?.first?["column"] as? String == "short")
        #expect(try upload(app, projectID, Self.csv, query: "?domain=elsewhere.example").status == 422)
        #expect(try app.count("SELECT count(*) FROM links") == links + 2)
    }

    @Test func theCommandLineImportsTheSameFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-branch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("db.sqlite").path
        let file = folder.appendingPathComponent("links.csv")
        try Data(Self.csv.utf8).write(to: file)
        #expect(try run(["migrate", "--db", db]).status == 0)
        let created = try run(["project", "create", "--name", "Shop", "--json", "--db", db])
        let project = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String])?["id"])
        let done = try run(["import", "branch", "--project", project, file.path, "--db", db])
        #expect(done.status == 1 && done.stdout.contains("created 2, skipped 0") && done.stdout.contains("line 5: refused (data)"), "\(done.stdout)")
        let again = try run(["import", "branch", "--project", project, file.path, "--json", "--db", db])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any], "\(again.stdout)")
        #expect(report["created"] as? Int == 0 && report["skipped"] as? Int == 2, "\(again.stdout)")
    }

    @Test func theDashboardUploadsTheSameFile() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, _, _) = try app.projectWithLink()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let links = "/projects/\(projectID)/links"
        #expect(try browser.get(links).bodyText.contains("Import Branch links"))
        let before = try app.count("SELECT count(*) FROM links")
        let dry = try browser.submitMultipart(
            from: links, to: links + "/import-branch", [("domain", ""), ("on_conflict", "skip"), ("dry_run", "1")],
            file: ("file", Array(Self.csv.utf8)))
        #expect(
            dry.status == 200 && dry.bodyText.contains("Dry run — would create 2") && dry.bodyText.contains("must be a JSON object"),
            "\(dry.bodyText)")
        #expect(try app.count("SELECT count(*) FROM links") == before)
        let done = try browser.submitMultipart(
            from: links, to: links + "/import-branch", [("domain", ""), ("on_conflict", "skip")], file: ("file", Array(Self.csv.utf8)))
        #expect(done.bodyText.contains("Created 2, skipped 0"), "\(done.bodyText)")
        #expect(try app.count("SELECT count(*) FROM links") == before + 2)
    }
}
