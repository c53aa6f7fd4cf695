import Foundation
import PostgresStore
import Store
import StoreContracts
import TestSupport
import Testing

/// The ROAS report through the admin API on either backend: a link's installs and what they paid
/// by day 0, 7 and 30 beside the cost its network reported for the campaign, in the reporting
/// currency at the day's rates; cost no install of ours names kept as such.
@Suite struct ROASTests {
    @Test func aCampaignsSpendMeetsItsInstallsAndWhatTheyPaidByDay() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let projectID = try app.seededROASProject()
        let response = try app.request("GET", "/admin/v1/projects/\(projectID)/roas?since=2031-03-02&until=2031-03-02&by=campaign")
        #expect(response.status == 200, "\(response.bodyText)")
        let json = try #require(response.json)
        #expect(json["currency"] as? String == "EUR")
        #expect(json["stale_rate_days"] as? [String] == ["2031-03-02"])
        #expect((json["unconverted"] as? [String: Any])?["JPY"] as? Double == 1000, "no rate converts yen: left out, and said so")
        let rows = try #require(json["rows"] as? [[String: Any]])
        #expect(rows.count == 3, "\(rows)")

        // Hand-computed: 50 USD is 40 EUR for one install; 10 USD (8 EUR) by day 0, 15 (12) by
        // day 7, 35 (28) by day 30.
        let summer = try #require(rows.first { $0["campaign_id"] as? String == "23851" })
        #expect(summer["network"] as? String == "meta" && summer["campaign_name"] as? String == "Summer")
        #expect(summer["spend"] as? Double == 40 && summer["installs"] as? Int == 1 && summer["cpi"] as? Double == 40)
        #expect(summer["impressions"] as? Int == 12000 && summer["clicks"] as? Int == 300 && summer["paying_users"] as? Int == 1)
        #expect(summer["revenue_d0"] as? Double == 8 && summer["revenue_d7"] as? Double == 12 && summer["revenue_d30"] as? Double == 28)
        #expect(summer["roas_d0"] as? Double == 0.2 && summer["roas_d7"] as? Double == 0.3 && summer["roas_d30"] as? Double == 0.7)
        #expect(summer["has_cost"] as? Bool == true && summer["has_installs"] as? Bool == true)

        // Instagram is Meta's: its campaign has cost and no install of ours, and shows as such.
        let retarget = try #require(rows.first { $0["campaign_id"] as? String == "23852" })
        #expect(retarget["network"] as? String == "meta" && retarget["spend"] as? Double == 25 && retarget["installs"] as? Int == 0)
        #expect(retarget["has_installs"] as? Bool == false && retarget["cpi"] is NSNull && retarget["roas_d7"] as? Double == 0)
        let totals = try #require(json["totals"] as? [String: Any])
        #expect(totals["spend"] as? Double == 65 && totals["installs"] as? Int == 1 && totals["revenue_d30"] as? Double == 28)

        let networks = try #require(
            try app.request("GET", "/admin/v1/projects/\(projectID)/roas?since=2031-03-02&until=2031-03-02&by=network").json?["rows"]
                as? [[String: Any]])
        #expect(networks.map { "\($0["network"]!) \($0["spend"]!) \($0["installs"]!)" } == ["meta 65 1", "tiktok 0 0"], "\(networks)")
        #expect(try app.store.rollups.check(projectID: projectID, sinceHour: Int64.min / 2, limit: 5).differing == 0)
    }

    @Test func theReportComesAsCSVAndRefusesWhatItCannotRead() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let projectID = try app.seededROASProject()
        let csv = try app.request("GET", "/admin/v1/projects/\(projectID)/roas?since=2031-03-02&until=2031-03-02&format=csv")
        #expect(csv.status == 200 && csv.header("Content-Type") == "text/csv; charset=utf-8")
        let lines = csv.bodyText.components(separatedBy: "\r\n")
        #expect(lines.first?.hasPrefix("network,campaign_id,campaign_name,adgroup_id,adgroup_name,spend,impressions,clicks,installs,cpi,") == true)
        #expect(lines.contains("meta,23851,Summer,,,40,12000,300,1,40,1,8,12,28,0,0.2,0.3,0.7,true,true"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("total,,,,,65,") }, "\(lines)")
        for (query, field) in [("by=ad", "by"), ("since=March", "since"), ("since=2031-03-03&until=2031-03-02", "until"), ("format=xml", "format")] {
            let refused = try app.request("GET", "/admin/v1/projects/\(projectID)/roas?\(query)")
            #expect(refused.status == 422 && refused.bodyText.contains(field), "\(query): \(refused.bodyText)")
        }
        #expect(try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"reporting_currency":"euro"}"#).status == 422)
        #expect(try app.request("GET", "/admin/v1/projects/\(projectID)/roas", adminKey: nil).status == 401)
    }

    /// Captured payments count by their day after install, a removed one only as a refund; a link whose
    /// network reported no cost still shows its installs and revenue. The migration that brought
    /// the tallies in counts a database's past as the writers count from then on.
    @Test func paymentsCountByTheirDayAfterInstallAndTheMigrationCountsThePastAlike() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, token) = try app.linkrunnerProject(testMode: true)
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/clock", json: #"{"now":"2031-03-02T10:00:00Z"}"#).status == 200)
        _ = try app.clickWithBeacon(ip: "198.51.100.80")
        #expect(try app.client("init", body("init", token: token)).status == 200)
        func pay(_ id: String, _ amount: String) throws {
            let paid = try app.client(
                "capture-payment", body("fields", token: token, extra: #","user_id":"u","amount":\#(amount),"payment_id":"\#(id)""#))
            #expect(paid.status == 200, "\(paid.bodyText)")
        }
        try pay("p1", "4.5")
        try app.advanceClock(projectID, seconds: 2 * 86_400)
        try pay("p2", "10")
        try pay("p3", "7")
        #expect(
            try app.client("remove-captured-payment", body("fields", token: token, extra: #","user_id":"u","payment_id":"p3""#)).status == 200)
        try app.advanceClock(projectID, seconds: 20 * 86_400)
        try pay("p4", "1")
        try app.settle()

        func summer() throws -> [String: Any]? {
            let report = try app.request("GET", "/admin/v1/projects/\(projectID)/roas?since=2031-03-02&until=2031-03-02")
            return (report.json?["rows"] as? [[String: Any]])?.first { $0["network"] as? String == "mail" }
        }
        let row = try #require(try summer())
        #expect(row["campaign_id"] as? String == "summer" && row["installs"] as? Int == 1 && row["paying_users"] as? Int == 1)
        #expect(row["revenue_d0"] as? Double == 4.5 && row["revenue_d7"] as? Double == 14.5 && row["revenue_d30"] as? Double == 15.5, "\(row)")
        #expect(row["spend"] is NSNull && row["has_cost"] as? Bool == false && row["roas_d7"] is NSNull && row["cpi"] is NSNull)
        #expect(row["refunds"] as? Double == 7, "the removed payment is the row's refund: \(row)")

        // The migration's count of the past, run again over what the writers counted, gives the same.
        let migrations = TestApp.backend == .postgres ? Migration.postgres : Migration.bundled
        let migration = try #require(migrations.first { $0.name.contains("_roas") })
        let backfill = String(try #require(migration.sql.range(of: "INSERT INTO rollup_tallies").map { migration.sql[$0.lowerBound...] }))
        #expect(try app.run("DELETE FROM rollup_tallies WHERE dimension = 'link_cohort_revenue'") > 0)
        #expect(try app.run(backfill) > 0)
        #expect(try app.store.rollups.check(projectID: projectID, sinceHour: Int64.min / 2, limit: 5).differing == 0)
        #expect(try summer()?["revenue_d30"] as? Double == 15.5)
    }
}

extension TestApp {
    /// A test-mode project at 2031-03-02 10:00 UTC with `/summer` (UTM source `facebook`,
    /// campaign `summer`), one install from a click on it and three purchases: 10 USD on its
    /// day, 5 USD three days later, 20 USD on day 13.
    func seededROASProject() throws -> String {
        let (projectID, key, _) = try projectWithLink(
            #"{"short_code":"summer","utm":{"source":"facebook","campaign":"summer"}}"#, testMode: true)
        #expect(try request("POST", "/admin/v1/projects/\(projectID)/clock", json: #"{"now":"2031-03-02T10:00:00Z"}"#).status == 200)
        #expect(
            try request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"reporting_currency":"EUR"}"#).json?["reporting_currency"]
                as? String == "EUR")
        _ = try clickWithBeacon(ip: "198.51.100.70")
        let installID = try #require(try install(ip: "198.51.100.70", key: key).json?["installId"] as? String)
        for (daysLater, amount) in [(0.0, "10"), (3, "5"), (10, "20")] {
            if daysLater > 0 { try advanceClock(projectID, seconds: daysLater * 86_400) }
            let event = try request(
                "POST", "/api/sdk/v1/event",
                json: #"{"installId":"\#(installID)","eventName":"purchase","eventData":{"revenue":\#(amount),"currency":"USD"}}"#,
                adminKey: key)
            #expect(event.status == 200, "\(event.bodyText)")
        }
        // The euro bought 1.25 dollars on the day before: the install's day uses that, and says so.
        let rates = try send("PUT", "/admin/v1/fx-rates", body: Array("Date,USD,\n2031-03-01,1.25,\n".utf8), contentType: "text/csv")
        #expect(rates.status == 200, "\(rates.bodyText)")
        let cost = try send(
            "POST", "/admin/v1/projects/\(projectID)/cost",
            body: Array(
                ("date,network,campaign_id,campaign_name,adgroup_id,ad_id,spend,currency,impressions,clicks\n" + """
                    2031-03-02,meta,23851,Summer,,,50,USD,12000,300
                    2031-03-02,instagram,23852,Retarget,,,25,EUR,,
                    2031-03-02,tiktok,77,Spring,,,1000,JPY,,
                    2031-03-03,meta,23851,Summer,,,999,USD,,
                    """).utf8), contentType: "text/csv")
        #expect(cost.status == 200, "\(cost.bodyText)")
        try settle()
        return projectID
    }
}
