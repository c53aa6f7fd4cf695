import Foundation
import TestSupport
import Testing

/// Links changed key by key, deleted, and made in bulk through the admin API.
@Suite struct LinkEditTests {
    static let desktop = ["User-Agent": "Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0"]

    @Test func aPatchChangesOnlyTheKeysSentAndNullClears() throws {
        let app = try TestApp()
        let (project, _, link) = try app.projectWithLink(
            #"{"short_code":"summer","title":"Summer","web_url":"https://shop.example/summer","utm":{"source":"mail"},"max_clicks":50}"#)
        let id = try #require(link["id"] as? String)
        let path = "/admin/v1/projects/\(project)/links/\(id)"
        let patched = try app.request("PATCH", path, json: #"{"web_url":"https://shop.example/autumn","title":null}"#)
        #expect(patched.status == 200, "\(patched.bodyText)")
        #expect(patched.json?["web_url"] as? String == "https://shop.example/autumn")
        #expect(patched.json?["title"] is NSNull || patched.json?["title"] == nil, "null clears")
        #expect(patched.json?["max_clicks"] as? Int == 50 && (patched.json?["utm"] as? [String: String])?["source"] == "mail", "the rest is kept")
        // The click path sees the change at once (the link cache follows the edit).
        #expect(
            try app.request("GET", "/summer", adminKey: nil, headers: Self.desktop).header("Location")?.hasPrefix("https://shop.example/autumn")
                == true)
        // A new code moves the link; the old one stops answering.
        #expect(try app.request("PATCH", path, json: #"{"short_code":"autumn"}"#).json?["short_code"] as? String == "autumn")
        #expect(try app.request("GET", "/summer", adminKey: nil, headers: Self.desktop).status == 404)
        #expect(try app.request("GET", "/autumn", adminKey: nil, headers: Self.desktop).status == 302)
        // Refusals name the key; nothing changes.
        let bad = try app.request("PATCH", path, json: #"{"web_url":"ftp://nope"}"#)
        #expect(bad.status == 422 && bad.bodyText.contains("web_url"), "\(bad.bodyText)")
        #expect(try app.request("PATCH", path, json: #"{"short_code":null}"#).status == 422)
        #expect(try app.request("PATCH", path, json: #"{"colour":"red"}"#).status == 422)
        #expect(try app.request("GET", path).json?["web_url"] as? String == "https://shop.example/autumn")
        #expect(try app.request("PATCH", "/admin/v1/projects/\(project)/links/no-such-link", json: "{}").status == 404)
    }

    @Test func aDeletedLinkStopsAnsweringAndItsClicksStayCounted() throws {
        let app = try TestApp()
        let (project, _, link) = try app.projectWithLink(#"{"short_code":"gone","web_url":"https://shop.example/"}"#)
        let id = try #require(link["id"] as? String)
        for _ in 0..<3 { #expect(try app.request("GET", "/gone", adminKey: nil, headers: Self.desktop).status == 302) }
        try app.settle()
        #expect(try app.request("DELETE", "/admin/v1/projects/\(project)/links/\(id)").status == 204)
        #expect(try app.request("GET", "/gone", adminKey: nil, headers: Self.desktop).status == 404)
        #expect(try app.request("DELETE", "/admin/v1/projects/\(project)/links/\(id)").status == 404)
        let stats = try #require(try app.request("GET", "/admin/v1/projects/\(project)/stats?since=7d").json)
        #expect((stats["totals"] as? [String: Any])?["clicks"] as? Int == 3 || stats["clicks"] as? Int == 3, "\(stats)")
    }

    @Test func bulkCreationReportsEachRow() throws {
        let app = try TestApp()
        let project = try #require(try app.createProject()["id"] as? String)
        let made = try app.request(
            "POST", "/admin/v1/projects/\(project)/links/bulk",
            json:
                #"{"links": [{"short_code":"one","web_url":"https://shop.example/1"}, {"short_code":"one"}, {"web_url":"not a url"}, {"short_code":"two"}]}"#
        )
        #expect(made.status == 201, "\(made.bodyText)")
        #expect(made.json?["created"] as? Int == 2 && made.json?["refused"] as? Int == 2)
        let results = try #require(made.json?["results"] as? [[String: Any]])
        #expect(results.map { $0["status"] as? Int } == [201, 409, 422, 201], "\(results)")
        #expect((results[2]["error"] as? String)?.contains("web_url") == true)
        #expect(try app.count("SELECT count(*) FROM links") == 2)
        let tooMany = "{\"links\": [" + Array(repeating: "{}", count: 1001).joined(separator: ",") + "]}"
        #expect(try app.request("POST", "/admin/v1/projects/\(project)/links/bulk", json: tooMany).status == 422)
    }
}
