import App
import Foundation
@_spi(StoreInternals) import Store
import StoreContracts
import TestSupport
import Testing

@testable import API

@Suite struct DashboardTests {
    @Test func pagesNeedASignInAndTheAdminKeyGivesOne() throws {
        let app = try TestApp()
        _ = try app.projectWithLink()
        let browser = DashboardClient(app)
        let anonymous = try browser.get("/")
        #expect(anonymous.status == 303)
        #expect(anonymous.header("Location") == "/dashboard/sign-in")
        let form = try browser.get("/sign-in")
        #expect(form.status == 200)
        #expect(form.bodyText.contains(#"name="admin_key""#))

        let wrong = try browser.signInWithAdminKey("not-the-key")
        #expect(wrong.status == 401)
        #expect(browser.cookie == nil)

        let signedIn = try browser.signInWithAdminKey()
        #expect(signedIn.status == 303)
        #expect(signedIn.header("Location") == "/dashboard/")
        let cookie = try #require(signedIn.header("Set-Cookie"))
        #expect(cookie.contains("HttpOnly"))
        #expect(cookie.contains("SameSite=Lax"))
        #expect(cookie.contains("Path=/dashboard"))
        #expect(!cookie.contains("Secure"))  // plain HTTP here
        // Only the token's hash is stored.
        #expect(try app.count("SELECT count(*) FROM dashboard_sessions") == 1)
        #expect(try app.count("SELECT count(*) FROM dashboard_sessions WHERE token_hash = '\(browser.cookie!)'") == 0)

        let projects = try browser.get("/")
        #expect(projects.status == 200)
        #expect(projects.bodyText.contains("Shop"))
        let policy = try #require(projects.header("Content-Security-Policy"))
        #expect(policy.contains("default-src 'none'"))
        #expect(policy.contains("frame-ancestors 'none'"))
        #expect(projects.header("Cache-Control") == "no-store")
        #expect(projects.header("X-Frame-Options") == "DENY")
        // Every page works without JavaScript: one external, same-origin script only adds copy
        // buttons (hidden until it runs); no inline script, none from elsewhere.
        #expect(projects.bodyText.components(separatedBy: "<script").count == 2)
        #expect(projects.bodyText.contains(#"<script src="/dashboard/assets/\#(DashboardAssets.scriptName)" defer></script>"#))
        #expect(policy.contains("script-src 'self';") && !policy.contains("unsafe-inline"))
        let script = try browser.get("/assets/\(DashboardAssets.scriptName)")
        #expect(script.header("Content-Type") == "text/javascript; charset=utf-8")
        #expect(script.body == DashboardAssets.script)
    }

    @Test func theStylesheetIsNamedByItsHashAndCachedForGood() throws {
        let app = try TestApp()
        let browser = DashboardClient(app)
        let page = try browser.get("/sign-in").bodyText
        let start = try #require(page.range(of: "/dashboard/assets/"))
        let name = String(page[start.upperBound...].prefix { $0 != "\"" })
        #expect(name.hasPrefix("dashboard.") && name.hasSuffix(".css"))
        let asset = try browser.get("/assets/" + name)
        #expect(asset.status == 200)
        #expect(asset.header("Content-Type") == "text/css; charset=utf-8")
        #expect(asset.header("Cache-Control") == "public, max-age=31536000, immutable")
        #expect(try browser.get("/assets/dashboard.000000000000.css").status == 404)
    }

    @Test func theOverviewCountsAClickFromAnotherClientAndExportsCSV() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let before = try browser.get("/projects/\(projectID)?range=24h")
        #expect(before.status == 200)
        #expect(before.bodyText.contains("<svg"))
        #expect(
            try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)"]).status
                == 200)
        try app.settle()
        let after = try browser.get("/projects/\(projectID)?range=24h&sort=clicks")
        #expect(after.status == 200)
        #expect(after.bodyText.contains(#"<small>Clicks</small><b>1</b>"#))
        #expect(!before.bodyText.contains(#"<small>Clicks</small><b>1</b>"#))
        #expect(after.bodyText.contains("<title>"))  // a chart bar with its value

        let csv = try browser.get("/projects/\(projectID)?range=7d&format=csv")
        #expect(csv.status == 200)
        #expect(csv.header("Content-Type") == "text/csv; charset=utf-8")
        #expect(
            csv.bodyText.hasPrefix(
                "short_code,utm_source,utm_medium,utm_campaign,clicks,bot_clicks,installs,events,payments\r\nsummer,mail,,summer,1,0,0,0,\r\n"))
        let campaigns = try browser.get("/projects/\(projectID)?range=7d&csort=installs&format=campaigns.csv")
        #expect(campaigns.header("Content-Disposition")?.contains("campaigns-\(projectID)-7d.csv") == true)
        #expect(campaigns.bodyText == "utm_source,utm_medium,utm_campaign,clicks,bot_clicks,installs,events,payments\r\nmail,,summer,1,0,0,0,\r\n")
        #expect(after.bodyText.contains("csort=installs"))  // the campaigns table sorts by its columns
        #expect(try browser.get("/projects/\(projectID)?range=1y").status == 422)
        #expect(try browser.get("/projects/no-such-project").status == 404)
    }

    /// A campaign name a spreadsheet would run as a formula once the CSV is opened, disguised as
    /// the outside test did: a combining mark after `=`, leading spaces, a full-width sign, a
    /// zero-width space. Each comes out with a `'` before it.
    @Test func theCSVExportDisarmsFormulasHoweverTheyAreDisguised() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        let disguised = ["=\u{301}HYPERLINK(\"http://x\")", "  =1+1", "\u{FF1D}1+1", "\u{200B}@SUM(A1)", "-2+3"]
        for (index, campaign) in disguised.enumerated() {
            let json = String(
                decoding: try JSONSerialization.data(withJSONObject: ["short_code": "formula\(index)", "utm": ["campaign": campaign]]), as: UTF8.self)
            #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/links", json: json).status == 201)
            #expect(
                try app.request(
                    "GET", "/formula\(index)", adminKey: nil, headers: ["User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)"]
                ).status == 200)
        }
        try app.settle()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let csv = try browser.get("/projects/\(projectID)?range=7d&format=campaigns.csv").bodyText
        for campaign in disguised {
            let field = OverviewRoutes.csvField(campaign)
            #expect(field.hasPrefix("'") || field.hasPrefix("\"'"), "\(campaign.debugDescription)")
            #expect(csv.contains("," + field + ","), "\(campaign.debugDescription) in \(csv.debugDescription)")
        }
        #expect(OverviewRoutes.csvField("\t=1+1") == "'\t=1+1" && OverviewRoutes.csvField("\r=1+1") == "\"'\r=1+1\"")
        #expect(OverviewRoutes.csvField("summer") == "summer" && OverviewRoutes.csvField("café =1") == "café =1")
    }

    /// A templated link's clicks carry the template's UTM values: its campaign row says so too.
    @Test func aTemplatedLinksClicksAreFiledUnderTheTemplatesCampaign() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        #expect(
            try app.request(
                "POST", "/admin/v1/projects/\(projectID)/templates",
                json: #"{"slug":"news","name":"News","utm":{"source":"newsletter","campaign":"spring"}}"#
            ).status == 201)
        #expect(
            try app.request("POST", "/admin/v1/projects/\(projectID)/links", json: #"{"short_code":"issue7","template_slug":"news"}"#).status == 201)
        #expect(
            try app.request("GET", "/news/issue7", adminKey: nil, headers: ["User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)"])
                .status == 200)
        try app.settle()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let csv = try browser.get("/projects/\(projectID)?range=7d&format=campaigns.csv").bodyText
        #expect(csv.contains("\r\nnewsletter,,spring,1,0,0,0,\r\n"), "\(csv.debugDescription)")
    }

    @Test func linksAreCreatedSearchedAndDisabledThroughForms() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let page = "/projects/\(projectID)/links"
        let created = try browser.submit(
            from: page, to: page,
            [
                ("short_code", "spring"), ("title", "Spring sale"),
                ("original_url", "https://shop.example.com/spring"), ("utm_campaign", "spring"),
            ])
        #expect(created.status == 201)
        #expect(created.bodyText.contains("/spring"))
        let stored = try #require(
            try app.request("GET", "/admin/v1/projects/\(projectID)/links").jsonArray?.first { $0["short_code"] as? String == "spring" })
        #expect(stored["title"] as? String == "Spring sale")
        #expect((stored["utm"] as? [String: Any])?["campaign"] as? String == "spring")

        let invalid = try browser.submit(from: page, to: page, [("short_code", "spring"), ("original_url", "https://shop.example.com/")])
        #expect(invalid.status == 422)
        #expect(invalid.bodyText.contains(#"class="error""#))
        #expect(try app.count("SELECT count(*) FROM links WHERE short_code = 'spring'") == 1)

        let search = try browser.get(page + "?q=Spring")
        #expect(search.bodyText.contains(">spring<"))
        #expect(!search.bodyText.contains(">summer<"))

        let linkID = try #require(stored["id"] as? String)
        let disabled = try browser.submit(from: page, to: "\(page)/\(linkID)/active", [("active", "0")])
        #expect(disabled.status == 303)
        #expect(try app.count("SELECT count(*) FROM links WHERE short_code = 'spring' AND active = FALSE") == 1)
        #expect(try app.request("GET", "/spring", adminKey: nil).status == 404)
    }

    @Test func aFormWithoutItsCSRFTokenOrFromAnotherOriginIsRefused() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let path = "/projects/\(projectID)/links"
        let noToken = try browser.post(path, [("short_code", "forged"), ("original_url", "https://evil.example/")])
        #expect(noToken.status == 403)
        let wrongToken = try browser.post(path, [("csrf", "guess"), ("short_code", "forged"), ("original_url", "https://evil.example/")])
        #expect(wrongToken.status == 403)
        let token = try #require(DashboardClient.csrfToken(in: try browser.get(path).bodyText))
        let otherOrigin = try browser.post(
            path, [("csrf", token), ("short_code", "forged"), ("original_url", "https://evil.example/")],
            headers: ["Origin": "https://evil.example"])
        #expect(otherOrigin.status == 403)
        #expect(try app.count("SELECT count(*) FROM links WHERE short_code = 'forged'") == 0)
        let sameOrigin = try browser.post(
            path, [("csrf", token), ("short_code", "fine"), ("original_url", "https://shop.example.com/")],
            headers: ["Origin": "http://test"])
        #expect(sameOrigin.status == 201)
    }

    @Test func apiKeysAreIssuedOnceAndRevoked() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let settings = "/projects/\(projectID)/settings"
        let issued = try browser.submit(from: settings, to: settings + "/api-keys", [("format", "standard")])
        #expect(issued.status == 201)
        let keyStart = try #require(issued.bodyText.range(of: "copy it): "))
        let key = String(issued.bodyText[keyStart.upperBound...].prefix { $0 != "<" })
        #expect(key.hasPrefix("ak_") && key.count == 35)
        #expect(try app.request("GET", "/api/links", adminKey: key).status == 200)
        #expect(!(try browser.get(settings).bodyText.contains(key)))  // shown once

        let keys = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/api-keys").jsonArray)
        let keyID = try #require(keys.first { key.hasPrefix($0["prefix"] as? String ?? "-") }?["id"] as? String)
        let revoked = try browser.submit(from: settings, to: "\(settings)/api-keys/\(keyID)/revoke", [])
        #expect(revoked.status == 303)
        #expect(try app.request("GET", "/api/links", adminKey: key).status == 401)
    }

    @Test func aViewerSeesTheirProjectOnlyAndChangesNothing() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        let other = try app.createProject("Other")["id"] as! String
        let admin = DashboardClient(app)
        try admin.signInWithAdminKey()
        let settings = "/projects/\(projectID)/settings"
        let added = try admin.submit(
            from: settings, to: settings + "/users",
            [("email", "viewer@example.com"), ("password", "correct horse battery"), ("role", "viewer")])
        #expect(added.status == 201)
        #expect(try app.count("SELECT count(*) FROM dashboard_users WHERE password_hash LIKE 'pbkdf2-sha256$600000$%'") == 1)
        let weak = try admin.submit(from: settings, to: settings + "/users", [("email", "x@example.com"), ("password", "short"), ("role", "admin")])
        #expect(weak.status == 422)
        #expect(weak.bodyText.contains("password"))

        let viewer = DashboardClient(app)
        #expect(try viewer.signIn(email: "viewer@example.com", password: "wrong password!").status == 401)
        let signedIn = try viewer.signIn(email: "VIEWER@example.com", password: "correct horse battery")
        #expect(signedIn.status == 303)
        #expect(signedIn.header("Location") == "/dashboard/projects/\(projectID)")
        #expect(try viewer.get("/projects/\(projectID)").status == 200)
        #expect(try viewer.get("/projects/\(projectID)/links").status == 200)
        #expect(try viewer.get(settings).status == 403)
        #expect(try viewer.get("/projects/\(other)").status == 404)
        #expect(!(try viewer.get("/").bodyText.contains("Other")))
        let links = "/projects/\(projectID)/links"
        let refused = try viewer.submit(from: links, to: links, [("short_code", "viewerlink"), ("original_url", "https://shop.example.com/")])
        #expect(refused.status == 403)
        #expect(try app.count("SELECT count(*) FROM links WHERE short_code = 'viewerlink'") == 0)

        // Removing the user ends their session at once.
        let userID = try #require(try app.queryOne("SELECT id FROM dashboard_users") { $0.string(0) })
        #expect(try admin.submit(from: settings, to: "\(settings)/users/\(userID)/remove", []).status == 303)
        #expect(try viewer.get("/projects/\(projectID)").status == 303)
    }

    @Test func projectSettingsAreSavedAndTheirProblemsShownBesideTheirFields() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let settings = "/projects/\(projectID)/settings"
        let saved = try browser.submit(
            from: settings, to: settings + "/project",
            [
                ("ios_store_url", "https://apps.apple.com/app/id999"), ("android_store_url", ""), ("web_url", "https://shop.example.com/"),
                ("attribution_window_hours", "72"), ("min_confidence", "0.5"), ("currency", "EUR"), ("skan", ""),
            ])
        #expect(saved.status == 200)
        #expect(saved.bodyText.contains("Settings saved."))
        let project = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)").json)
        #expect(project["attribution_window_hours"] as? Int == 72)
        #expect(project["currency"] as? String == "EUR")
        #expect(project["ios_store_url"] as? String == "https://apps.apple.com/app/id999")
        #expect(project["android_store_url"] == nil || project["android_store_url"] is NSNull)

        let notJSON = try browser.submit(from: settings, to: settings + "/project", [("skan", "{not json"), ("currency", "USD")])
        #expect(notJSON.status == 422)
        #expect(notJSON.bodyText.contains(#"id="skan-error">is not valid JSON"#))
        let badNumber = try browser.submit(from: settings, to: settings + "/project", [("min_confidence", "high")])
        #expect(badNumber.status == 422)
        #expect(badNumber.bodyText.contains(#"id="min_confidence-error""#))
        let badSchema = try browser.submit(from: settings, to: settings + "/project", [("skan", #"{"version":"4.0","fine":[{"value":99}]}"#)])
        #expect(badSchema.status == 422)
        #expect(badSchema.bodyText.contains(#"id="skan-error""#))
        #expect(try app.request("GET", "/admin/v1/projects/\(projectID)").json?["currency"] as? String == "EUR")  // nothing saved
    }

    @Test func theOutboundPageListsEndpointsAndDeliveriesAndReplaysAFailedOne() throws {
        let app = try TestApp(allowPrivateOutbound: true)
        let (projectID, _, _) = try app.projectWithLink()
        let token = "lr-token-0123456789abcdef"
        try app.services.app.projects.setToken(projectID: projectID, token: token)
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"http://127.0.0.1:9/hook"}"#).status == 201)
        app.startOutbox(waits: [], timeout: 2)  // nothing listens on port 9: the first failure is final
        #expect(
            try app.request(
                "POST", "/api/client/init", json: #"{"token":"\#(token)","platform":"IOS","install_instance_id":"out-1"}"#,
                adminKey: nil
            ).status == 200)
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let outbound = "/projects/\(projectID)/outbound"
        var page = ""
        _ = try eventually(timeout: 20) {
            page = try browser.get(outbound + "?status=failed").bodyText
            return page.contains(">failed<")
        }
        #expect(page.contains("http://127.0.0.1:9/hook"))
        #expect(page.contains("install.created"))
        #expect(!page.contains("whsec_"))  // secrets never shown
        let deliveryID = try #require(page.firstMatch(of: /outbound\/deliveries\/([0-9a-f-]+)\/replay/)?.1)
        let replayed = try browser.submit(from: outbound, to: "\(outbound)/deliveries/\(deliveryID)/replay", [])
        #expect(replayed.status == 200)
        #expect(replayed.bodyText.contains("Delivery queued again."))

        let viewerEmail = "v@example.com"
        _ = try app.services.app.dashboard.createUser(projectID: projectID, email: viewerEmail, password: "correct horse battery", role: .viewer)
        let viewer = DashboardClient(app)
        try viewer.signIn(email: viewerEmail, password: "correct horse battery")
        #expect(try viewer.get(outbound).status == 403)
        #expect(!(try viewer.get("/projects/\(projectID)").bodyText.contains("/outbound\"")))  // not in a viewer's menu
    }

    /// One person, a user of two projects with one email and one password: the sign-in asks
    /// which project (the password again, never carried in the page), and either can be opened.
    @Test func anEmailInTwoProjectsChoosesItsProjectAtSignIn() throws {
        let app = try TestApp()
        let (first, _, _) = try app.projectWithLink()
        let second = try app.createProject("Other shop")["id"] as! String
        let admin = DashboardClient(app)
        try admin.signInWithAdminKey()
        for projectID in [first, second] {
            let settings = "/projects/\(projectID)/settings"
            #expect(
                try admin.submit(
                    from: settings, to: settings + "/users",
                    [("email", "ana@example.com"), ("password", "correct horse battery"), ("role", "viewer")]
                ).status == 201)
        }
        let person = DashboardClient(app)
        let asked = try person.signIn(email: "ana@example.com", password: "correct horse battery")
        #expect(asked.status == 200 && person.cookie == nil)
        #expect(asked.bodyText.contains(#"<select name="project" required>"#))
        #expect(asked.bodyText.contains(">Shop</option>") && asked.bodyText.contains(">Other shop</option>"))
        #expect(!asked.bodyText.contains("correct horse battery"))
        for projectID in [second, first] {
            let browser = DashboardClient(app)
            let signedIn = try browser.post(
                "/sign-in", [("email", "ana@example.com"), ("password", "correct horse battery"), ("project", projectID)])
            #expect(signedIn.status == 303 && signedIn.header("Location") == "/dashboard/projects/\(projectID)")
            browser.cookie = DashboardClient.sessionToken(signedIn)
            #expect(try browser.get("/projects/\(projectID)").status == 200)
        }
        // A project the password does not open is a failed sign-in, as any.
        let stranger = try app.createProject("Third")["id"] as! String
        #expect(
            try DashboardClient(app).post("/sign-in", [("email", "ana@example.com"), ("password", "correct horse battery"), ("project", stranger)])
                .status == 401)
    }

    /// The GDPR erase from an install's page: a typed confirmation, admins only, and it is gone.
    @Test func anInstallIsErasedFromItsPageAfterATypedConfirmation() throws {
        let app = try TestApp()
        let (projectID, key, _) = try app.projectWithLink()
        let installID = try #require(
            try app.request(
                "POST", "/api/sdk/v1/install", json: #"{"userAgent":"Shop/1.0","platform":"iOS","deviceId":"gdpr-1"}"#,
                adminKey: key
            ).json?["installId"] as? String)
        #expect(
            try app.request("POST", "/api/sdk/v1/event", json: #"{"installId":"\#(installID)","eventName":"purchase"}"#, adminKey: key).status == 200)
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let page = "/projects/\(projectID)/installs/\(installID)"
        #expect(try browser.get(page).bodyText.contains("Erase this install"))
        #expect(try browser.submit(from: page, to: page + "/erase", [("confirm", "yes")]).status == 422)
        #expect(try app.count("SELECT count(*) FROM installs") == 1)
        let erased = try browser.submit(from: page, to: page + "/erase", [("confirm", "erase")])
        #expect(erased.status == 200 && erased.bodyText.contains("Install erased"))
        #expect(try app.count("SELECT count(*) FROM installs") == 0 && app.count("SELECT count(*) FROM events") == 0)
        #expect(try browser.get(page).status == 404)
    }

    @Test func signOutEndsTheSession() throws {
        let app = try TestApp()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        #expect(try browser.get("/").status == 200)
        let out = try browser.submit(from: "/", to: "/sign-out", [])
        #expect(out.status == 303)
        #expect(out.header("Set-Cookie")?.contains("Max-Age=0") == true)
        #expect(try browser.get("/").status == 303)  // the old cookie no longer works
        #expect(try app.count("SELECT count(*) FROM dashboard_sessions WHERE revoked_at IS NOT NULL") == 1)
    }

    @Test func failedSignInsAreRateLimitedPerAddress() throws {
        let app = try TestApp()
        let browser = DashboardClient(app)
        var statuses: [Int] = []
        for _ in 0..<11 { statuses.append(try browser.signInWithAdminKey("wrong-key").status) }
        #expect(statuses.prefix(10).allSatisfy { $0 == 401 })
        #expect(statuses.last == 429)
        let blocked = try browser.signInWithAdminKey()
        #expect(blocked.status == 429)  // the right key too, while the budget is spent
        #expect(blocked.header("Retry-After") != nil)
        #expect(browser.cookie == nil)
    }

    @Test func theDashboardCanMoveOrBeTurnedOff() throws {
        let off = try TestApp(dashboard: .init(enabled: false))
        #expect(try DashboardClient(off).get("/sign-in").status == 404)
        let moved = try TestApp(dashboard: .init(prefix: "/console"))
        let browser = DashboardClient(moved, prefix: "/console")
        #expect(try browser.get("/sign-in").status == 200)
        let signedIn = try browser.signInWithAdminKey()
        #expect(signedIn.header("Set-Cookie")?.contains("Path=/console") == true)
        #expect(try browser.get("/").status == 200)
        #expect(try DashboardClient(moved).get("/sign-in").status == 404)
    }

    @Test func aMalformedFormIsAClientError() throws {
        let app = try TestApp()
        let browser = DashboardClient(app)
        let response = try browser.post("/sign-in", [("email", "%%%"), ("password", String(repeating: "x", count: 5000))])
        #expect(response.status == 401)
        let big = try browser.post("/sign-in", [("admin_key", String(repeating: "k", count: 70_000))])
        #expect(big.status == 413)
    }
}
