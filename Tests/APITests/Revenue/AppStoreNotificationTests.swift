import App
import Foundation
import StoreContracts
import TestSupport
import Testing

/// App Store Server Notifications V2 through HTTP on either backend: a notification signed by a
/// chain the test makes is refused until that chain's root is the configured one, then stored,
/// tied to its install through `appAccountToken`, and its refund takes it back.
@Suite struct AppStoreNotificationTests {
    static func transaction(_ id: String, token: String, bundle: String = "com.example.shop", price: Int = 10990) -> String {
        #"{"transactionId":"\#(id)","originalTransactionId":"1000","bundleId":"\#(bundle)","productId":"pro.yearly","purchaseDate":1900000000000,"type":"Auto-Renewable Subscription","appAccountToken":"\#(token)","price":\#(price),"currency":"USD","environment":"Production","revocationDate":1900000500000}"#
    }

    static func notification(_ uuid: String, type: String, subtype: String = "INITIAL_BUY", bundle: String = "com.example.shop", info: String)
        -> String
    {
        #"{"notificationType":"\#(type)","subtype":"\#(subtype)","notificationUUID":"\#(uuid)","data":{"appAppleId":123,"bundleId":"\#(bundle)","bundleVersion":"2.1","environment":"Production","signedTransactionInfo":"\#(info)","status":1},"version":"2.0","signedDate":1900000000000}"#
    }

    private func post(_ app: TestApp, _ projectID: String, _ signedPayload: String) throws -> TestResponse {
        try app.request("POST", "/notifications/app-store/\(projectID)", json: #"{"signedPayload":"\#(signedPayload)"}"#, adminKey: nil)
    }

    /// A project with an install from a click, and an App Store source for its bundle id.
    private func seeded(_ app: TestApp) throws -> (projectID: String, installID: String) {
        let (projectID, key, _) = try app.projectWithLink()
        _ = try app.clickWithBeacon(ip: "198.51.100.90")
        let installID = try #require(try app.install(ip: "198.51.100.90", key: key).json?["installId"] as? String)
        let saved = try app.request("PUT", "/admin/v1/projects/\(projectID)/revenue-sources/app-store", json: #"{"bundle_id":"com.example.shop"}"#)
        #expect(saved.status == 200, "\(saved.bodyText)")
        return (projectID, installID)
    }

    private func revenue(_ app: TestApp, _ projectID: String) throws -> [String: Double] {
        let stats = try app.request("GET", "/admin/v1/projects/\(projectID)/stats").json
        return ((stats?["totals"] as? [String: Any])?["payment_revenue"] as? [String: Double]) ?? [:]
    }

    @Test func aChainNotUpToTheConfiguredRootIsRefusedAndNothingIsStored() throws {
        let chain = try AppStoreChain.make()
        let app = try TestApp(trustedProxies: ["127.0.0.1"])  // Apple Root CA – G3 only
        let (projectID, installID) = try seeded(app)
        let info = chain.sign(Self.transaction("5000", token: installID))
        let refused = try post(app, projectID, chain.sign(Self.notification("n-1", type: "SUBSCRIBED", info: info)))
        #expect(refused.status == 422 && refused.bodyText.contains("signedPayload: its certificate chain does not hold"), "\(refused.bodyText)")
        #expect(try app.count("SELECT count(*) FROM store_notifications") == 0 && app.count("SELECT count(*) FROM payments") == 0)
    }

    @Test func aVerifiedPurchaseIsTiedToItsInstallAndItsRefundTakesItBack() throws {
        // Two roots trusted: ours, and one whose chain lacks Apple's marker extensions.
        let chain = try AppStoreChain.make()
        let unmarked = try AppStoreChain.make(markers: false)
        let app = try TestApp(
            trustedProxies: ["127.0.0.1"], revenue: RevenueSettings(appleRootCertificatesPEM: chain.rootPEM + unmarked.rootPEM))
        let (projectID, installID) = try seeded(app)
        let info = chain.sign(Self.transaction("5000", token: installID.uppercased()))
        let stored = try post(app, projectID, chain.sign(Self.notification("n-1", type: "SUBSCRIBED", info: info)))
        #expect(stored.status == 200 && stored.json?["outcome"] as? String == "stored", "\(stored.bodyText)")
        #expect(stored.json?["install_id"] as? String == installID)
        #expect(try revenue(app, projectID) == ["USD": 10.99], "price 10990 is thousandths")
        #expect(try app.count("SELECT count(*) FROM payments WHERE verified_by = 'app_store' AND payment_id = '5000'") == 1)

        // Another app's notification, a tampered payload, a chain without Apple's markers: 422, nothing changes.
        let otherApp = try post(
            app, projectID, chain.sign(Self.notification("n-2", type: "SUBSCRIBED", bundle: "com.other.app", info: info)))
        #expect(otherApp.status == 422 && otherApp.bodyText.contains("data.bundleId"), "\(otherApp.bodyText)")
        let genuine = chain.sign(Self.notification("n-3", type: "DID_RENEW", info: chain.sign(Self.transaction("5001", token: installID))))
        let parts = genuine.split(separator: ".")
        let forged = try post(
            app, projectID, "\(parts[0]).\(chain.sign(Self.notification("n-3", type: "DID_RENEW", info: info)).split(separator: ".")[1]).\(parts[2])")
        #expect(forged.status == 422 && forged.bodyText.contains("signature"), "\(forged.bodyText)")
        let plain = try post(app, projectID, unmarked.sign(Self.notification("n-4", type: "SUBSCRIBED", info: info)))
        #expect(plain.status == 422 && plain.bodyText.contains("not the App Store's signing certificates"), "\(plain.bodyText)")
        #expect(try post(app, projectID, "not-a-jws").status == 422)
        #expect(try app.request("POST", "/notifications/app-store/\(projectID)", json: "{}", adminKey: nil).status == 422)
        #expect(try revenue(app, projectID) == ["USD": 10.99])

        // A renewal, then the first purchase refunded.
        #expect(try post(app, projectID, genuine).json?["outcome"] as? String == "stored")
        #expect(try revenue(app, projectID) == ["USD": 21.98])
        let refund = try post(app, projectID, chain.sign(Self.notification("n-5", type: "REFUND", subtype: "", info: info)))
        #expect(refund.status == 200 && refund.json?["outcome"] as? String == "refunded", "\(refund.bodyText)")
        #expect(try revenue(app, projectID) == ["USD": 10.99])
        let again = try post(app, projectID, chain.sign(Self.notification("n-5", type: "REFUND", subtype: "", info: info)))
        #expect(again.json?["duplicate"] as? Bool == true)
        #expect(try app.store.rollups.check(projectID: projectID, sinceHour: Int64.min / 2, limit: 5).differing == 0)
    }
}
