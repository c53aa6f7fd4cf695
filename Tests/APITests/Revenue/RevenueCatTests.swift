import Foundation
import StoreContracts
import TestSupport
import Testing

@testable import API

/// RevenueCat's webhook through HTTP on either backend: refused without the source's secret, a
/// purchase tied to its install through the app user id and counted once beside the SDK's payment
/// of the same transaction (RevenueCat's amount wins), a refund taking it back, a retry changing
/// nothing.
@Suite struct RevenueCatTests {
    static let secret = "Bearer rc-hook-secret-0123456789"

    static func event(
        _ id: String, type: String, transaction: String, price: String = "9.99", currency: String = "EUR", extra: String = ""
    ) -> String {
        #"{"api_version":"1.0","event":{"id":"\#(id)","type":"\#(type)","app_user_id":"user_123","aliases":["$RCAnonymousID:8069238d6049","user_123"],"transaction_id":"\#(transaction)","original_transaction_id":"\#(transaction)","environment":"PRODUCTION","purchased_at_ms":1900000000000,"currency":"\#(currency)","price":10.86,"price_in_purchased_currency":\#(price),"product_id":"pro.monthly"\#(extra)}}"#
    }

    private func send(_ app: TestApp, _ projectID: String, _ body: String, authorization: String? = secret) throws -> TestResponse {
        try app.request(
            "POST", "/notifications/revenuecat/\(projectID)", json: body, adminKey: nil,
            headers: authorization.map { ["Authorization": $0] } ?? [:])
    }

    private func revenue(_ app: TestApp, _ projectID: String) throws -> [String: Double] {
        let stats = try app.request("GET", "/admin/v1/projects/\(projectID)/stats").json
        return ((stats?["totals"] as? [String: Any])?["payment_revenue"] as? [String: Double]) ?? [:]
    }

    @Test func aPurchaseIsTiedCountedOnceBesideTheSDKsPaymentAndARefundTakesItBack() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, token) = try app.linkrunnerProject()
        _ = try app.clickWithBeacon(ip: "198.51.100.80")
        #expect(try app.client("init", body("init", token: token)).status == 200)
        #expect(try app.client("trigger", body("trigger", token: token)).status == 200)
        // The app reports the purchase itself too, with the store's transaction id.
        let paid = try app.client(
            "capture-payment", body("fields", token: token, extra: #","user_id":"user_123","amount":10,"payment_id":"2000000111""#))
        #expect(paid.status == 200)
        #expect(try revenue(app, projectID) == ["USD": 10])

        // No source yet: 404. Then a source, and a request without its secret: 401, nothing kept.
        #expect(try send(app, projectID, Self.event("e1", type: "INITIAL_PURCHASE", transaction: "2000000111")).status == 404)
        let saved = try app.request(
            "PUT", "/admin/v1/projects/\(projectID)/revenue-sources/revenuecat", json: #"{"authorization":"\#(Self.secret)"}"#)
        #expect(saved.status == 200 && saved.json?["authorization"] as? String == "••••6789", "\(saved.bodyText)")
        #expect((saved.json?["notification_url"] as? String)?.hasSuffix("/notifications/revenuecat/\(projectID)") == true)
        for authorization in [nil, "Bearer wrong-secret-000000000000"] {
            let refused = try send(
                app, projectID, Self.event("e1", type: "INITIAL_PURCHASE", transaction: "2000000111"), authorization: authorization)
            #expect(refused.status == 401, "\(refused.bodyText)")
        }
        #expect(try app.count("SELECT count(*) FROM store_notifications") == 0)

        let purchase = try send(app, projectID, Self.event("e1", type: "INITIAL_PURCHASE", transaction: "2000000111"))
        #expect(purchase.status == 200 && purchase.json?["outcome"] as? String == "verified_sdk_payment", "\(purchase.bodyText)")
        let installID = try #require(purchase.json?["install_id"] as? String)
        #expect(try revenue(app, projectID) == ["EUR": 9.99], "one payment, RevenueCat's amount")
        let stats = try app.request("GET", "/admin/v1/projects/\(projectID)/stats").json
        #expect(stats?["verified_payment_revenue"] as? [String: Double] == ["EUR": 9.99], "the stats say which revenue is verified")
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        #expect(try browser.get("/projects/\(projectID)/installs/\(installID)").bodyText.contains("verified by RevenueCat"))
        #expect(try browser.get("/projects/\(projectID)").bodyText.contains("EUR 9.99 verified by a store"))
        #expect(try app.count("SELECT count(*) FROM payments WHERE verified_by = 'revenuecat' AND removed_at IS NULL") == 1)

        // The SDK sending the same transaction again changes nothing; a retry of the event neither.
        #expect(
            try app.client("capture-payment", body("fields", token: token, extra: #","user_id":"user_123","amount":10,"payment_id":"2000000111""#))
                .status == 200)
        let retry = try send(app, projectID, Self.event("e1", type: "INITIAL_PURCHASE", transaction: "2000000111"))
        #expect(retry.json?["duplicate"] as? Bool == true && retry.json?["outcome"] as? String == "verified_sdk_payment")
        #expect(try revenue(app, projectID) == ["EUR": 9.99])

        // A renewal is a new transaction of the same install.
        let renewal = try send(app, projectID, Self.event("e2", type: "RENEWAL", transaction: "2000000222"))
        #expect(renewal.json?["outcome"] as? String == "stored" && renewal.json?["install_id"] as? String == installID, "\(renewal.bodyText)")
        #expect(try revenue(app, projectID) == ["EUR": 19.98])

        // Unsubscribing changes no revenue; a refund takes its transaction's back.
        let unsubscribed = try send(
            app, projectID, Self.event("e3", type: "CANCELLATION", transaction: "2000000222", extra: #","cancel_reason":"UNSUBSCRIBE""#))
        #expect(unsubscribed.json?["outcome"] as? String == "unchanged")
        let refund = try send(
            app, projectID, Self.event("e4", type: "CANCELLATION", transaction: "2000000222", extra: #","cancel_reason":"CUSTOMER_SUPPORT""#))
        #expect(refund.json?["outcome"] as? String == "refunded", "\(refund.bodyText)")
        #expect(try revenue(app, projectID) == ["EUR": 9.99])
        #expect(try app.store.rollups.check(projectID: projectID, sinceHour: Int64.min / 2, limit: 5).differing == 0)
    }

    @Test func whatNamesNoInstallIsKeptUncountedAndABodyNotRevenueCatsIsRefused() throws {
        let app = try TestApp()
        let (projectID, key, _) = try app.projectWithLink()
        #expect(
            try app.request("PUT", "/admin/v1/projects/\(projectID)/revenue-sources/revenuecat", json: #"{"authorization":"short"}"#).status == 422)
        #expect(
            try app.request("PUT", "/admin/v1/projects/\(projectID)/revenue-sources/stripe", json: #"{"authorization":"\#(Self.secret)"}"#).status
                == 404)
        #expect(
            try app.request("PUT", "/admin/v1/projects/\(projectID)/revenue-sources/revenuecat", json: #"{"authorization":"\#(Self.secret)"}"#)
                .status == 200)
        let stranger = try send(app, projectID, Self.event("s1", type: "INITIAL_PURCHASE", transaction: "99"))
        #expect(stranger.status == 200 && stranger.json?["outcome"] as? String == "unmatched" && stranger.json?["install_id"] is NSNull)
        #expect(try app.count("SELECT count(*) FROM payments") == 0)
        // The subscriber attribute the docs name ties it to the install id a LinkForty SDK got.
        let installID = try #require(try app.install(ip: "198.51.100.99", key: key).json?["installId"] as? String)
        let attribute = #","subscriber_attributes":{"attributiond_install_id":{"value":"\#(installID)","updated_at_ms":1}}"#
        let tied = try send(app, projectID, Self.event("s0", type: "INITIAL_PURCHASE", transaction: "90", extra: attribute))
        #expect(tied.json?["outcome"] as? String == "stored" && tied.json?["install_id"] as? String == installID, "\(tied.bodyText)")
        #expect(try app.run("DELETE FROM payments") == 1)
        let sandbox = try send(app, projectID, Self.event("s2", type: "TEST", transaction: "98"))
        #expect(sandbox.json?["outcome"] as? String == "unchanged")
        for (body, field) in [
            (#"{"event":{"type":"INITIAL_PURCHASE"}}"#, "event.id"), (#"{"api_version":"1.0"}"#, "event"),
            (Self.event("s3", type: "RENEWAL", transaction: "97", price: "-1"), "price"),
            (Self.event("s4", type: "RENEWAL", transaction: "96", currency: "EURO"), "event.currency"),
        ] {
            let refused = try send(app, projectID, body)
            #expect(refused.status == 422 && refused.bodyText.contains(field), "\(body): \(refused.bodyText)")
        }
        #expect(try send(app, projectID, "[1,2]").status == 422)
        #expect(try app.count("SELECT count(*) FROM store_notifications") == 3, "refused bodies keep nothing")
        let listed = try app.request("GET", "/admin/v1/projects/\(projectID)/revenue-sources")
        #expect((listed.json?["revenue_sources"] as? [[String: Any]])?.first?["source"] as? String == "revenuecat")
        #expect(try app.request("DELETE", "/admin/v1/projects/\(projectID)/revenue-sources/revenuecat").status == 204)
        #expect(try send(app, projectID, Self.event("s5", type: "INITIAL_PURCHASE", transaction: "95")).status == 404)
    }
}
