import Attribution
import Foundation
import TestSupport
import Testing

/// Apple Ads' installs in the ROAS report: the installs its claims won and their payments, read
/// from the claims, meet the spend uploaded for the same campaign id (and ad group, by ad group);
/// a removed one is a refund.
@Suite struct AppleAdsROASTests {
    @Test func appleAdsInstallsAndTheirPaymentsMeetTheCampaignsSpend() throws {
        let fake = try FakeAdServices()
        let app = try TestApp.appleAds(fake)
        let (projectID, projectToken) = try app.linkrunnerProject()
        app.startOutbox()
        let token = Data("adservices-roas-\(UUID().uuidString)".utf8).base64EncodedString()
        fake.script(token, [FakeAdServices.attributed(clickDate: FakeAdServices.minuteDate(Date().addingTimeInterval(-600)))])
        #expect(try app.initWithToken(token, projectToken: projectToken, instance: "R-1").status == 200)
        #expect(try app.waitForClaim(try app.installID(instance: "R-1")) == "attributed")
        let paid = try app.client(
            "capture-payment", body("fields", token: projectToken, instance: "R-1", extra: #","user_id":"u","amount":12,"payment_id":"aa-1""#))
        #expect(paid.status == 200, "\(paid.bodyText)")
        // A second payment removed since: out of revenue, in refunds.
        let refunded = #","user_id":"u","amount":5,"payment_id":"aa-2""#
        #expect(try app.client("capture-payment", body("fields", token: projectToken, instance: "R-1", extra: refunded)).status == 200)
        #expect(try app.client("remove-captured-payment", body("fields", token: projectToken, instance: "R-1", extra: refunded)).status == 200)
        try app.settle()
        let today = LocalCalendar.utc.dateText(SystemClock().now())
        let csv = "date,network,campaign_id,campaign_name,spend,currency\n\(today),apple_ads,542370539,Spring Search,24,USD\n"
        #expect(try app.send("POST", "/admin/v1/projects/\(projectID)/cost", body: Array(csv.utf8), contentType: "text/csv").status == 200)
        let report = try app.request("GET", "/admin/v1/projects/\(projectID)/roas?since=\(today)&until=\(today)")
        let row = try #require((report.json?["rows"] as? [[String: Any]])?.first { $0["network"] as? String == "apple_ads" }, "\(report.bodyText)")
        #expect(row["campaign_id"] as? String == "542370539" && row["spend"] as? Double == 24 && row["installs"] as? Int == 1, "\(row)")
        #expect(row["revenue_d0"] as? Double == 12 && row["roas_d0"] as? Double == 0.5 && row["cpi"] as? Double == 24, "\(row)")
        #expect(row["refunds"] as? Double == 5, "\(row)")

        // By ad group: the claim's ad group (542317095) meets its cost row; another ad group's
        // cost is a row of its own, cost only.
        let adGroups =
            "date,network,campaign_id,campaign_name,adgroup_id,spend,currency\n"
            + "\(today),apple_ads,542370539,Spring Search,542317095,20,USD\n\(today),apple_ads,542370539,Spring Search,999,4,USD\n"
        #expect(try app.send("POST", "/admin/v1/projects/\(projectID)/cost", body: Array(adGroups.utf8), contentType: "text/csv").status == 200)
        let byAdGroup = try app.request("GET", "/admin/v1/projects/\(projectID)/roas?since=\(today)&until=\(today)&by=adgroup")
        #expect(byAdGroup.json?["by"] as? String == "adgroup", "\(byAdGroup.bodyText)")
        let rows = (byAdGroup.json?["rows"] as? [[String: Any]] ?? []).filter { $0["network"] as? String == "apple_ads" }
        let claimed = try #require(rows.first { $0["adgroup_id"] as? String == "542317095" }, "\(rows)")
        #expect(claimed["spend"] as? Double == 20 && claimed["installs"] as? Int == 1 && claimed["revenue_d0"] as? Double == 12, "\(claimed)")
        let other = try #require(rows.first { $0["adgroup_id"] as? String == "999" }, "\(rows)")
        #expect(other["spend"] as? Double == 4 && other["installs"] as? Int == 0 && other["has_installs"] as? Bool == false, "\(other)")
        let campaignWide = try #require(rows.first { ($0["adgroup_id"] as? String)?.isEmpty == true }, "\(rows)")
        #expect(
            campaignWide["spend"] as? Double == 24 && campaignWide["installs"] as? Int == 0, "the campaign's own row, uploaded first: \(campaignWide)"
        )
        #expect(try app.request("GET", "/admin/v1/projects/\(projectID)/roas?by=keyword").status == 422)
    }

    /// Branch's iOS SDK sends the AdServices token as `apple_attribution_token` on `/v1/install`:
    /// the install's Apple Ads claim, exchanged with Apple as Linkrunner's init's is.
    @Test func branchsInstallCarriesTheAdServicesTokenToAnAppleAdsClaim() throws {
        let fake = try FakeAdServices()
        let app = try TestApp.appleAds(fake)
        let (projectID, _, _) = try app.projectWithLink()
        app.startOutbox()
        let key = try app.branchKey(projectID)
        let token = Data("adservices-branch-\(UUID().uuidString)".utf8).base64EncodedString()
        fake.script(token, [FakeAdServices.attributed(clickDate: FakeAdServices.minuteDate(Date().addingTimeInterval(-600)))])
        let body = BranchBodies.session(key: key).replacingOccurrences(of: #""update":0"#, with: #""update":0,"apple_attribution_token":"\#(token)""#)
        let session = try app.branch("/v1/install", body, ip: "198.51.100.95")
        let installID = try #require(session.json?["randomized_bundle_token"] as? String, "\(session.bodyText)")
        #expect(try app.waitForClaim(installID) == "attributed")
    }
}
