import Attribution
import Foundation
import TestSupport
import Testing

/// Apple Ads' installs in the ROAS report: the installs its claims won and their payments, read
/// from the claims, meet the spend uploaded for the same campaign id; a removed one is a refund.
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
    }
}
