import Foundation
import TestSupport
import Testing

@testable import API
@testable import App

/// A project's credentials can be rotated and a project deleted: the token is shown once, so a
/// lost or leaked one must be replaceable without breaking apps already shipped with it.
@Suite struct ProjectLifecycleTests {
    func initStatus(_ app: TestApp, token: String, instance: String) throws -> Int {
        try app.client("init", body("init", token: token, instance: instance)).status
    }

    @Test func aRotatedTokenWorksAtOnceAndTheOldOneForItsGracePeriodOnly() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, old) = try app.linkrunnerProject()
        #expect(try initStatus(app, token: old, instance: "a") == 200)

        let rotated = try app.request("POST", "/admin/v1/projects/\(projectID)/token", json: #"{"grace_hours":24}"#)
        #expect(rotated.status == 200)
        let new = try #require(rotated.json?["token"] as? String)
        #expect(new.hasPrefix("tok_") && new != old)
        #expect(rotated.json?["previous_token_valid_until"] is String)
        #expect(try initStatus(app, token: new, instance: "b") == 200)
        #expect(try initStatus(app, token: old, instance: "c") == 200, "the old token, in its grace period")

        // Rotated again with no grace: the token just replaced is refused at once, cache or not.
        let again = try app.request("POST", "/admin/v1/projects/\(projectID)/token", json: #"{"grace_hours":0}"#)
        let newest = try #require(again.json?["token"] as? String)
        #expect(again.json?["previous_token_valid_until"] is NSNull)
        #expect(try initStatus(app, token: new, instance: "d") == 401)
        #expect(try initStatus(app, token: old, instance: "e") == 401)
        #expect(try initStatus(app, token: newest, instance: "f") == 200)
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/token", json: #"{"grace_hours":9999}"#).status == 422)
        #expect(try app.request("POST", "/admin/v1/projects/nope/token", json: "{}").status == 404)
    }

    @Test func aDeletedProjectTakesItsDataWithItAndLeavesOthersAlone() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"], allowPrivateOutbound: true)  // no DNS for the hook's host
        let (projectID, key, _) = try app.projectWithLink()
        let other = try #require(try app.createProject("Other")["id"] as? String)
        #expect(try app.request("POST", "/admin/v1/projects/\(other)/links", json: #"{"short_code":"stays"}"#).status == 201)
        _ = try app.clickWithBeacon(ip: "198.51.100.23")
        let install = try #require(try app.install(ip: "198.51.100.23", key: key).json?["installId"] as? String)
        #expect(
            try app.request("POST", "/api/sdk/v1/event", json: #"{"installId":"\#(install)","eventName":"purchase"}"#, adminKey: key).status == 200)
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"https://hooks.example/x"}"#).status == 201)
        try app.settle()

        #expect(try app.request("DELETE", "/admin/v1/projects/\(projectID)").status == 204)
        #expect(try app.request("GET", "/admin/v1/projects/\(projectID)").status == 404)
        #expect(try app.request("DELETE", "/admin/v1/projects/\(projectID)").status == 404)
        for table in ["links", "clicks", "installs", "events", "api_keys", "webhook_endpoints", "rollup_link_days", "rollup_project_hours"] {
            #expect(try app.count("SELECT count(*) FROM \(table) WHERE project_id = '\(projectID)'") == 0, "\(table)")
        }
        #expect(try app.count("SELECT count(*) FROM links WHERE project_id = '\(other)'") == 1)
        #expect(try app.request("GET", "/summer", adminKey: nil).status == 404)
        let late = try app.request("POST", "/api/sdk/v1/event", json: #"{"installId":"\#(install)","eventName":"x"}"#, adminKey: key)
        #expect(late.status == 404 || late.status == 401, "\(late.status)")
        #expect(try app.count("SELECT count(*) FROM events") == 0)
    }

    /// The dashboard's delete: the server admin types the project's name; a project admin cannot.
    @Test func theDashboardDeletesAProjectAfterItsNameIsTyped() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        let admin = DashboardClient(app)
        try admin.signInWithAdminKey()
        let settings = "/projects/\(projectID)/settings"
        #expect(try admin.get(settings).bodyText.contains("Delete the project"))
        #expect(try admin.submit(from: settings, to: settings + "/delete", [("confirm", "Shop?")]).status == 422)
        #expect(try app.count("SELECT count(*) FROM projects") == 1)
        #expect(
            try admin.submit(
                from: settings, to: settings + "/users",
                [("email", "owner@example.com"), ("password", "correct horse battery"), ("role", "admin")]
            ).status == 201)
        let owner = DashboardClient(app)
        #expect(try owner.signIn(email: "owner@example.com", password: "correct horse battery").status == 303)
        #expect(!(try owner.get(settings).bodyText.contains("Delete the project")))
        #expect(try owner.submit(from: settings, to: settings + "/delete", [("confirm", "Shop")]).status == 403)
        let deleted = try admin.submit(from: settings, to: settings + "/delete", [("confirm", "Shop")])
        #expect(deleted.status == 200 && deleted.bodyText.contains("Project deleted"))
        #expect(try app.count("SELECT count(*) FROM projects") == 0 && app.count("SELECT count(*) FROM links") == 0)
    }

    @Test func theCommandLineRotatesATokenAndDeletesAProject() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-lifecycle-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("db.sqlite").path
        #expect(try run(["migrate", "--db", db]).status == 0)
        let created = try run(["project", "create", "--name", "Shop", "--json", "--db", db])
        let id = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String])?["id"])
        let rotated = try run(["project", "rotate-token", id, "--grace-hours", "0", "--json", "--db", db])
        #expect(rotated.status == 0, "\(rotated.stderr)")
        #expect((try JSONSerialization.jsonObject(with: Data(rotated.stdout.utf8)) as? [String: String])?["token"]?.hasPrefix("tok_") == true)
        #expect(try run(["project", "rotate-token", id, "--grace-hours", "9999", "--db", db]).status == 2)
        let unconfirmed = try run(["project", "delete", id, "--db", db])
        #expect(unconfirmed.status == 2 && unconfirmed.stderr.contains("--yes"))
        #expect(try run(["project", "delete", id, "--yes", "--db", db]).status == 0)
        #expect(try run(["project", "delete", id, "--yes", "--db", db]).status == 1)
        #expect(try run(["project", "list", "--db", db]).stdout.contains("no projects"))
    }
}
