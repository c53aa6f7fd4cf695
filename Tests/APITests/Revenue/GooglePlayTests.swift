import App
import Foundation
import StoreContracts
import TestSupport
import Testing

/// Google Play's Real-time Developer Notifications through HTTP on either backend: the purchase
/// looked up at a fake Android Publisher API as the service account, tied through
/// `obfuscatedExternalAccountId`, counted once beside the SDK's payment of the same order; a
/// renewal, a voided order, a one-time product at its regional price; refusals that keep nothing.
@Suite struct GooglePlayTests {
    static let pushSecret = "push-secret-0123456789abcdef"

    static func push(_ id: String, _ notification: String, package: String = "com.shop") -> String {
        let data = Data(#"{"version":"1.0","packageName":"\#(package)","eventTimeMillis":"1900000000000",\#(notification)}"#.utf8)
            .base64EncodedString()
        return
            #"{"message":{"data":"\#(data)","messageId":"\#(id)","publishTime":"2030-03-17T00:00:00Z"},"subscription":"projects/shop/subscriptions/play"}"#
    }

    static func subscription(_ type: Int, token: String) -> String {
        #""subscriptionNotification":{"version":"1.0","notificationType":\#(type),"purchaseToken":"\#(token)","subscriptionId":"pro.monthly"}"#
    }

    private func send(_ app: TestApp, _ projectID: String, _ body: String, secret: String = pushSecret) throws -> TestResponse {
        try app.request("POST", "/notifications/google-play/\(projectID)?secret=\(secret)", json: body, adminKey: nil)
    }

    private func revenue(_ app: TestApp, _ projectID: String) throws -> [String: Double] {
        let stats = try app.request("GET", "/admin/v1/projects/\(projectID)/stats").json
        return ((stats?["totals"] as? [String: Any])?["payment_revenue"] as? [String: Double]) ?? [:]
    }

    @Test func purchasesAreLookedUpTiedAndCountedOnceAndVoidedOrdersTakenBack() throws {
        let google = try FakeGooglePlay()
        let app = try TestApp(
            trustedProxies: ["127.0.0.1"], allowPrivateOutbound: true, revenue: RevenueSettings(googlePlayURL: google.url))
        app.startOutbox()
        let (projectID, token) = try app.linkrunnerProject()
        _ = try app.clickWithBeacon(ip: "198.51.100.80")
        #expect(try app.client("init", body("init", token: token)).status == 200)
        #expect(try app.client("trigger", body("trigger", token: token)).status == 200)
        let order = "GPA.3372-4150-9088-12345"
        #expect(
            try app.client("capture-payment", body("fields", token: token, extra: #","user_id":"user_123","amount":5,"payment_id":"\#(order)""#))
                .status == 200)

        let source = """
            {"package_name":"com.shop","push_secret":"\(Self.pushSecret)","service_account":\(google.serviceAccountJSON)}
            """
        let saved = try app.request("PUT", "/admin/v1/projects/\(projectID)/revenue-sources/google-play", json: source)
        #expect(saved.status == 200 && (saved.json?["service_account"] as? String)?.hasPrefix("••••") == true, "\(saved.bodyText)")
        google.put(
            "subscriptions/pro.monthly/tokens/tok-1",
            #"{"kind":"androidpublisher#subscriptionPurchase","startTimeMillis":"1900000000000","expiryTimeMillis":"1902592000000","autoRenewing":true,"priceCurrencyCode":"EUR","priceAmountMicros":"4990000","countryCode":"DE","paymentState":1,"orderId":"\#(order)","obfuscatedExternalAccountId":"user_123"}"#
        )

        // Refused, and nothing kept: the wrong secret, another app's package, a token Google does not know.
        #expect(try send(app, projectID, Self.push("m-1", Self.subscription(4, token: "tok-1")), secret: "guess").status == 401)
        let other = try send(app, projectID, Self.push("m-1", Self.subscription(4, token: "tok-1"), package: "com.other"))
        #expect(other.status == 422 && other.bodyText.contains("packageName"), "\(other.bodyText)")
        let unknown = try send(app, projectID, Self.push("m-0", Self.subscription(4, token: "tok-unknown")))
        #expect(unknown.status == 502 && unknown.bodyText.contains("404"), "\(unknown.bodyText)")
        #expect(try send(app, projectID, #"{"message":{"data":"not base64!","messageId":"x"}}"#).status == 422)
        #expect(try app.count("SELECT count(*) FROM store_notifications") == 0)

        let purchased = try send(app, projectID, Self.push("m-1", Self.subscription(4, token: "tok-1")))
        #expect(purchased.status == 200 && purchased.json?["outcome"] as? String == "verified_sdk_payment", "\(purchased.bodyText)")
        #expect(try revenue(app, projectID) == ["EUR": 4.99], "the SDK's 5 USD is the same order: Google's amount, once")

        // The renewal is its own order (`..0`); then Google voids it.
        google.put(
            "subscriptions/pro.monthly/tokens/tok-1",
            #"{"startTimeMillis":"1900000000000","priceCurrencyCode":"EUR","priceAmountMicros":"4990000","orderId":"\#(order)..0","obfuscatedExternalAccountId":"user_123"}"#
        )
        let renewed = try send(app, projectID, Self.push("m-2", Self.subscription(2, token: "tok-1")))
        #expect(renewed.json?["outcome"] as? String == "stored", "\(renewed.bodyText)")
        #expect(try revenue(app, projectID) == ["EUR": 9.98])
        let voided = try send(
            app, projectID,
            Self.push("m-3", #""voidedPurchaseNotification":{"purchaseToken":"tok-1","orderId":"\#(order)..0","productType":1,"refundType":1}"#))
        #expect(voided.json?["outcome"] as? String == "refunded", "\(voided.bodyText)")
        #expect(try revenue(app, projectID) == ["EUR": 4.99])

        // A one-time product: no price in the purchase, its regional price from the catalogue.
        google.put(
            "products/coins.100/tokens/tok-p",
            #"{"purchaseTimeMillis":"1900000100000","purchaseState":0,"orderId":"GPA.1111-0000-0000-00001","regionCode":"DE","obfuscatedExternalAccountId":"user_123"}"#
        )
        google.put(
            "inappproducts/coins.100",
            #"{"sku":"coins.100","status":"active","defaultPrice":{"priceMicros":"990000","currency":"USD"},"prices":{"DE":{"priceMicros":"1090000","currency":"EUR"}}}"#
        )
        let coins = try send(
            app, projectID,
            Self.push("m-4", #""oneTimeProductNotification":{"version":"1.0","notificationType":1,"purchaseToken":"tok-p","sku":"coins.100"}"#))
        #expect(coins.json?["outcome"] as? String == "stored", "\(coins.bodyText)")
        #expect(try revenue(app, projectID) == ["EUR": 6.08])
        #expect(try send(app, projectID, Self.push("m-5", #""testNotification":{"version":"1.0"}"#)).json?["outcome"] as? String == "unchanged")
        #expect(
            try send(
                app, projectID,
                Self.push("m-4", #""oneTimeProductNotification":{"version":"1.0","notificationType":1,"purchaseToken":"tok-p","sku":"coins.100"}"#)
            ).json?["duplicate"] as? Bool == true)
        #expect(google.tokenRequests == 1, "one token, kept until it expires")
        #expect(try app.store.rollups.check(projectID: projectID, sinceHour: Int64.min / 2, limit: 5).differing == 0)
    }

    /// A source that checks Pub/Sub's OIDC tokens instead of a URL secret: the token must be
    /// Google's (a key of its published set, its signature), for the source's audience and
    /// service account, and not expired; Google's keys are fetched once while their cache header
    /// holds. A source with neither check is refused.
    @Test func pushesAreLetInByGooglesSignedTokenForTheSourcesAudience() throws {
        let google = try FakeGooglePlay()
        let app = try TestApp(
            trustedProxies: ["127.0.0.1"], allowPrivateOutbound: true,
            revenue: RevenueSettings(googlePlayURL: google.url, googleCertsURL: google.url + "oauth2/v3/certs"))
        app.startOutbox()
        let (projectID, token) = try app.linkrunnerProject()
        _ = try app.clickWithBeacon(ip: "198.51.100.81")
        #expect(try app.client("init", body("init", token: token)).status == 200)
        #expect(try app.client("trigger", body("trigger", token: token)).status == 200)  // the user id, user_123
        let path = "/admin/v1/projects/\(projectID)/revenue-sources/google-play"
        let neither = try app.request("PUT", path, json: #"{"package_name":"com.shop","service_account":\#(google.serviceAccountJSON)}"#)
        #expect(neither.status == 422 && neither.bodyText.contains("push_audience"), "\(neither.bodyText)")

        let audience = "https://attribution.example.com/notifications/google-play/\(projectID)"
        let source = """
            {"package_name":"com.shop","push_audience":"\(audience)","push_service_account":"\(FakeGooglePlay.pushEmail)",\
            "service_account":\(google.serviceAccountJSON)}
            """
        let saved = try app.request("PUT", path, json: source)
        #expect(saved.status == 200 && saved.json?["push_audience"] as? String == audience, "\(saved.bodyText)")
        google.put(
            "subscriptions/pro.monthly/tokens/tok-9",
            #"{"startTimeMillis":"1900000000000","priceCurrencyCode":"EUR","priceAmountMicros":"2990000","orderId":"GPA.9","obfuscatedExternalAccountId":"user_123"}"#
        )
        let push = Self.push("m-9", Self.subscription(4, token: "tok-9"))
        func send(_ authorization: String?) throws -> TestResponse {
            try app.request(
                "POST", "/notifications/google-play/\(projectID)", json: push, adminKey: nil,
                headers: authorization.map { ["Authorization": $0] } ?? [:])
        }
        let otherKey = google.privateKeyPEM  // a key of the right size that is not Google's
        for (authorization, why) in [
            (nil, "no Authorization"), ("Bearer not-a-jwt", "not a JWT"),
            (google.pushAuthorization(audience: "https://elsewhere.example/push"), "audience"),
            (google.pushAuthorization(audience: audience, email: "someone@else.iam.gserviceaccount.com"), "push_service_account"),
            (google.pushAuthorization(audience: audience, expiresIn: -120), "expired"),
            (google.pushAuthorization(audience: audience, issuer: "https://evil.example"), "issuer"),
            (google.pushAuthorization(audience: audience, keyID: "made-up"), "not one Google publishes"),
            (google.pushAuthorization(audience: audience, keyID: "other-key"), "signature"),
            (google.pushAuthorization(audience: audience, signingKey: otherKey), "signature"),
        ] {
            let refused = try send(authorization)
            #expect(refused.status == 401 && refused.bodyText.contains(why), "\(why): \(refused.status) \(refused.bodyText)")
        }
        #expect(try app.count("SELECT count(*) FROM store_notifications") == 0)

        let accepted = try send(google.pushAuthorization(audience: audience))
        #expect(accepted.status == 200 && accepted.json?["outcome"] as? String == "stored", "\(accepted.bodyText)")
        #expect(try revenue(app, projectID) == ["EUR": 2.99])
        let again = try send(google.pushAuthorization(audience: audience))
        #expect(again.status == 200 && again.json?["duplicate"] as? Bool == true, "\(again.bodyText)")
        #expect(google.keyRequests == 1, "Google's keys are kept while their max-age holds, a made-up key id fetches nothing more")
    }
}
