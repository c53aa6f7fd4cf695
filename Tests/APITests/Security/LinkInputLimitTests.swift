import Foundation
import TestSupport
import Testing

/// What a link and a domain claim may hold: text of a bounded size, schemes an app can own, and
/// names spelt as a browser reads them.
@Suite struct LinkInputLimitTests {
    @Test func titlesAndDescriptionsHaveALength() throws {
        let app = try TestApp()
        let (project, _, _) = try app.projectWithLink()
        let long = String(repeating: "t", count: 501)
        for field in ["title", "description"] {
            let text = field == "title" ? long : String(repeating: "d", count: 2_001)
            let refused = try app.request(
                "POST", "/admin/v1/projects/\(project)/links", json: #"{"short_code":"big\#(field)","\#(field)":"\#(text)"}"#)
            #expect(refused.status == 422 && refused.bodyText.contains(field), "\(field): \(refused.status) \(refused.bodyText.prefix(200))")
        }
        #expect(try app.count("SELECT count(*) FROM links WHERE short_code LIKE 'big%'") == 0)
        #expect(
            try app.request(
                "POST", "/admin/v1/projects/\(project)/links", json: #"{"short_code":"fine","title":"\#(String(repeating: "t", count: 500))"}"#
            )
            .status == 201)
    }

    @Test func browserOnlySchemesAreNoAppsScheme() throws {
        let app = try TestApp()
        let (project, _, _) = try app.projectWithLink()
        for scheme in ["blob", "about", "javascript", "data"] {
            let refused = try app.request(
                "POST", "/admin/v1/projects/\(project)/links", json: #"{"short_code":"s\#(scheme)","app_scheme":"\#(scheme)"}"#)
            #expect(refused.status == 422 && refused.bodyText.contains("app_scheme"), "\(scheme): \(refused.bodyText)")
        }
    }

    @Test func domainNamesAreReadAsABrowserReadsThem() throws {
        let app = try TestApp()
        let project = try #require(try app.createProject("Shop")["id"] as? String)
        // Fullwidth letters and dots fold to the ASCII name: one claim, whichever way it was typed.
        let fullwidth = try app.request("POST", "/admin/v1/projects/\(project)/domains", json: #"{"domain":"ｌｉｎｋｓ．ｓｈｏｐ。test"}"#)
        #expect(fullwidth.status == 201 && fullwidth.json?["domain"] as? String == "links.shop.test", "\(fullwidth.bodyText)")
        #expect(try app.request("POST", "/admin/v1/projects/\(project)/domains", json: #"{"domain":"links.shop.test"}"#).status == 409)
        for invisible in ["links\u{200B}.shop.test", "li\u{00AD}nks.other.test", "links.other\u{200D}.test"] {
            let refused = try app.request("POST", "/admin/v1/projects/\(project)/domains", json: #"{"domain":"\#(invisible)"}"#)
            #expect(refused.status == 422 && refused.bodyText.contains("invisible"), "\(refused.bodyText)")
        }
    }
}
