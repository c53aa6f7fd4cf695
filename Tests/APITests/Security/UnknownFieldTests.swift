import Foundation
import TestSupport
import Testing

/// Every admin route that reads a JSON body refuses a key it does not know, by name: a misspelt
/// field (`{"scope": "read"}`) is never dropped in silence while the call answers success.
@Suite struct UnknownFieldTests {
    @Test func everyAdminBodyRefusesAnUnknownFieldByName() throws {
        let app = try TestApp(allowPrivateOutbound: true)
        let (project, _, link) = try app.projectWithLink()
        let linkID = try #require(link["id"] as? String)
        let made = try app.request("POST", "/admin/v1/projects/\(project)/webhooks", json: #"{"url":"http://127.0.0.1:9/x"}"#)
        let webhook = try #require(made.json?["id"] as? String, "\(made.status) \(made.bodyText)")
        let postback = try #require(
            try app.request(
                "POST", "/admin/v1/projects/\(project)/postbacks",
                json: #"{"network":"n","trigger":"install","method":"GET","url":"http://127.0.0.1:9/p?c={click_id}"}"#
            ).json?["id"] as? String)
        let routes: [(String, String)] = [
            ("POST", "/admin/v1/projects"), ("PATCH", "/admin/v1/projects/\(project)"), ("POST", "/admin/v1/projects/\(project)/token"),
            ("POST", "/admin/v1/projects/\(project)/api-keys"), ("POST", "/admin/v1/projects/\(project)/signing-keys"),
            ("POST", "/admin/v1/projects/\(project)/templates"), ("POST", "/admin/v1/projects/\(project)/links"),
            ("POST", "/admin/v1/projects/\(project)/domains"), ("POST", "/admin/v1/projects/\(project)/links/bulk"),
            ("PATCH", "/admin/v1/projects/\(project)/links/\(linkID)"), ("POST", "/admin/v1/projects/\(project)/clock"),
            ("POST", "/admin/v1/projects/\(project)/webhooks"), ("PATCH", "/admin/v1/projects/\(project)/webhooks/\(webhook)"),
            ("POST", "/admin/v1/projects/\(project)/postbacks"), ("PATCH", "/admin/v1/projects/\(project)/postbacks/\(postback)"),
            ("PUT", "/admin/v1/projects/\(project)/apple-ads"), ("PUT", "/admin/v1/projects/\(project)/skan/forwarding"),
            ("POST", "/admin/v1/projects/\(project)/deliveries/replay"),
        ]
        for (method, path) in routes {
            let answer = try app.request(method, path, json: #"{"scope":"read"}"#)
            #expect(
                (400..<500).contains(answer.status) && answer.bodyText.contains("scope"),
                "\(method) \(path): \(answer.status) \(answer.bodyText.prefix(200))")
        }
        #expect(try app.count("SELECT count(*) FROM api_keys WHERE project_id = '\(project)'") == 1)
    }
}
