import Foundation
import TestSupport
import Testing

/// Ad spend through the admin API on either backend: an upload stored whole, a re-upload of a key
/// replacing it, a refused upload changing nothing, and the rows read back by day.
@Suite struct CostTests {
    private static let header = "date,network,campaign_id,campaign_name,adgroup_id,ad_id,spend,currency,impressions,clicks\n"

    private func upload(_ app: TestApp, _ projectID: String, _ csv: String, type: String = "text/csv") throws -> TestResponse {
        try app.send("POST", "/admin/v1/projects/\(projectID)/cost", body: Array(csv.utf8), contentType: type)
    }

    @Test func anUploadIsStoredReplacedByItsKeyAndReadBack() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        let first = try upload(
            app, projectID,
            Self.header + """
                2026-11-29,google,111,Winter sale,,,100.25,USD,5000,120
                2026-11-30,google,111,Winter sale,,,80,USD,4000,90
                2026-11-30,meta,m-7,Retarget,ag-1,ad-9,12.345678,EUR,,
                """)
        #expect(first.status == 200, "\(first.bodyText)")
        #expect(first.json?["added"] as? Int == 3 && first.json?["replaced"] as? Int == 0)

        // Google restates a day: the same key replaces its row; a new day is added.
        let again = try upload(
            app, projectID,
            Self.header + "2026-11-30,Google,111,Winter sale (renamed),,,85.5,USD,4100,95\n2026-12-01,google,111,Winter sale,,,10,,,\n")
        #expect(again.json?["added"] as? Int == 1 && again.json?["replaced"] as? Int == 1, "\(again.bodyText)")
        #expect(try app.count("SELECT count(*) FROM cost_rows") == 4)

        let listed = try app.request("GET", "/admin/v1/projects/\(projectID)/cost?since=2026-11-30&until=2026-12-01")
        #expect(listed.status == 200)
        let rows = try #require(listed.json?["cost"] as? [[String: Any]])
        #expect(
            rows.map { "\($0["date"]!) \($0["network"]!) \($0["spend"]!) \($0["currency"]!)" } == [
                "2026-11-30 google 85.5 USD", "2026-11-30 meta 12.345678 EUR", "2026-12-01 google 10 USD",
            ])
        #expect(rows[0]["campaign_name"] as? String == "Winter sale (renamed)" && rows[0]["clicks"] as? Int == 95)
        #expect(rows[1]["spend_micros"] as? Int == 12_345_678 && rows[1]["adgroup_id"] as? String == "ag-1" && rows[1]["impressions"] is NSNull)
    }

    @Test func aRefusedUploadNamesItsCellsAndStoresNothing() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        #expect(try upload(app, projectID, Self.header + "2026-11-30,google,111,A,,,5,USD,,\n").status == 200)
        let refused = try upload(app, projectID, Self.header + "2026-12-01,google,111,A,,,7,USD,,\n2026-12-02,google,111,A,,,-3,DOLLARS,,\n")
        #expect(refused.status == 422, "\(refused.bodyText)")
        #expect(refused.bodyText.contains("line 3, column spend: must not be negative"), "\(refused.bodyText)")
        #expect(refused.bodyText.contains("line 3, column currency"), "\(refused.bodyText)")
        #expect(try app.count("SELECT count(*) FROM cost_rows") == 1, "the good line 2 is not stored either")
        #expect(try app.count("SELECT count(*) FROM cost_rows WHERE spend_micros = 5000000") == 1)

        #expect(try upload(app, projectID, "date,network\n").status == 422)
        #expect(try upload(app, projectID, Self.header).status == 422, "a header and no row")
        #expect(try upload(app, projectID, Self.header + "2026-11-30,google,111,A,,,5,USD,,\n", type: "application/json").status == 415)
        #expect(try upload(app, "no-such-project", Self.header + "2026-11-30,google,111,A,,,5,USD,,\n").status == 404)
        let badRange = try app.request("GET", "/admin/v1/projects/\(projectID)/cost?since=yesterday")
        #expect(badRange.status == 422 && badRange.bodyText.contains("since"), "\(badRange.bodyText)")
    }

    private func putRates(_ app: TestApp, _ csv: String) throws -> TestResponse {
        try app.send("PUT", "/admin/v1/fx-rates", body: Array(csv.utf8), contentType: "text/csv")
    }

    @Test func spendIsConvertedAtItsDaysReferenceRates() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        let stored = try putRates(app, "Date,USD,JPY,\n2026-11-27,1.25,160,\n2026-11-26,1.0,N/A,\n")
        #expect(stored.status == 200 && stored.json?["days"] as? Int == 2 && stored.json?["rates"] as? Int == 3, "\(stored.bodyText)")
        let refused = try putRates(app, "Date,USD\n2026-11-28,zero\n")
        #expect(refused.status == 422 && refused.bodyText.contains("line 2, column USD"), "\(refused.bodyText)")
        #expect(try app.count("SELECT count(*) FROM fx_rates") == 3, "a refused file stores nothing")

        let saturday = try app.request("GET", "/admin/v1/fx-rates?day=2026-11-28")
        #expect(saturday.json?["day"] as? String == "2026-11-27" && (saturday.json?["rates"] as? [String: Any])?["JPY"] as? Double == 160)
        #expect(try app.request("GET", "/admin/v1/fx-rates?day=2026-01-01").status == 404)
        #expect(try app.request("GET", "/admin/v1/fx-rates?day=soon").status == 422)
        #expect(try app.request("GET", "/admin/v1/fx-rates?day=2026-11-28", adminKey: nil).status == 401)

        #expect(
            try upload(
                app, projectID,
                Self.header + "2026-11-25,google,1,A,,,9,USD,,\n2026-11-27,google,1,A,,,12.5,USD,,\n2026-11-28,meta,2,B,,,1000,JPY,,\n"
            ).status == 200)
        let listed = try app.request("GET", "/admin/v1/projects/\(projectID)/cost?since=2026-11-25&until=2026-11-28&currency=eur")
        let rows = try #require(listed.json?["cost"] as? [[String: Any]], "\(listed.bodyText)")
        let converted = rows.map { $0["converted"] as? [String: Any] }
        #expect(converted[0] == nil, "no rate on or before 2026-11-25")
        #expect(converted[1]?["spend"] as? Double == 10 && converted[1]?["rates_of"] as? String == "2026-11-27")
        #expect(converted[2]?["spend"] as? Double == 6.25 && converted[2]?["stale"] as? Bool == true, "Friday's yen on Saturday")
        #expect(try app.request("GET", "/admin/v1/projects/\(projectID)/cost?currency=EURO").status == 422)
    }
}
