import API
import App
import Attribution
import Foundation
@_spi(StoreInternals) import Store
import StoreContracts
import TestSupport
import Testing

/// The overview's days are the project's own (its time zone), custom ranges, and what the
/// overview and install pages break installs down by: confidence band and SKAN value.
@Suite struct DashboardRangeTests {
    /// A zone whose date differs from UTC's at `now`: UTC−11 before 11:00 UTC, UTC+14 after.
    static func zone(differingFromUTCAt now: Timestamp) -> (name: String, local: String, utc: String) {
        let hour = (now.milliseconds / 3_600_000) % 24
        let name = hour < 11 ? "Pacific/Pago_Pago" : "Pacific/Kiritimati"
        let calendar = LocalCalendar(identifier: name)!
        return (name, calendar.dateText(now), LocalCalendar.utc.dateText(now))
    }

    @Test func theOverviewCountsDaysInTheProjectsTimeZone() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink(testMode: true)
        let now = try app.advanceClock(projectID, seconds: 1)
        let zone = Self.zone(differingFromUTCAt: now)
        #expect(zone.local != zone.utc)
        let patched = try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"time_zone":"\#(zone.name)"}"#)
        #expect(patched.status == 200)
        #expect(patched.json?["time_zone"] as? String == zone.name)
        #expect(
            try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)"]).status
                == 200)
        try app.settle()

        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let week = try browser.get("/projects/\(projectID)?range=7d").bodyText
        #expect(week.contains(#"<small>Clicks</small><b>1</b>"#))
        #expect(week.contains(zone.name))
        // The chart's day is the local one: its bar is labelled with the local date, not UTC's.
        #expect(week.contains("<title>\(zone.local.dropFirst(5)) Clicks: 1</title>"))
        #expect(!week.contains("<title>\(zone.utc.dropFirst(5)) Clicks: 1</title>"))

        let localDay = try browser.get("/projects/\(projectID)?range=custom&from=\(zone.local)&to=\(zone.local)")
        #expect(localDay.status == 200)
        #expect(localDay.bodyText.contains(#"<small>Clicks</small><b>1</b>"#))
        let utcDay = try browser.get("/projects/\(projectID)?range=custom&from=\(zone.utc)&to=\(zone.utc)").bodyText
        #expect(utcDay.contains(#"<small>Clicks</small><b>0</b>"#))
        // The links table and its CSV keep the custom range.
        #expect(localDay.bodyText.contains("range=custom&amp;from=\(zone.local)&amp;to=\(zone.local)&amp;sort="))
        let csv = try browser.get("/projects/\(projectID)?range=custom&from=\(zone.local)&to=\(zone.local)&format=csv")
        #expect(csv.bodyText.contains("\r\nsummer,mail,,summer,1,0,0,0,\r\n"))

        // The settings form shows the zone, and the admin API refuses a zone that does not exist.
        #expect(try browser.get("/projects/\(projectID)/settings").bodyText.contains(#"name="time_zone" value="\#(zone.name)""#))
        let refused = try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"time_zone":"Mars/Olympus_Mons"}"#)
        #expect(refused.status == 422)
        #expect(refused.bodyText.contains("time_zone"))
        #expect(try app.count("SELECT count(*) FROM projects WHERE time_zone = '\(zone.name)'") == 1)
    }

    @Test func aCustomRangeThatIsNotOneIsAClientError() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        for (query, problem) in [
            ("from=2026-02-30&to=2026-03-01", "from must be a date"), ("from=2026-03-01", "to must be a date"),
            ("from=2026-03-02&to=2026-03-01", "to must not be before from"),
            ("from=2024-01-01&to=2026-01-01", "at most 366 days"), ("from=%3Cscript%3E&to=2026-01-01", "from must be a date"),
        ] {
            let response = try browser.get("/projects/\(projectID)?range=custom&\(query)")
            #expect(response.status == 422, "\(query)")
            #expect(response.bodyText.contains(problem), "\(query): \(response.bodyText)")
            #expect(!response.bodyText.contains("<script>"))
        }
        // A whole year is fine, by week.
        let year = try browser.get("/projects/\(projectID)?range=custom&from=2025-01-01&to=2025-12-31")
        #expect(year.status == 200)
        #expect(year.bodyText.contains("by week"))
    }

    @Test func installsShowTheirConfidenceBandAndSKANValuesAndDeliveries() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"], allowPrivateOutbound: true)
        let (projectID, token) = try app.linkrunnerProject()
        #expect(try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"skan":\#(skanSchemaJSON)}"#).status == 200)
        let hook = try app.request(
            "POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"http://127.0.0.1:9/in","events":["install.created"]}"#)
        #expect(hook.status == 201)
        app.startOutbox()  // makes the install's job (its delivery to port 9 fails, and is retried)
        _ = try app.clickWithBeacon(ip: "198.51.100.80")
        #expect(try app.client("init", body("init", token: token)).status == 200)  // probabilistic, 0.85
        #expect(try app.client("init", body("init", token: token, instance: "IID-2"), ip: "203.0.113.9").status == 200)  // organic
        #expect(try app.client("trigger", body("trigger", token: token)).status == 200)  // SKAN: signup
        try app.settle()

        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let overview = try browser.get("/projects/\(projectID)?range=24h").bodyText
        #expect(overview.contains(#"<tr><th>Confidence ≥ 0.80</th><td class="n">1</td></tr>"#))
        #expect(
            overview.contains(#"<tr><th>Confidence &lt; 0.60</th><td class="n">0</td></tr>"#)
                || overview.contains(#"<tr><th>Confidence < 0.60</th><td class="n">0</td></tr>"#))
        // Window 1 of both installs: the attributed one signed up (fine 8), the organic one has 0.
        #expect(overview.contains(#"<tr><td>Window 1</td><td>0</td><td class="n">1</td></tr>"#))
        #expect(overview.contains(#"<tr><td>Window 1</td><td>8</td><td class="n">1</td></tr>"#))

        let installID = try #require(try app.queryOne("SELECT id FROM installs WHERE install_instance_id = 'IID-1'") { $0.string(0) })
        _ = try eventually(timeout: 5) { try app.count("SELECT count(*) FROM outbox_jobs WHERE install_id = '\(installID)'") > 0 }
        let page = try browser.get("/projects/\(projectID)/installs/\(installID)").bodyText
        #expect(page.contains("SKAN conversion values"))
        #expect(page.contains(#"<tr><td>1</td><td class="n">8</td><td>medium</td><td>open</td>"#))
        #expect(page.contains("Webhook and postback deliveries"))
        #expect(page.contains("<td>webhook</td><td>install.created</td>"))
        #expect(
            try app.count("SELECT count(*) FROM outbox_new WHERE install_id = '\(installID)'")
                + app.count("SELECT count(*) FROM outbox_jobs WHERE install_id = '\(installID)'") == 1)
    }

    @Test func aLinkIsEditedWithEveryFieldTheAdminAPITakes() throws {
        let app = try TestApp()
        let (projectID, _, link) = try app.projectWithLink()
        let linkID = try #require(link["id"] as? String)
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let page = "/projects/\(projectID)/links/\(linkID)"
        let form = try browser.get(page).bodyText
        #expect(form.contains(#"name="short_code" value="summer""#))
        #expect(form.contains(#"name="utm_source" value="mail""#))

        let fields: [(String, String)] = [
            ("short_code", "autumn"), ("title", "Autumn sale"), ("description", "Leaves"), ("original_url", "https://shop.example.com/autumn"),
            ("ios_url", "https://shop.example.com/ios"), ("android_url", "https://shop.example.com/android"),
            ("web_url", "https://shop.example.com/web"),
            ("app_scheme", "shop"), ("deep_link_path", "/product/7"), ("param_key_0", "promo"), ("param_value_0", "fall"),
            ("param_key_1", ""), ("param_value_1", "ignored"),
            ("utm_source", "news"), ("utm_medium", "email"), ("utm_campaign", "autumn"), ("utm_term", "coats"), ("utm_content", "hero"),
            ("og_title", "Autumn"), ("og_description", "Coats"), ("og_image", "https://shop.example.com/a.png"),
            ("targeting", #"{"countries":["FR"]}"#),
            ("attribution_window_hours", "48"), ("expires_at", "2030-01-01T00:00"), ("max_clicks", "500"),
            ("append_click_id", "0"), ("append_click_id", "1"), ("active", "0"), ("active", "1"),
        ]
        let saved = try browser.submit(from: page, to: page, fields)
        #expect(saved.status == 200, "\(saved.bodyText)")
        #expect(saved.bodyText.contains("Saved."))
        let stored = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/links").jsonArray?.first { $0["id"] as? String == linkID })
        #expect(stored["short_code"] as? String == "autumn")
        #expect(stored["description"] as? String == "Leaves")
        #expect(stored["deep_link_parameters"] as? [String: String] == ["promo": "fall"])
        #expect(
            stored["utm"] as? [String: String] == ["source": "news", "medium": "email", "campaign": "autumn", "term": "coats", "content": "hero"])
        #expect(stored["og"] as? [String: String] == ["title": "Autumn", "description": "Coats", "image": "https://shop.example.com/a.png"])
        #expect(stored["attribution_window_hours"] as? Int == 48 && stored["max_clicks"] as? Int == 500)
        #expect(stored["append_click_id"] as? Bool == true && stored["active"] as? Bool == true)
        #expect(
            stored["expires_at"] as? String == "2030-01-01T00:00:00.000Z"
                || (stored["expires_at"] as? String)?.hasPrefix("2030-01-01T00:00:00") == true)
        #expect(try app.count("SELECT count(*) FROM links WHERE id = '\(linkID)' AND targeting LIKE '%FR%'") == 1)
        // The old code no longer resolves; the new one does.
        #expect(try app.request("GET", "/summer", adminKey: nil).status == 404)
        #expect(try app.request("GET", "/autumn", adminKey: nil).status == 200)

        // Unticking "active" (only the hidden 0 is sent) disables it; bad fields are 422 beside the form.
        #expect(try browser.submit(from: page, to: page, [("original_url", "https://shop.example.com/"), ("active", "0")]).status == 200)
        #expect(try app.count("SELECT count(*) FROM links WHERE id = '\(linkID)' AND active = FALSE") == 1)
        // Problems are named by the form's labels, not the API's keys.
        for (field, value, problem) in [
            ("max_clicks", "many", "Most clicks (empty: no limit): must be a whole number"),
            ("expires_at", "tomorrow", "Expires at (UTC): must be an ISO 8601 time"), ("template_slug", "nope", "Template slug"),
            ("ios_url", "javascript:alert(1)", "iOS URL: "),
        ] {
            let refused = try browser.submit(from: page, to: page, [("original_url", "https://shop.example.com/"), (field, value)])
            #expect(refused.status == 422, "\(field)")
            #expect(refused.bodyText.contains(#"class="error""#) && refused.bodyText.contains(problem), "\(field): \(refused.bodyText)")
        }
        // The refused forms changed nothing (the last saved form cleared what it left empty).
        #expect(
            try app.count(
                """
                SELECT count(*) FROM links WHERE id = '\(linkID)' AND short_code = 'autumn' AND active = FALSE AND max_clicks IS NULL
                    AND original_url = 'https://shop.example.com/' AND ios_url IS NULL AND template_id IS NULL
                """) == 1)
    }
}
