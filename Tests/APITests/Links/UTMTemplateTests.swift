import Foundation
import TestSupport
import Testing

@testable import API

@Suite struct UTMTemplateTests {
    @Test func aProjectsTemplatesFillTheUTMKeysANewLinkLeavesEmpty() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        let set = try app.request(
            "PATCH", "/admin/v1/projects/\(projectID)",
            json:
                #"{"utm_templates":[{"name":"Newsletter","source":"newsletter","medium":"email","campaign":"weekly"},{"name":"Ads","source":"google","medium":"cpc"}]}"#
        )
        #expect(set.status == 200, "\(set.bodyText)")
        #expect((set.json?["utm_templates"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Newsletter", "Ads"])

        let made = try app.request(
            "POST", "/admin/v1/projects/\(projectID)/links",
            json: #"{"short_code":"weekly","web_url":"https://shop.example.com/","utm_template":"Newsletter","utm":{"campaign":"spring"}}"#)
        #expect(made.status == 201)
        #expect(made.json?["utm"] as? [String: String] == ["source": "newsletter", "medium": "email", "campaign": "spring"])
        // Stored on the link: a tap carries them.
        let tap = try app.request("GET", "/weekly", adminKey: nil, headers: ["User-Agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/124.0"])
        #expect(tap.header("Location") == "https://shop.example.com/?utm_source=newsletter&utm_medium=email&utm_campaign=spring")

        let unknown = try app.request(
            "POST", "/admin/v1/projects/\(projectID)/links", json: #"{"web_url":"https://shop.example.com/","utm_template":"Radio"}"#)
        #expect(unknown.status == 422)
        #expect((unknown.json?["message"] as? String)?.hasPrefix("utm_template: no UTM template named 'Radio'") == true, "\(unknown.bodyText)")

        for (body, key) in [
            (#"{"utm_templates":[{"name":"A","medium":""}]}"#, "utm_templates[0].medium"),
            (#"{"utm_templates":[{"name":"A","channel":"x"}]}"#, "utm_templates[0].channel"),
            (#"{"utm_templates":[{"source":"x"}]}"#, "utm_templates[0].name"),
            (#"{"utm_templates":[{"name":"A","source":"x"},{"name":"A","source":"y"}]}"#, "utm_templates[1].name"),
            (#"{"utm_templates":{"name":"A"}}"#, "utm_templates"),
        ] {
            let refused = try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: body)
            #expect(refused.status == 422)
            #expect((refused.json?["message"] as? String)?.hasPrefix(key + ":") == true, "\(body): \(refused.bodyText)")
        }
        let cleared = try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"utm_templates":null}"#)
        #expect((cleared.json?["utm_templates"] as? [Any])?.isEmpty == true)
    }

    @Test func theDashboardEditsTemplatesAsRowsAndOffersThemInTheLinkForm() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let settings = "/projects/\(projectID)/settings"
        let saved = try browser.submit(
            from: settings, to: settings + "/project",
            [
                ("utm_name_0", "Newsletter"), ("utm_source_0", "newsletter"), ("utm_medium_0", "email"),
                ("utm_name_1", ""), ("utm_source_1", "ignored"),
            ])
        #expect(saved.bodyText.contains("Settings saved."), "\(saved.bodyText)")
        #expect(saved.bodyText.contains(#"name="utm_name_0" value="Newsletter""#))
        let project = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)").json)
        #expect((project["utm_templates"] as? [[String: Any]])?.first?["medium"] as? String == "email")
        #expect((project["utm_templates"] as? [Any])?.count == 1)

        let links = "/projects/\(projectID)/links"
        let form = try browser.get(links).bodyText
        #expect(form.contains(#"<option value="Newsletter">Newsletter — source newsletter, medium email</option>"#))
        let created = try browser.submit(
            from: links, to: links, [("short_code", "mail1"), ("original_url", "https://shop.example.com/"), ("utm_template", "Newsletter")])
        #expect(created.status == 201)
        let link = try #require(
            try app.request("GET", "/admin/v1/projects/\(projectID)/links").jsonArray?.first { $0["short_code"] as? String == "mail1" })
        #expect(link["utm"] as? [String: String] == ["source": "newsletter", "medium": "email"])
    }
}
