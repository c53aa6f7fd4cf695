import Attribution
import Foundation
import StoreContracts
import TestSupport
import Testing

@testable import API
@_spi(StoreInternals) @testable import Store

/// DeepLinkData as the LinkForty iOS SDK decodes it: `shortCode` required, optional strings,
/// UTM as an object, string maps, and `clickedAt` through a default ISO8601DateFormatter, which
/// yields nil for fractional seconds (so we require it to parse).
private struct StrictDeepLinkData: Decodable {
    struct UTMParameters: Decodable { let source, medium, campaign, term, content: String? }
    let shortCode: String
    let iosURL: String?
    let androidURL: String?
    let webURL: String?
    let utmParameters: UTMParameters?
    let customParameters: [String: String]?
    let deepLinkPath: String?
    let appScheme: String?
    let clickedAt: Date?
    let linkId: String?

    enum CodingKeys: String, CodingKey {
        case shortCode
        case iosURL = "iosUrl"
        case androidURL = "androidUrl"
        case webURL = "webUrl"
        case utmParameters, customParameters,
            deepLinkPath, appScheme, clickedAt, linkId
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        shortCode = try c.decode(String.self, forKey: .shortCode)
        iosURL = try c.decodeIfPresent(String.self, forKey: .iosURL)
        androidURL = try c.decodeIfPresent(String.self, forKey: .androidURL)
        webURL = try c.decodeIfPresent(String.self, forKey: .webURL)
        utmParameters = try c.decodeIfPresent(UTMParameters.self, forKey: .utmParameters)
        customParameters = try c.decodeIfPresent([String: String].self, forKey: .customParameters)
        deepLinkPath = try c.decodeIfPresent(String.self, forKey: .deepLinkPath)
        appScheme = try c.decodeIfPresent(String.self, forKey: .appScheme)
        linkId = try c.decodeIfPresent(String.self, forKey: .linkId)
        clickedAt = try c.decodeIfPresent(String.self, forKey: .clickedAt).flatMap { ISO8601DateFormatter().date(from: $0) }
    }
}

/// The SDK's CreateLinkResult and the dashboard response it reads from POST /api/links.
private struct CreateLinkResult: Decodable {
    let url: String
    let shortCode: String
    let linkId: String
}
private struct DashboardCreateLinkResponse: Decodable {
    let id: String
    let shortCode: String
    enum CodingKeys: String, CodingKey {
        case id
        case shortCode = "short_code"
    }
}

@Suite struct ResolveTests {
    @Test func resolveRecordsAClickAndAnswersDeepLinkDataTheSDKDecodes() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink(
            #"{"short_code":"summer","app_scheme":"shop","deep_link_path":"/product/42","deep_link_parameters":{"id":"42","n":"7"},"utm":{"source":"mail","campaign":"summer"}}"#
        )
        // Without a key only a project that takes SDK calls without a credential answers (LinkForty's own contract).
        #expect(try app.request("GET", "/api/sdk/v1/resolve/summer", adminKey: nil).status == 401)
        #expect(try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"sdk_auth":"open"}"#).status == 200)
        let response = try app.request(
            "GET", "/api/sdk/v1/resolve/summer?fp_tz=Europe%2FParis&fp_lang=fr_FR&fp_sw=1170&fp_sh=2532&fp_platform=iOS&fp_pv=17.4.1&utm_medium=push",
            adminKey: nil, headers: ["User-Agent": "Shop/2.1 CFNetwork/1490.0.4 Darwin/23.2.0", "Content-Type": "application/json"])
        #expect(response.status == 200)
        let data = try JSONDecoder().decode(StrictDeepLinkData.self, from: Data(response.body))
        #expect(data.shortCode == "summer")
        #expect(data.iosURL == "https://apps.apple.com/app/id123")
        #expect(data.appScheme == "shop" && data.deepLinkPath == "/product/42")
        #expect(data.customParameters == ["id": "42", "n": "7"])
        #expect(data.utmParameters?.source == "mail" && data.utmParameters?.medium == "push")
        #expect(data.clickedAt != nil)
        let json = try #require(response.json)
        #expect(json["webFallbackUrl"] as? String == "https://shop.example.com/")
        #expect((json["deepLinkParameters"] as? [String: String]) == ["id": "42", "n": "7"])
        try app.settle()
        let click = try #require(try app.store.clicks.find(clickID: json["clickId"] as! String))
        #expect(click.source == .resolve)
        #expect(click.timezone == "Europe/Paris" && click.languages == ["fr_FR"])
        #expect(click.screenWidth == 1170 && click.pixelRatio == 1)  // native pixels
        #expect(click.platform == .ios && click.osVersion == "17.4.1")
    }

    @Test func unknownInactiveOrWrongSlugIs404JSON() throws {
        let app = try TestApp()
        let (projectID, key, _) = try app.projectWithLink()
        let unknown = try app.request("GET", "/api/sdk/v1/resolve/nope123", adminKey: key)
        #expect(unknown.status == 404)
        #expect(unknown.json?["error"] as? String == "not_found")
        #expect(try app.request("GET", "/api/sdk/v1/resolve/promo/summer", adminKey: key).status == 404)
        _ = try app.request("POST", "/admin/v1/projects/\(projectID)/links", json: #"{"short_code":"off","active":false}"#)
        #expect(try app.request("GET", "/api/sdk/v1/resolve/off", adminKey: key).status == 404)
    }
}

@Suite struct LinkFortyLinkTests {
    @Test func sdkLinkCreationNeedsAKeyAndDeduplicates() throws {
        let app = try TestApp()
        let (projectID, key, _) = try app.projectWithLink()
        _ = try app.request(
            "POST", "/admin/v1/projects/\(projectID)/templates", json: #"{"slug":"share","ios_url":"https://apps.apple.com/app/id9"}"#)
        let body = #"{"deepLinkParameters":{"route":"VIDEO","id":"v1"},"title":"Watch","utmParameters":{"source":"share"},"externalUserId":"user-7"}"#
        #expect(try app.request("POST", "/api/sdk/v1/links", json: body, adminKey: nil).status == 401)
        #expect(try app.request("POST", "/api/sdk/v1/links", json: body, adminKey: "ak_wrong").status == 401)
        let created = try app.request("POST", "/api/sdk/v1/links", json: body, adminKey: key)
        #expect(created.status == 201)
        let result = try JSONDecoder().decode(CreateLinkResult.self, from: Data(created.body))
        #expect(result.url == "http://test/share/\(result.shortCode)")  // the most recent template's slug
        #expect(created.json?["deduplicated"] as? Bool == false)
        let again = try app.request("POST", "/api/sdk/v1/links", json: body, adminKey: key)
        #expect(again.json?["deduplicated"] as? Bool == true)
        #expect(again.json?["linkId"] as? String == result.linkId)
        let other = try app.request("POST", "/api/sdk/v1/links", json: body.replacingOccurrences(of: "v1", with: "v2"), adminKey: key)
        #expect(other.json?["linkId"] as? String != result.linkId)
        // The new link works as a click target.
        #expect(try app.request("GET", "/share/\(result.shortCode)", adminKey: nil, headers: ["User-Agent": safariIPhone]).status == 200)
    }

    @Test func customCodeConflictsAre409AndBadInputIs4xx() throws {
        let app = try TestApp()
        let (_, key, _) = try app.projectWithLink()
        #expect(try app.request("POST", "/api/sdk/v1/links", json: #"{"customCode":"summer"}"#, adminKey: key).status == 409)
        #expect(try app.request("POST", "/api/sdk/v1/links", json: #"{"customCode":"a b"}"#, adminKey: key).status == 422)
        #expect(try app.request("POST", "/api/sdk/v1/links", json: #"{"templateId":"nope"}"#, adminKey: key).status == 422)
        #expect(try app.request("POST", "/api/sdk/v1/links", json: #"{"title":5}"#, adminKey: key).status == 400)
        #expect(try app.request("POST", "/api/sdk/v1/links", json: #"{"customCode":"mine","someFutureKey":1}"#, adminKey: key).status == 201)
    }

    @Test func dashboardLinksNeedATemplateAndSupportCRUD() throws {
        let app = try TestApp()
        let (projectID, key, _) = try app.projectWithLink()
        let template = try #require(
            try app.request("POST", "/admin/v1/projects/\(projectID)/templates", json: #"{"slug":"promo"}"#).json?["id"] as? String)
        #expect(try app.request("POST", "/api/links", json: #"{"title":"x"}"#, adminKey: key).status == 422)
        let created = try app.request(
            "POST", "/api/links",
            json:
                #"{"templateId":"\#(template)","customCode":"dash1","iosAppStoreUrl":"https://apps.apple.com/app/id5","attributionWindowHours":24}"#,
            adminKey: key)
        #expect(created.status == 201)
        let dashboard = try JSONDecoder().decode(DashboardCreateLinkResponse.self, from: Data(created.body))
        #expect(dashboard.shortCode == "dash1")
        #expect(try app.request("GET", "/api/links", adminKey: key).bodyText.contains("dash1"))
        let updated = try app.request("PUT", "/api/links/\(dashboard.id)", json: #"{"customCode":"dash2","title":"New"}"#, adminKey: key)
        #expect(updated.status == 200)
        #expect(updated.json?["shortCode"] as? String == "dash2")
        // The cache follows: the old code is gone, the new one answers.
        #expect(try app.request("GET", "/promo/dash1", adminKey: nil, headers: ["User-Agent": safariIPhone]).status == 404)
        #expect(try app.request("GET", "/promo/dash2", adminKey: nil, headers: ["User-Agent": safariIPhone]).status == 200)
        #expect(try app.request("DELETE", "/api/links/\(dashboard.id)", adminKey: key).status == 204)
        #expect(try app.request("GET", "/promo/dash2", adminKey: nil, headers: ["User-Agent": safariIPhone]).status == 404)
        #expect(try app.request("GET", "/api/links/\(dashboard.id)", adminKey: key).status == 404)
        // Another project's key sees none of it.
        let other = try app.createProject("Other")["api_key"] as! String
        #expect(try app.request("GET", "/api/links", adminKey: other).bodyText == "[]")
        // A revoked key stops working at once, although keys are cached.
        #expect(try app.request("GET", "/api/links", adminKey: key).status == 200)
        let keyID = try #require(
            (try app.request("GET", "/admin/v1/projects/\(projectID)/api-keys").body).isEmpty == false
                ? (try JSONSerialization.jsonObject(with: Data(app.request("GET", "/admin/v1/projects/\(projectID)/api-keys").body))
                    as? [[String: Any]])?
                    .first(where: { (key as String).hasPrefix($0["prefix"] as! String) })?["id"] as? String : nil)
        #expect(try app.request("DELETE", "/admin/v1/projects/\(projectID)/api-keys/\(keyID)").status == 204)
        #expect(try app.request("GET", "/api/links", adminKey: key).status == 401)
    }
}

@Suite struct WellKnownTests {
    @Test func appleAndAndroidFilesComeFromProjectSettings() throws {
        let app = try TestApp()
        #expect(try app.request("GET", "/.well-known/apple-app-site-association", adminKey: nil).status == 404)
        _ = try app.projectWithLink()
        let aasa = try app.request("GET", "/.well-known/apple-app-site-association", adminKey: nil)
        #expect(aasa.status == 200 && aasa.header("Content-Type") == "application/json")
        let details = ((aasa.json?["applinks"] as? [String: Any])?["details"] as? [[String: Any]])?.first
        #expect(details?["appIDs"] as? [String] == ["ABCDE12345.com.example.shop"])
        let components = try #require(details?["components"] as? [[String: Any]])
        #expect(components.contains { $0["/"] as? String == "/api/*" && $0["exclude"] as? Bool == true })
        #expect(try app.request("GET", "/.well-known/assetlinks.json", adminKey: nil).status == 404)
        let fingerprint = (0..<32).map { _ in "AB" }.joined(separator: ":")
        _ = try app.createProject("Droid", extra: #","android_package":"com.example.droid","android_sha256":["\#(fingerprint)"]"#)
        let assetLinks = try app.request("GET", "/.well-known/assetlinks.json", adminKey: nil)
        let statements = try #require(try JSONSerialization.jsonObject(with: Data(assetLinks.body)) as? [[String: Any]])
        let target = try #require(statements.first?["target"] as? [String: Any])
        #expect(statements.first?["relation"] as? [String] == ["delegate_permission/common.handle_all_urls"])
        #expect(target["package_name"] as? String == "com.example.droid")
        #expect(target["sha256_cert_fingerprints"] as? [String] == [fingerprint])
    }
}
