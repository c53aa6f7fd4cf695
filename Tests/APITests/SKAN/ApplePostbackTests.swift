import Attribution
import Cryptography
import Foundation
import HTTP
import StoreContracts
import TestSupport
import Testing

@testable import API
@testable import App
@_spi(StoreInternals) @testable import Store

/// Apple's postback copies through the real HTTP path (docs/skan-postbacks.md): Apple's own signed
/// examples verify, a changed signed field does not, repeats change nothing, and what is stored is
/// what the list, the report, the forwarding and the webhook show. Both backends.
@Suite struct ApplePostbackTests {
    static let skanPath = "/.well-known/skadnetwork/report-attribution/"
    static let aakPath = "/.well-known/appattribution/report-attribution/"

    /// A live project whose store URL names Apple's example app, with the spec's SKAN schema.
    static func appleExampleProject(_ app: TestApp, testMode: Bool = false, storeID: Int = ApplePostbackVectors.appID) throws -> String {
        let project = try app.createProject(
            testMode ? "Test build" : "Shop",
            extra: #","ios_store_url":"https://apps.apple.com/us/app/example/id\#(storeID)","skan":\#(skanSchemaJSON)"#
                + (testMode ? #","test_mode":true"# : ""))
        return project["id"] as! String
    }

    static func post(_ app: TestApp, _ path: String, _ body: String, host: String = "example.com") throws -> TestResponse {
        try app.request("POST", path, json: body, adminKey: nil, host: host)
    }

    static func postbacks(_ app: TestApp, _ projectID: String) throws -> [[String: Any]] {
        try app.request("GET", "/admin/v1/projects/\(projectID)/skan/postbacks").json?["postbacks"] as? [[String: Any]] ?? []
    }

    @Test func applesPublishedPostbacksVerifyAndAreStoredOnce() throws {
        let app = try TestApp()
        let projectID = try Self.appleExampleProject(app)
        for (body, id) in [
            (ApplePostbackVectors.skan4High, "e30"), (ApplePostbackVectors.skan4Low, "e31"), (ApplePostbackVectors.skan3Winner, "e28"),
        ] {
            // Any Host: Apple posts to the app's registrable domain.
            let answer = try Self.post(app, Self.skanPath, body, host: "shop-\(id).example")
            #expect(answer.status == 200, "\(answer.bodyText)")
            #expect(answer.json?["status"] as? String == "stored")
        }
        // The 2.2 example shares the 3.0 example's transaction id: verified, then a repeat.
        let repeated = try Self.post(app, Self.skanPath, ApplePostbackVectors.skan22)
        #expect(repeated.status == 200 && repeated.json?["status"] as? String == "duplicate", "\(repeated.bodyText)")
        let again = try Self.post(app, Self.skanPath, ApplePostbackVectors.skan4High)
        #expect(again.status == 200 && again.json?["status"] as? String == "duplicate")

        let stored = try Self.postbacks(app, projectID)
        #expect(stored.count == 3)
        let high = try #require(stored.first { $0["postback_id"] as? String == "6aafb7a5-0170-41b5-bbe4-fe71dedf1e30" })
        #expect(high["framework"] as? String == "skadnetwork")
        #expect(high["version"] as? String == "4.0")
        #expect(high["ad_network_id"] as? String == "com.example")
        #expect(high["source_identifier"] as? String == "5239")
        #expect(high["app_id"] as? Int == 525_463_029)
        #expect(high["source_domain"] as? String == "example.com")
        #expect(high["fidelity_type"] as? Int == 1)
        #expect(high["did_win"] as? Bool == true)
        #expect(high["redownload"] as? Bool == false)
        #expect(high["conversion_value"] as? Int == 63)
        #expect(high["postback_sequence_index"] as? Int == 0)
        // 63 under the schema: the top revenue bucket (≥ 200) and all three event bits.
        let fine = try #require((high["decoded"] as? [String: Any])?["conversion_value"] as? [String: Any])
        #expect(fine["events"] as? [String] == ["signup", "purchase", "subscribe"])
        #expect(fine["revenue_at_least"] as? Double == 200)
        #expect(fine["revenue_below"] == nil)
        let low = try #require(stored.first { $0["postback_id"] as? String == "6aafb7a5-0170-41b5-bbe4-fe71dedf1e31" })
        #expect(low["coarse_conversion_value"] as? String == "high")
        let coarse = try #require((low["decoded"] as? [String: Any])?["coarse_conversion_value"] as? [String: Any])
        #expect((coarse["explanation"] as? [String])?.first?.hasPrefix("coarse rule 1 (high)") == true)
        let v3 = try #require(stored.first { $0["version"] as? String == "3.0" })
        #expect(v3["campaign_id"] as? Int == 42)
        #expect(v3["source_app_id"] as? Int == 1_234_567_891)
        #expect(v3["redownload"] as? Bool == true)
        #expect(v3["conversion_type"] as? String == "redownload")

        let metrics = try app.request("GET", "/metrics").bodyText
        #expect(metrics.contains(#"attributiond_skan_postbacks_total{framework="skadnetwork",result="stored"} 3"#))
        #expect(metrics.contains(#"attributiond_skan_postbacks_total{framework="skadnetwork",result="duplicate"} 2"#))
    }

    @Test func aChangedSignedFieldIsRefusedAndAChangedValueIsNot() throws {
        let app = try TestApp()
        let projectID = try Self.appleExampleProject(app)
        let signedChanges = [
            (#""ad-network-id": "com.example""#, #""ad-network-id": "com.example2""#),
            (#""source-identifier": "5239""#, #""source-identifier": "5238""#),
            (#""app-id": 525463029"#, #""app-id": 525463028"#),
            (#"dedf1e30""#, #"dedf1e3f""#),
            (#""redownload": false"#, #""redownload": true"#),
            (#""source-domain": "example.com""#, #""source-domain": "example.org""#),
            (#""fidelity-type": 1"#, #""fidelity-type": 0"#),
            (#""did-win": true"#, #""did-win": false"#),
            (#""postback-sequence-index": 0"#, #""postback-sequence-index": 1"#),
        ]
        for (from, to) in signedChanges {
            let body = ApplePostbackVectors.skan4High.replacingOccurrences(of: from, with: to)
            #expect(body != ApplePostbackVectors.skan4High)
            let answer = try Self.post(app, Self.skanPath, body)
            #expect(answer.status == 422, "\(to): \(answer.bodyText)")
            #expect(answer.bodyText.contains("bad_signature"), "\(to): \(answer.bodyText)")
        }
        // Apple does not sign the values: a copy with another value still verifies.
        let otherValue = ApplePostbackVectors.skan4High.replacingOccurrences(of: #""conversion-value": 63"#, with: #""conversion-value": 20"#)
        #expect(try Self.post(app, Self.skanPath, otherValue).json?["status"] as? String == "stored")
        let otherCoarse = ApplePostbackVectors.skan4Low.replacingOccurrences(of: #""high""#, with: #""low""#)
        #expect(try Self.post(app, Self.skanPath, otherCoarse).json?["status"] as? String == "stored")
        let stored = try Self.postbacks(app, projectID)
        #expect(stored.count == 2)
        #expect(stored.contains { $0["conversion_value"] as? Int == 20 })
        let metrics = try app.request("GET", "/metrics").bodyText
        #expect(metrics.contains(#"attributiond_skan_postbacks_total{framework="skadnetwork",result="bad_signature"} 9"#))
    }

    @Test func malformedOldAndUnknownPostbacksAreRefusedByName() throws {
        let app = try TestApp()
        let projectID = try Self.appleExampleProject(app)
        let cases: [(String, Int, String)] = [
            ("not json", 422, "malformed"),
            ("[]", 422, "malformed"),
            (ApplePostbackVectors.skan4High.replacingOccurrences(of: #""app-id": 525463029"#, with: #""app-id": "525463029""#), 422, "'app-id'"),
            (
                ApplePostbackVectors.skan4High.replacingOccurrences(of: #""source-identifier": "5239""#, with: #""source-identifier": "52391""#), 422,
                "'source-identifier'"
            ),
            (
                ApplePostbackVectors.skan4High.replacingOccurrences(of: #""conversion-value": 63"#, with: #""conversion-value": 64"#), 422,
                "'conversion-value'"
            ),
            (ApplePostbackVectors.skan4High.replacingOccurrences(of: #""version": "4.0""#, with: #""version": "2.0""#), 422, "unsupported_version"),
            (ApplePostbackVectors.skan4High.replacingOccurrences(of: #""did-win": true,"#, with: ""), 422, "'did-win'"),
            (#"{"jws-string":"a.b"}"#, 422, "'jws-string'"),
        ]
        for (body, status, named) in cases {
            let path = body.contains("jws-string") ? Self.aakPath : Self.skanPath
            let answer = try Self.post(app, path, body)
            #expect(answer.status == status, "\(body): \(answer.bodyText)")
            #expect(answer.bodyText.contains(named), "\(body): \(answer.bodyText)")
        }
        // A copy for an app no project has: 404, nothing stored.
        _ = try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"ios_app_store_id": 99}"#)
        let unknown = try Self.post(app, Self.skanPath, ApplePostbackVectors.skan4High)
        #expect(unknown.status == 404, "\(unknown.bodyText)")
        #expect(unknown.bodyText.contains("525463029"))
        #expect(try Self.postbacks(app, projectID).isEmpty)
        // The id set on the project wins over the store URL's.
        #expect(
            try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"ios_app_store_id": 525463029}"#).json?["app_store_id"] as? Int
                == 525_463_029)
        #expect(try Self.post(app, Self.skanPath, ApplePostbackVectors.skan4High).status == 200)
        #expect(try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"ios_app_store_id": -3}"#).status == 422)
    }

    @Test func adAttributionKitDevelopmentCopiesAreForTestModeProjectsOnly() throws {
        let app = try TestApp()
        let live = try Self.appleExampleProject(app, storeID: ApplePostbackVectors.adAttributionKitAppID)
        let refused = try Self.post(app, Self.aakPath, ApplePostbackVectors.adAttributionKitDevelopment)
        #expect(refused.status == 422, "\(refused.bodyText)")
        #expect(refused.bodyText.contains("development_key"))
        #expect(try Self.postbacks(app, live).isEmpty)

        let test = try Self.appleExampleProject(app, testMode: true, storeID: ApplePostbackVectors.adAttributionKitAppID)
        let stored = try Self.post(app, Self.aakPath, ApplePostbackVectors.adAttributionKitDevelopment)
        #expect(stored.status == 200, "\(stored.bodyText)")
        let rows = try Self.postbacks(app, test)
        let row = try #require(rows.first)
        #expect(row["framework"] as? String == "adattributionkit")
        #expect(row["key_id"] as? String == "apple-development-identifier/1")
        #expect(row["development"] as? Bool == true)
        #expect(row["postback_id"] as? String == "85546EB7-FD39-44BC-8990-C98A4AC36A49")
        #expect(row["ad_network_id"] as? String == "development.adattributionkit")
        #expect(row["conversion_type"] as? String == "re-engagement")
        #expect(row["source_identifier"] as? String == "1234")
        #expect(row["conversion_value"] as? Int == 24)
        #expect(row["ad_interaction_type"] as? String == "click")
        #expect(row["country_code"] as? String == "US")
        #expect(row["marketplace"] as? String == "com.apple.AppStore")
        #expect(row["impression_type"] as? String == "app-impression")
        #expect(row["app_id"] as? Int == ApplePostbackVectors.adAttributionKitAppID)
        #expect(try Self.postbacks(app, live).isEmpty)
    }

    /// A JWS the test signs: refused with Apple's keys (it is not Apple's), and, with the test's
    /// key swapped in through the service's test seam, read field by field.
    @Test func adAttributionKitSignaturesAreCheckedByKid() throws {
        let app = try TestApp()
        let projectID = try Self.appleExampleProject(app)
        let pem = try #require(Certificates.newP256KeyPEM())
        let payload =
            #"{"advertised-item-identifier":525463029,"conversion-type":"download","ad-network-identifier":"example123.adattributionkit","impression-type":"web-impression","postback-sequence-index":1,"source-identifier":"3120","did-win":true,"postback-identifier":"2fa7e0e6-0000-4000-8000-000000000001","publisher-item-identifier":77}"#
        func jws(kid: String, payload: String) throws -> String {
            let input = Base64URL.encode(Array(#"{"kid":"\#(kid)","alg":"ES256"}"#.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
            let signature = try #require(ES256.sign(Array(input.utf8), privateKeyPEM: pem))
            return input + "." + Base64URL.encode(signature)
        }
        func body(_ jws: String) -> String {
            #"{"jws-string":"\#(jws)","coarse-conversion-value":"medium","ad-interaction-type":"view","country-code":"DE"}"#
        }
        let notApples = try Self.post(app, Self.aakPath, body(try jws(kid: "apple-cas-identifier/0", payload: payload)))
        #expect(notApples.status == 422 && notApples.bodyText.contains("bad_signature"), "\(notApples.bodyText)")

        app.services.app.applePostbacks.useKeys(["apple-cas-identifier/0": try #require(ES256.publicKeyDER(privateKeyPEM: pem))])
        let unknownKid = try Self.post(app, Self.aakPath, body(try jws(kid: "someone-else/0", payload: payload)))
        #expect(unknownKid.status == 422 && unknownKid.bodyText.contains("someone-else/0"), "\(unknownKid.bodyText)")
        let signed = try jws(kid: "apple-cas-identifier/0", payload: payload)
        // The same signature over a payload with one field changed does not verify.
        let parts = signed.split(separator: ".")
        let tampered = [
            String(parts[0]), Base64URL.encode(Array(payload.replacingOccurrences(of: #""did-win":true"#, with: #""did-win":false"#).utf8)),
            String(parts[2]),
        ].joined(separator: ".")
        let refused = try Self.post(app, Self.aakPath, body(tampered))
        #expect(refused.status == 422 && refused.bodyText.contains("bad_signature"), "\(refused.bodyText)")
        let stored = try Self.post(app, Self.aakPath, body(signed))
        #expect(stored.status == 200, "\(stored.bodyText)")
        let row = try #require(try Self.postbacks(app, projectID).first)
        #expect(row["key_id"] as? String == "apple-cas-identifier/0")
        #expect(row["development"] as? Bool == false)
        #expect(row["ad_network_id"] as? String == "example123.adattributionkit")
        #expect(row["postback_sequence_index"] as? Int == 1)
        #expect(row["coarse_conversion_value"] as? String == "medium")
        #expect(row["ad_interaction_type"] as? String == "view")
        #expect(row["country_code"] as? String == "DE")
        #expect(row["publisher_item_id"] as? Int == 77)
        #expect(row["conversion_type"] as? String == "download")
        // Window 2 (index 1) under the schema: "medium" is its second coarse rule.
        let coarse = (row["decoded"] as? [String: Any])?["coarse_conversion_value"] as? [String: Any]
        #expect((coarse?["explanation"] as? [String])?.first?.hasPrefix("coarse rule 2 (medium)") == true)
    }

    @Test func verifiedCopiesAreForwardedUnchangedWithRetriesAndAnnounced() throws {
        let receiver = try WebhookReceiver(answers: [(.internalServerError, [:])])
        let hooks = try WebhookReceiver()
        let app = try TestApp(allowPrivateOutbound: true)
        let projectID = try Self.appleExampleProject(app)
        let forwarding = try app.request(
            "PUT", "/admin/v1/projects/\(projectID)/skan/forwarding", json: #"{"urls":["\#(receiver.base)/postback"]}"#)
        #expect(forwarding.status == 200, "\(forwarding.bodyText)")
        #expect(forwarding.json?["urls"] as? [String] == ["\(receiver.base)/postback"])
        #expect(
            try app.request("PUT", "/admin/v1/projects/\(projectID)/skan/forwarding", json: #"{"urls":["ftp://x"]}"#).bodyText.contains("urls[0]"))
        #expect(try app.request("PUT", "/admin/v1/projects/\(projectID)/skan/forwarding", json: #"{"url":[]}"#).status == 422)
        #expect(
            try app.request(
                "POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"\#(hooks.url)","events":["skan.postback.received"]}"#
            ).status == 201)
        app.startOutbox()
        #expect(try Self.post(app, Self.skanPath, ApplePostbackVectors.skan4High).status == 200)
        // Refused copies go nowhere.
        _ = try Self.post(app, Self.skanPath, ApplePostbackVectors.skan4Low.replacingOccurrences(of: "\"39\"", with: "\"38\""))
        let forwarded = receiver.wait(for: 2)
        #expect(forwarded.count == 2, "one refused by the receiver, then delivered")
        #expect(forwarded.allSatisfy { $0.target == "/postback" })
        #expect(forwarded.allSatisfy { $0.body == Array(ApplePostbackVectors.skan4High.utf8) })
        #expect(forwarded.first?.headers["content-type"] == "application/json")
        let webhook = try #require(hooks.wait(for: 1).first?.json)
        #expect(webhook["type"] as? String == "skan.postback.received")
        #expect((webhook["data"] as? [String: Any])?["source_identifier"] as? String == "5239")
        #expect(eventually { receiver.all.count == 2 && hooks.all.count == 1 })
        // The delivery is recorded once the receiver's answer is in.
        #expect(
            try eventually {
                let deliveries =
                    try app.request("GET", "/admin/v1/projects/\(projectID)/deliveries?kind=skan_copy").json?["deliveries"] as? [[String: Any]]
                return deliveries?.count == 1 && deliveries?.first?["status"] as? String == "delivered"
            })
    }

    @Test func theReportCountsWhatWasStoredAndDecodesIt() throws {
        let app = try TestApp()
        let projectID = try Self.appleExampleProject(app)
        for body in [
            ApplePostbackVectors.skan4High, ApplePostbackVectors.skan4Low, ApplePostbackVectors.skan3Winner,
            ApplePostbackVectors.skan4High.replacingOccurrences(of: #""conversion-value": 63,"#, with: ""),
        ] {
            _ = try Self.post(app, Self.skanPath, body)
        }
        let report = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/skan/report").json)
        // The fourth body repeats the first's transaction id: three stored.
        #expect(report["postbacks"] as? Int == 3)
        #expect(report["redownloads"] as? Int == 1)
        #expect(report["currency"] as? String == "USD")
        #expect(report["our_installs"] as? Int == 0)
        let rows = try #require(report["rows"] as? [[String: Any]])
        #expect(rows.count == 3)
        let high = try #require(rows.first { $0["source"] as? String == "5239" })
        #expect(high["postbacks"] as? Int == 1)
        #expect(high["conversion_values"] as? [String: Int] == ["63": 1])
        #expect(high["events"] as? [String: Int] == ["signup": 1, "purchase": 1, "subscribe": 1])
        #expect(high["revenue_at_least"] as? Double == 200)
        let v3 = try #require(rows.first { $0["source"] as? String == "42" })
        // 20 = bucket 4 (25 ≤ revenue < 50) and the purchase bit.
        #expect(v3["events"] as? [String: Int] == ["purchase": 1])
        #expect(v3["revenue_at_least"] as? Double == 25)
        #expect(v3["revenue_below"] as? Double == 50)
        #expect(v3["redownloads"] as? Int == 1)
        let low = try #require(rows.first { $0["source"] as? String == "39" })
        #expect(low["coarse_conversion_values"] as? [String: Int] == ["high": 1])
        // The rows behind it, in pages.
        let first = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/skan/postbacks?limit=2").json)
        #expect((first["postbacks"] as? [Any])?.count == 2)
        let cursor = try #require(first["next_cursor"] as? String)
        let second = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/skan/postbacks?limit=2&cursor=\(cursor)").json)
        #expect((second["postbacks"] as? [Any])?.count == 1)
        #expect(second["next_cursor"] == nil)
        #expect(try app.request("GET", "/admin/v1/projects/\(projectID)/skan/postbacks?cursor=zzz").status == 422)
        // A period that ends before they arrived holds none.
        let empty = try app.request("GET", "/admin/v1/projects/\(projectID)/skan/report?until=2020-01-01T00:00:00Z").json
        #expect(empty?["postbacks"] as? Int == 0)
    }

    @Test func theCommandLinePrintsTheSameReport() throws {
        let app = try TestApp()
        let projectID = try Self.appleExampleProject(app)
        for body in [ApplePostbackVectors.skan4High, ApplePostbackVectors.skan4Low, ApplePostbackVectors.skan3Winner] {
            #expect(try Self.post(app, Self.skanPath, body).status == 200)
        }
        let json = try run(["stats", "--project", projectID, "--skan", "--json"] + app.databaseArguments)
        #expect(json.status == 0, "\(json.stderr)")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let api = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/skan/report").json)
        #expect(body["postbacks"] as? Int == 3)
        #expect((body["rows"] as? [[String: Any]])?.count == (api["rows"] as? [[String: Any]])?.count)
        let table = try run(["stats", "--project", projectID, "--skan"] + app.databaseArguments)
        #expect(table.status == 0, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(
            lines.contains(["skadnetwork", "com.example", "5239", "0", "1", "0", "63x1", "purchase", "1,", "signup", "1,", "subscribe", "1"]),
            "\(table.stdout)")
        #expect(table.stdout.contains("Apple's postbacks: 3 (1 redownloads)"))
    }
}
