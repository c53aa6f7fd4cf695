import Attribution
import Cryptography
import Foundation
import StoreContracts
import TestSupport
import Testing

@testable import API
@testable import App
@_spi(StoreInternals) @testable import Store

@Suite struct AdminAPITests {
    @Test func createdProjectsTokenAndKeyResolveToIt() throws {
        let app = try TestApp()
        let json = try app.createProject("Shop", extra: #","attribution_window_hours":72,"min_confidence":0.5,"currency":"EUR""#)
        let id = try #require(json["id"] as? String)
        let token = try #require(json["token"] as? String)
        let key = try #require(json["api_key"] as? String)
        #expect(json["attribution_window_hours"] as? Int == 72)
        #expect(json["min_confidence"] as? Double == 0.5)
        #expect(json["currency"] as? String == "EUR")
        #expect(json["ios_team_id"] is NSNull)  // unset settings are present as null
        #expect(try app.store.projects.project(forToken: token)?.id == id)
        #expect(try app.store.projects.project(forAPIKey: key)?.id == id)
        #expect(try app.store.projects.project(forToken: token + "x") == nil)
        // Secrets are stored only as hashes.
        let stored = try app.queryOne("SELECT token_hash FROM projects WHERE id = ?", id) { $0.blob(0) }
        #expect(stored == Secrets.sha256(token))
        #expect(try app.count("SELECT count(*) FROM projects WHERE CAST(token_hash AS TEXT) LIKE '%tok_%'") == 0)
        // Shown once: reading it back gives neither.
        let shown = try #require(try app.request("GET", "/admin/v1/projects/\(id)").json)
        #expect(shown["token"] == nil && shown["api_key"] == nil)
        #expect(shown["name"] as? String == "Shop")
    }

    @Test func missingOrWrongAdminKeyIs401() throws {
        let app = try TestApp()
        let missing = try app.request("GET", "/admin/v1/projects", adminKey: nil)
        #expect(missing.status == 401)
        #expect(missing.json?["error"] as? String == "unauthorized")
        #expect(try app.request("GET", "/admin/v1/projects", adminKey: "wrong-key").status == 401)
        let basic = try app.request("GET", "/admin/v1/projects", adminKey: nil, headers: ["Authorization": "Basic \(TestApp.adminKey)"])
        #expect(basic.status == 401)
        #expect(try app.request("GET", "/admin/v1/projects").status == 200)
    }

    @Test func withoutAnAdminKeyTheAdminAPIIsOff() throws {
        let app = try TestApp(adminKey: nil)
        #expect(try app.request("GET", "/admin/v1/projects").status == 404)
        #expect(try app.request("POST", "/admin/v1/projects", json: #"{"name":"x"}"#).status == 404)
    }

    @Test func badPayloadsAre4xxNamingTheKey() throws {
        let app = try TestApp()
        let cases: [(String, Int, String)] = [
            (#"{"name":"A","min_confidence":2}"#, 422, "min_confidence"),
            (#"{"name":"A","attribution_window_hours":0}"#, 422, "attribution_window_hours"),
            (#"{"name":"A","currency":"euro"}"#, 422, "currency"),
            (#"{"name":"A","ios_store_url":"ftp://x"}"#, 422, "ios_store_url"),
            (#"{"name":"A","android_sha256":["AB:CD"]}"#, 422, "android_sha256[0]"),
            (#"{"name":"A","min_confidance":0.2}"#, 422, "min_confidance"),
            (#"{"name":"A","signing":"sometimes"}"#, 400, "signing"),
            (#"{"name":"A","attribution_window_hours":"72"}"#, 400, "attribution_window_hours"),
            (#"{"min_confidence":0.2}"#, 400, "name"),
            (#"{"name":""}"#, 422, "name"),
            (#"{"name":"A","skan":[1]}"#, 422, "skan"),
            ("not json", 400, "JSON"),
        ]
        for (body, status, key) in cases {
            let response = try app.request("POST", "/admin/v1/projects", json: body)
            #expect(response.status == status, "\(body): \(response.bodyText)")
            #expect((response.json?["message"] as? String)?.contains(key) == true, "\(body): \(response.bodyText)")
        }
        #expect(try app.count("SELECT count(*) FROM projects") == 0)
    }

    @Test func duplicateNameIs409() throws {
        let app = try TestApp()
        _ = try app.createProject("Shop")
        let again = try app.request("POST", "/admin/v1/projects", json: #"{"name":"Shop"}"#)
        #expect(again.status == 409)
        #expect(try app.count("SELECT count(*) FROM projects") == 1)
    }

    @Test func patchChangesOnlyTheKeysSentAndNullClears() throws {
        let app = try TestApp()
        let id = try #require(try app.createProject("Shop", extra: #","ios_team_id":"ABCDE12345","currency":"EUR""#)["id"] as? String)
        let patched = try app.request(
            "PATCH", "/admin/v1/projects/\(id)", json: #"{"min_confidence":0.45,"ios_team_id":null,"skan":{"enabled":true}}"#)
        #expect(patched.status == 200, "\(patched.bodyText)")
        let json = try #require(patched.json)
        #expect(json["min_confidence"] as? Double == 0.45)
        #expect(json["ios_team_id"] is NSNull)
        #expect(json["currency"] as? String == "EUR")
        #expect((json["skan"] as? [String: Any])?["enabled"] as? Bool == true)
        let bad = try app.request("PATCH", "/admin/v1/projects/\(id)", json: #"{"min_confidence":-1}"#)
        #expect(bad.status == 422)
        #expect(try app.services.app.projects.find(id: id)?.settings.minConfidence == 0.45)  // unchanged by the bad patch
        #expect(try app.request("PATCH", "/admin/v1/projects/nope", json: "{}").status == 404)
    }

    @Test func apiKeysCanBeAddedListedAndRevoked() throws {
        let app = try TestApp()
        let id = try #require(try app.createProject()["id"] as? String)
        let issued = try #require(try app.request("POST", "/admin/v1/projects/\(id)/api-keys").json)
        let key = try #require(issued["key"] as? String)
        let keyID = try #require(issued["id"] as? String)
        #expect(try app.store.projects.project(forAPIKey: key)?.id == id)
        let listed = try app.request("GET", "/admin/v1/projects/\(id)/api-keys")
        #expect(listed.bodyText.contains(keyID) && !listed.bodyText.contains(key))
        #expect(try app.request("DELETE", "/admin/v1/projects/\(id)/api-keys/\(keyID)").status == 204)
        #expect(try app.store.projects.project(forAPIKey: key) == nil)
        #expect(try app.request("DELETE", "/admin/v1/projects/\(id)/api-keys/\(keyID)").status == 404)
    }

    @Test func templatesAreCreatedAndSlugConflictsAre409() throws {
        let app = try TestApp()
        let id = try #require(try app.createProject()["id"] as? String)
        let body =
            #"{"slug":"promo","name":"Promo","ios_url":"https://apps.apple.com/app/id1","app_scheme":"shop","deep_link_parameters":{"screen":"sale"},"utm":{"source":"mail"}}"#
        let created = try app.request("POST", "/admin/v1/projects/\(id)/templates", json: body)
        #expect(created.status == 201, "\(created.bodyText)")
        #expect((created.json?["deep_link_parameters"] as? [String: String]) == ["screen": "sale"])
        #expect(try app.request("POST", "/admin/v1/projects/\(id)/templates", json: body).status == 409)
        let badScheme = try app.request("POST", "/admin/v1/projects/\(id)/templates", json: #"{"slug":"x","app_scheme":"Bad Scheme"}"#)
        #expect(badScheme.status == 422)
        #expect(try app.request("GET", "/admin/v1/projects/\(id)/templates").bodyText.contains("\"promo\""))
    }

    @Test func statsCountInstallsByMatchTypeEventsAndRevenue() throws {
        let app = try TestApp()
        let id = try #require(try app.createProject()["id"] as? String)
        try Fixtures.seed(app, projectID: id)
        let stats = try app.request("GET", "/admin/v1/projects/\(id)/stats")
        #expect(stats.status == 200)
        let totals = try #require(stats.json?["totals"] as? [String: Any])
        #expect(totals["clicks"] as? Int == 2)
        #expect(totals["bot_clicks"] as? Int == 1)
        #expect(totals["installs"] as? Int == 3)
        #expect(totals["attributed_installs"] as? Int == 2)
        #expect((totals["installs_by_match_type"] as? [String: Int]) == ["deterministic": 1, "probabilistic": 1, "none": 1])
        #expect(totals["events"] as? Int == 3)
        #expect(totals["payment_revenue"] as? [String: Double] == ["USD": 20])  // the removed payment is excluded
        #expect(totals["event_revenue"] as? [String: Double] == ["USD": 9.99])  // kept apart from payments
        let link = try #require((stats.json?["links"] as? [[String: Any]])?.first)
        #expect(link["short_code"] as? String == "abc")
        #expect((link["counts"] as? [String: Any])?["attributed_installs"] as? Int == 2)
        // A click whose link was deleted still counts in the totals; one from 2000 counts in all time and in its own day.
        try app.transaction { c in
            try c.run(
                "INSERT INTO clicks (click_id, project_id, link_id, created_at) VALUES ('c-unlinked', ?, NULL, ?)", id,
                Int64(Date().timeIntervalSince1970 * 1000))
            try c.run("INSERT INTO clicks (click_id, project_id, link_id, created_at) VALUES ('c-2000', ?, 'link-1', 946684800000)", id)
        }
        try app.store.rollups.rebuild(projectID: id, sinceHour: Int64.min / 2)
        let later = try app.request("GET", "/admin/v1/projects/\(id)/stats")
        #expect((later.json?["totals"] as? [String: Any])?["clicks"] as? Int == 4)
        #expect(((later.json?["links"] as? [[String: Any]])?.first?["counts"] as? [String: Any])?["clicks"] as? Int == 3)
        let year2000 = try app.request("GET", "/admin/v1/projects/\(id)/stats?since=2000-01-01T00:00:00Z&until=2000-01-02T00:00:00Z")
        #expect((year2000.json?["totals"] as? [String: Any])?["clicks"] as? Int == 1)
        let empty = try app.request("GET", "/admin/v1/projects/\(id)/stats?since=2001-01-01T00:00:00Z&until=2001-01-02T00:00:00Z")
        #expect((empty.json?["totals"] as? [String: Any])?["clicks"] as? Int == 0)
        #expect((empty.json?["totals"] as? [String: Any])?["installs"] as? Int == 0)
        #expect(try app.request("GET", "/admin/v1/projects/\(id)/stats?since=yesterday").status == 422)
        // Days beyond 64-bit milliseconds once trapped and took the server down.
        for since in ["999999999999d", "9223372036854775807h"] {
            let huge = try app.request("GET", "/admin/v1/projects/\(id)/stats?since=\(since)")
            #expect(huge.status == 422, "\(since)")
            #expect((huge.json?["message"] as? String)?.hasPrefix("since: expected") == true)
        }
        #expect(try app.request("GET", "/health").status == 200)
    }

    @Test func eraseInstallRemovesItsRowsAndNothingElse() throws {
        let app = try TestApp()
        let id = try #require(try app.createProject()["id"] as? String)
        try Fixtures.seed(app, projectID: id)
        let before = try Fixtures.rowCounts(app)
        #expect(try app.request("DELETE", "/admin/v1/projects/\(id)/installs/install-1").status == 204)
        let after = try Fixtures.rowCounts(app)
        #expect(after["installs"] == before["installs"]! - 1)
        #expect(after["events"] == before["events"]! - 2)  // install-1 had two events
        #expect(after["payments"] == before["payments"]! - 2)  // and two payments
        #expect(after["clicks"] == before["clicks"])  // clicks stay, without identifiers
        #expect(try app.count("SELECT count(*) FROM clicks WHERE idfv = 'IDFV-1'") == 0)
        #expect(try app.count("SELECT count(*) FROM installs WHERE id = 'install-2'") == 1)
        #expect(try app.count("SELECT count(*) FROM events WHERE install_id = 'install-2'") == 1)
        #expect(try app.count("SELECT count(*) FROM user_event_installs") == 0, "user-1's pair went with install-1")
        #expect(try app.request("DELETE", "/admin/v1/projects/\(id)/installs/install-1").status == 404)
    }

    @Test func eraseUserRemovesTheirInstallsAndRows() throws {
        let app = try TestApp()
        let id = try #require(try app.createProject()["id"] as? String)
        try Fixtures.seed(app, projectID: id)
        // An event of user-1 on an install now linked to user-2 (a previous login on that phone).
        try app.transaction { c in
            try c.run(
                "INSERT INTO events (id, project_id, install_id, name, user_id, occurred_at, received_at) VALUES ('e4', ?, 'install-2', 'open', 'user-1', 0, 0)",
                id)
        }
        #expect(try app.count("SELECT count(*) FROM user_event_installs WHERE user_id = 'user-1'") == 2)
        #expect(try app.request("DELETE", "/admin/v1/projects/\(id)/users/user-1").status == 204)
        #expect(try app.count("SELECT count(*) FROM installs WHERE user_id = 'user-1'") == 0)
        #expect(try app.count("SELECT count(*) FROM events WHERE user_id = 'user-1'") == 0)
        #expect(try app.count("SELECT count(*) FROM events WHERE install_id = 'install-2'") == 1, "e3, of nobody, stays")
        #expect(try app.count("SELECT count(*) FROM user_event_installs") == 0)
        #expect(try app.count("SELECT count(*) FROM users") == 0)
        #expect(try app.count("SELECT count(*) FROM installs") == 2)
        #expect(try app.request("DELETE", "/admin/v1/projects/\(id)/users/user-1").status == 404)
    }
}

/// Rows for stats and erasure tests, written with plain SQL (the APIs that write them come later).
enum Fixtures {
    /// Rows written by hand (as with `sqlite3`), then counted as `attributiond rollups rebuild` does.
    static func seed(_ app: TestApp, projectID: String) throws {
        try app.transaction { try seed($0, projectID: projectID) }
        try app.store.rollups.rebuild(projectID: projectID, sinceHour: Int64.min / 2)
    }

    static func seed(_ database: Database, projectID: String) throws {
        try database.writeAndWait { connection in
            try seed(TestSQL { try connection.run($0, values: $1) }, projectID: projectID)
            try RollupRecount.rebuild(projectID: projectID, connection)
        }
    }

    static func seed(_ c: TestSQL, projectID: String) throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        do {
            try c.run("INSERT INTO links (id, project_id, short_code, created_at, updated_at) VALUES ('link-1', ?, 'abc', ?, ?)", projectID, now, now)
            try c.run(
                "INSERT INTO clicks (click_id, project_id, link_id, created_at, ip, ip_key, idfv, install_id) VALUES ('c1', ?, 'link-1', ?, '1.2.3.4', '1.2.3.4', 'IDFV-1', 'install-1')",
                projectID, now)
            try c.run(
                "INSERT INTO clicks (click_id, project_id, link_id, created_at, ip, ip_key) VALUES ('c2', ?, 'link-1', ?, '1.2.3.5', '1.2.3.5')",
                projectID, now)
            try c.run("INSERT INTO clicks (click_id, project_id, link_id, created_at, is_bot) VALUES ('c3', ?, 'link-1', ?, TRUE)", projectID, now)
            for (install, type, attributed, user) in [
                ("install-1", "deterministic", true, "user-1"), ("install-2", "probabilistic", true, "user-2"),
                ("install-3", "none", false, "user-3"),
            ] {
                try c.run(
                    """
                    INSERT INTO installs (id, project_id, api, idfv, created_at, last_seen_at, match_type, attributed, link_id, user_id)
                    VALUES (?, ?, 'linkrunner', ?, ?, ?, ?, ?, ?, ?)
                    """, install, projectID, install == "install-1" ? "IDFV-1" : nil, now, now, type, attributed,
                    attributed ? "link-1" : nil, user)
            }
            try c.run(
                "INSERT INTO users (project_id, user_id, install_id, created_at, updated_at) VALUES (?, 'user-1', 'install-1', ?, ?)", projectID, now,
                now)
            try c.run(
                "INSERT INTO events (id, project_id, install_id, name, user_id, occurred_at, received_at) VALUES ('e1', ?, 'install-1', 'signup', 'user-1', ?, ?)",
                projectID, now, now)
            try c.run(
                "INSERT INTO events (id, project_id, install_id, name, user_id, revenue, currency, occurred_at, received_at) VALUES ('e2', ?, 'install-1', 'purchase', 'user-1', 9.99, 'USD', ?, ?)",
                projectID, now, now)
            try c.run(
                "INSERT INTO events (id, project_id, install_id, name, occurred_at, received_at) VALUES ('e3', ?, 'install-2', 'open', ?, ?)",
                projectID, now, now)
            try c.run(
                "INSERT INTO payments (id, project_id, install_id, payment_id, user_id, amount, currency, created_at) VALUES ('p1', ?, 'install-1', 'pay-1', 'user-1', 20, 'USD', ?)",
                projectID, now)
            try c.run(
                "INSERT INTO payments (id, project_id, install_id, payment_id, user_id, amount, currency, created_at, removed_at) VALUES ('p2', ?, 'install-1', 'pay-2', 'user-1', 5, 'USD', ?, ?)",
                projectID, now, now)
            try c.run(#"INSERT INTO skan_state (install_id, "window", fine, coarse, updated_at) VALUES ('install-1', 1, 9, 'medium', ?)"#, now)
        }
    }

    static func rowCounts(_ app: TestApp) throws -> [String: Int64] {
        var counts: [String: Int64] = [:]
        for table in ["projects", "links", "clicks", "installs", "events", "payments", "users", "skan_state", "api_keys"] {
            counts[table] = try app.count("SELECT count(*) FROM \(table)")
        }
        return counts
    }
}

@Suite struct AdminNumbersBeyondRangeTests {
    /// Numbers no setting can take, where converting them to integers once trapped.
    @Test func hugeNumbersInSettingsAre422NamingTheKey() throws {
        let app = try TestApp()
        let id = try #require(try app.createProject()["id"] as? String)
        for (body, key) in [
            (#"{"matching":{"decay":[{"under_hours":1e300,"confidence":0.8}]}}"#, "matching.decay[0].under_hours"),
            (#"{"matching":{"decay":[{"under_hours":-1e300,"confidence":0.8}]}}"#, "matching.decay[0].under_hours"),
            (#"{"skan":{"windows":{"w1":{"fine":{"mode":"rules","rules":[{"value":1e300,"all":[]}]}}}}}"#, "skan.windows.w1.fine.rules[0].value"),
        ] {
            let response = try app.request("PATCH", "/admin/v1/projects/\(id)", json: body)
            #expect(response.status == 422, "\(body): \(response.bodyText)")
            #expect((response.json?["message"] as? String)?.contains(key) == true, "\(response.bodyText)")
        }
        #expect(try app.request("GET", "/health").status == 200)
    }
}

@Suite struct AdminLinkListTests {
    @Test func linksArePagedAndBadPagingIs422NamingTheParameter() throws {
        let app = try TestApp()
        let id = try #require(try app.createProject()["id"] as? String)
        for code in ["one", "two", "three"] {
            #expect(try app.request("POST", "/admin/v1/projects/\(id)/links", json: #"{"short_code":"\#(code)"}"#).status == 201)
        }
        func codes(_ query: String) throws -> [String] {
            let response = try app.request("GET", "/admin/v1/projects/\(id)/links\(query)")
            let list = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [[String: Any]] ?? []
            return list.compactMap { $0["short_code"] as? String }
        }
        #expect(try codes("").count == 3)
        let firstPage = try codes("?limit=2")
        let secondPage = try codes("?limit=2&offset=2")
        #expect(firstPage.count == 2 && secondPage.count == 1)
        #expect(Set(firstPage + secondPage) == ["one", "two", "three"])
        for (query, name) in [
            ("?limit=0", "limit"), ("?limit=1001", "limit"), ("?limit=abc", "limit"), ("?offset=-1", "offset"),
            ("?offset=99999999999999999999", "offset"),
        ] {
            let response = try app.request("GET", "/admin/v1/projects/\(id)/links\(query)")
            #expect(response.status == 422, "\(query)")
            #expect((response.json?["message"] as? String)?.hasPrefix("\(name): expected a whole number") == true, "\(response.bodyText)")
        }
    }
}
