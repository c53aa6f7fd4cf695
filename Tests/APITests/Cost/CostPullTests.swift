import App
import Foundation
import StoreContracts
import TestSupport
import Testing

/// Spend pulled from the networks' reporting APIs through HTTP on either backend: Google Ads and
/// Meta fakes give the same cost rows a CSV of the same numbers gives; an expired Google token is
/// refreshed, Meta's pages are followed, a rate limit puts the pull off; a lease keeps a second
/// pull out while one runs.
@Suite struct CostPullTests {
    private func cost(_ app: TestApp, _ projectID: String) throws -> [String] {
        let rows = try app.request("GET", "/admin/v1/projects/\(projectID)/cost?since=2031-02-20&until=2031-03-02").json?["cost"] as? [[String: Any]]
        return (rows ?? []).map { row in
            ["date", "network", "campaign_id", "campaign_name", "spend_micros", "currency", "impressions", "clicks"].map { "\(row[$0] ?? "-")" }
                .joined(separator: " ")
        }
    }

    private func pull(_ app: TestApp, _ projectID: String, _ network: String) throws -> String {
        let pulled = try app.request("POST", "/admin/v1/projects/\(projectID)/cost-sources/\(network)/pull")
        #expect(pulled.status == 200, "\(pulled.bodyText)")
        return pulled.json?["result"] as? String ?? ""
    }

    @Test func eachConnectorGivesTheRowsACSVGivesAndRecoversFromExpiryAndRateLimits() throws {
        let networks = try FakeCostNetworks()
        let app = try TestApp(
            allowPrivateOutbound: true,
            adPlatforms: AdPlatformSettings(
                metaURL: networks.url, tiktokURL: networks.url, googleAdsAPIURL: networks.url, googleOAuthURL: networks.url + "token"))
        app.startOutbox()
        let (projectID, _, _) = try app.projectWithLink(testMode: true)
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/clock", json: #"{"now":"2031-03-02T10:00:00Z"}"#).status == 200)

        let refused = try app.request("PUT", "/admin/v1/projects/\(projectID)/cost-sources/google-ads", json: #"{"customer_id":"abc"}"#)
        #expect(
            refused.status == 422 && refused.bodyText.contains("customer_id") && refused.bodyText.contains("developer_token"), "\(refused.bodyText)")
        let google = try app.request(
            "PUT", "/admin/v1/projects/\(projectID)/cost-sources/google-ads",
            json: """
                {"customer_id":"123-456-7890","login_customer_id":"987-654-3210","developer_token":"\(FakeCostNetworks.developerToken)",
                 "client_id":"\(FakeCostNetworks.clientID)","client_secret":"\(FakeCostNetworks.clientSecret)",
                 "refresh_token":"\(FakeCostNetworks.refreshToken)","backfill_days":3}
                """)
        #expect(google.status == 200 && google.json?["refresh_token"] as? String == "••••oken", "\(google.bodyText)")

        // The Google pull, as of the real clock: the fake answers the same days whatever is asked.
        let first = try pull(app, projectID, "google-ads")
        #expect(first.hasPrefix("ok: 3 rows") && first.hasSuffix("3 new"), "\(first)")
        #expect(networks.googleQueries.last?.contains("segments.date BETWEEN") == true)
        networks.expireGoogleToken()
        #expect(try pull(app, projectID, "google-ads").hasSuffix("0 new"), "the expired token is refreshed, the rows replaced")
        #expect(networks.tokenGrants == 2)

        let meta = try app.request(
            "PUT", "/admin/v1/projects/\(projectID)/cost-sources/meta",
            json: #"{"ad_account_id":"777","access_token":"\#(FakeCostNetworks.metaToken)"}"#)
        #expect(meta.status == 200)
        networks.rateLimitMeta(1)
        let limited = try pull(app, projectID, "meta")
        #expect(limited.contains("rate limited"), "\(limited)")
        let shown = try app.request("GET", "/admin/v1/projects/\(projectID)/cost-sources/meta").json
        #expect((shown?["last_result"] as? String)?.hasPrefix("failed:") == true && shown?["next_pull_at"] as? String != nil)
        #expect(try pull(app, projectID, "meta").hasPrefix("ok: 2 rows"), "both pages")
        #expect(
            try app.request(
                "PUT", "/admin/v1/projects/\(projectID)/cost-sources/tiktok",
                json: #"{"advertiser_id":"555","currency":"EUR","access_token":"\#(FakeCostNetworks.tiktokToken)"}"#
            ).status == 200)
        #expect(try pull(app, projectID, "tiktok").hasPrefix("ok: 2 rows"), "both pages")

        // A CSV of the same numbers in another project gives the same rows.
        let other = try #require(try app.createProject("Uploaded")["id"] as? String)
        let csv = """
            date,network,campaign_id,campaign_name,spend,currency,impressions,clicks
            2031-03-01,google,111,Winter sale,80,EUR,4000,90
            2031-03-02,google,111,Winter sale,85.5,EUR,4000,90
            2031-03-02,google,222,Brand,1.23,EUR,4000,90
            2031-03-01,meta,m-7,Retarget,10,EUR,400,10
            2031-03-02,meta,m-7,Retarget,12.35,EUR,500,12
            2031-03-01,tiktok,17000,Spring,20.5,EUR,300,9
            2031-03-02,tiktok,17000,Spring,7,EUR,300,9
            """
        #expect(try app.send("POST", "/admin/v1/projects/\(other)/cost", body: Array(csv.utf8), contentType: "text/csv").status == 200)
        let pulled = try cost(app, projectID)
        let uploaded = try cost(app, other)
        #expect(pulled.count == 7 && pulled == uploaded, "\(pulled)")

        // Another node's lease keeps this one out until it runs out.
        #expect(try app.run("UPDATE cost_sources SET claimed_by = 'other-node', claimed_until = ? WHERE network = 'meta'", Int64.max / 2) == 1)
        #expect(try pull(app, projectID, "meta") == "another node is pulling this source")
        #expect(try app.run("UPDATE cost_sources SET claimed_until = 1 WHERE network = 'meta'") == 1)
        #expect(try pull(app, projectID, "meta").hasPrefix("ok:"), "a lease that ran out is taken over")
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/cost-sources/snap/pull").status == 404)
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/cost-sources/meta/pull", adminKey: nil).status == 401)
        let listed = try app.request("GET", "/admin/v1/projects/\(projectID)/cost-sources").json?["cost_sources"] as? [[String: Any]]
        #expect(listed?.map { $0["network"] as? String } == ["google-ads", "meta", "tiktok"])
    }

    @Test func appleAdsSpendComesFromTheCampaignReportWithTheProjectsCredentials() throws {
        let fake = try FakeAdServices()
        fake.signingKey = TestKeys.p256
        let app = try TestApp(
            allowPrivateOutbound: true, appleAds: AppleAdsSettings(url: fake.url, retrySeconds: 1, oauthURL: fake.oauthURL, apiURL: fake.apiURL))
        app.startOutbox()
        let (projectID, _, _) = try app.projectWithLink()
        let refused = try app.request("PUT", "/admin/v1/projects/\(projectID)/cost-sources/apple-ads", json: "{}")
        #expect(refused.status == 422 && refused.bodyText.contains("apple-ads"), "no credentials yet: \(refused.bodyText)")
        let pem = TestKeys.p256.split(separator: "\n").joined(separator: #"\n"#)
        let credentials = #"{"client_id":"SEARCHADS.abc","team_id":"TEAM123","key_id":"KEY123","org_id":40669820,"private_key":"\#(pem)"}"#
        #expect(try app.request("PUT", "/admin/v1/projects/\(projectID)/apple-ads", json: credentials).status == 200)
        #expect(try app.request("PUT", "/admin/v1/projects/\(projectID)/cost-sources/apple-ads", json: #"{"backfill_days":1}"#).status == 200)
        #expect(try pull(app, projectID, "apple-ads").hasPrefix("ok: 3 rows"), "both pages")
        #expect(
            try cost(app, projectID) == [
                "2031-03-01 apple_ads 542370539 Spring Search 30500000 USD 1000 40",
                "2031-03-02 apple_ads 542370539 Spring Search 28000000 USD 900 35",
                "2031-03-02 apple_ads 542370540 Brand 4250000 USD 100 9",
            ])
    }
}
