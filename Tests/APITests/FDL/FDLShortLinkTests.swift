import Foundation
import TestSupport
import Testing

/// `POST /v1/shortLinks?key=…` in Google's shapes: both request forms, both suffix options, the
/// answers and errors a backend written for FDL decodes, and short links that work when tapped.
@Suite struct FDLShortLinkTests {
    static func app() throws -> (TestApp, key: String) {
        let app = try TestApp()
        let project = try #require(
            try app.createProject(
                "Shop", extra: #","ios_bundle_id":"com.example.shop","android_package":"com.example.shop","web_url":"https://shop.example/""#)["id"]
                as? String)
        #expect(try app.request("POST", "/admin/v1/projects/\(project)/domains", json: #"{"domain":"shop.page.link"}"#).status == 201)
        let key = try #require(try app.request("POST", "/admin/v1/projects/\(project)/api-keys").json?["key"] as? String)
        _ = try app.createProject("Other")
        return (app, key)
    }

    func post(_ app: TestApp, key: String, _ json: String) throws -> TestResponse {
        try app.request("POST", "/v1/shortLinks?key=\(key)", json: json, adminKey: nil)
    }

    @Test func aLongDynamicLinkBecomesAnUnguessableShortLink() throws {
        let (app, key) = try Self.app()
        let made = try post(
            app, key: key,
            #"{"longDynamicLink": "https://shop.page.link/?link=https://shop.example/p/7&apn=com.example.shop&ofl=https://shop.example/web&utm_source=share&foo=bar"}"#
        )
        #expect(made.status == 200, "\(made.bodyText)")
        let short = try #require(made.json?["shortLink"] as? String)
        #expect(short.hasPrefix("https://shop.page.link/") && short.count == "https://shop.page.link/".count + 17, "\(short)")
        #expect(made.json?["previewLink"] as? String == short + "?d=1")
        let warnings = try #require(made.json?["warning"] as? [[String: String]])
        #expect(warnings.first?["warningCode"] == "UNRECOGNIZED_PARAM" && warnings.first?["warningMessage"]?.contains("foo") == true)
        // Tapped on a desktop, it goes to ofl with the link's UTM.
        let code = String(short.dropFirst("https://shop.page.link/".count))
        let tap = try app.request(
            "GET", "/\(code)", adminKey: nil, headers: ["User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0"], host: "shop.page.link")
        #expect(tap.status == 302 && tap.header("Location") == "https://shop.example/web?utm_source=share", "\(tap.header("Location") ?? "")")
    }

    @Test func dynamicLinkInfoWithAShortSuffix() throws {
        let (app, key) = try Self.app()
        let made = try post(
            app, key: key,
            #"""
            {"dynamicLinkInfo": {"domainUriPrefix": "https://shop.page.link", "link": "https://shop.example/p/9",
              "androidInfo": {"androidPackageName": "com.example.shop", "androidFallbackLink": "https://shop.example/android"},
              "iosInfo": {"iosBundleId": "com.example.shop", "iosAppStoreId": "123456"},
              "navigationInfo": {"enableForcedRedirect": true},
              "analyticsInfo": {"googlePlayAnalytics": {"utmSource": "app", "utmCampaign": "invite"}, "itunesConnectAnalytics": {"at": "11l", "ct": "invite"}},
              "socialMetaTagInfo": {"socialTitle": "Shoe 9", "socialDescription": "A shoe", "socialImageLink": "https://shop.example/9.png"}},
             "suffix": {"option": "SHORT"}}
            """#)
        #expect(made.status == 200, "\(made.bodyText)")
        let short = try #require(made.json?["shortLink"] as? String)
        let code = String(short.dropFirst("https://shop.page.link/".count))
        #expect((4...7).contains(code.count), "\(short)")
        let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148"
        let tap = try app.request("GET", "/\(code)", adminKey: nil, headers: ["User-Agent": iPhone], host: "shop.page.link")
        #expect(
            tap.status == 302 && tap.header("Location")?.hasPrefix("https://apps.apple.com/app/id123456?at=11l&ct=invite") == true,
            "\(tap.header("Location") ?? "")")
        let preview = try app.request("GET", "/\(code)", adminKey: nil, headers: ["User-Agent": "facebookexternalhit/1.1"], host: "shop.page.link")
        #expect(preview.bodyText.contains(#"og:title" content="Shoe 9""#) && preview.bodyText.contains("https://shop.example/9.png"))
    }

    @Test(arguments: [
        (#"{"longDynamicLink": "https://other.page.link/?link=https://shop.example/"}"#, "does not own Dynamic Links domain"),
        (#"{"dynamicLinkInfo": {"domainUriPrefix": "https://shop.page.link"}}"#, "link is required"),
        (#"{"dynamicLinkInfo": {"domainUriPrefix": "https://shop.page.link", "link": "javascript:alert(1)"}}"#, "link:"),
        (#"{"longDynamicLink": "https://shop.page.link/?link=https://shop.example/", "suffix": {"option": "LONG"}}"#, "suffix.option"),
        (#"{"dynamicLinkInfo": {"domainUriPrefix": "https://shop.page.link", "link": "https://shop.example/", "iosInfo": {"bogus": 1}}}"#, "bogus"),
        (#"{}"#, "longDynamicLink or dynamicLinkInfo is required"),
        (#"not json"#, "Invalid JSON payload"),
    ])
    func mistakesAre400sInGooglesShape(_ body: String, _ says: String) throws {
        let (app, key) = try Self.app()
        let refused = try post(app, key: key, body)
        #expect(refused.status == 400, "\(refused.bodyText)")
        let error = try #require(refused.json?["error"] as? [String: Any])
        #expect(error["code"] as? Int == 400 && error["status"] as? String == "INVALID_ARGUMENT")
        #expect((error["message"] as? String)?.contains(says) == true, "\(error)")
        #expect(try app.count("SELECT count(*) FROM links") == 0)
    }

    @Test func aWrongKeyIsRefused() throws {
        let (app, _) = try Self.app()
        let refused = try post(app, key: "ak_wrong", #"{"longDynamicLink": "https://shop.page.link/?link=https://shop.example/"}"#)
        #expect(refused.status == 400 && refused.bodyText.contains("API key not valid"))
    }
}
