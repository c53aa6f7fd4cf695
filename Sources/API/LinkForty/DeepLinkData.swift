import Attribution
import Foundation
import HTTP

/// LinkForty's DeepLinkData, as the strictest SDK decoder (iOS) accepts it: `shortCode` always,
/// the rest only when known, string-valued maps, times without fractional seconds, and both
/// spellings where SDKs differ (`webUrl`/`webFallbackUrl`, `customParameters`/`deepLinkParameters`).
struct DeepLinkData {
    struct UTMParameters {
        let source: String?
        let medium: String?
        let campaign: String?
        let term: String?
        let content: String?
    }

    let shortCode: String
    let linkId: String
    let iosUrl: String?
    let androidUrl: String?
    let webUrl: String?
    let webFallbackUrl: String?
    let deepLinkPath: String?
    let appScheme: String?
    let utmParameters: UTMParameters?
    let customParameters: [String: String]?
    let deepLinkParameters: [String: String]?
    let clickedAt: String?
    let clickId: String?

    init(target: LinkTarget, utm: UTM, clickID: String?, clickedAt: Timestamp?) {
        shortCode = target.link.shortCode
        linkId = target.link.id
        webUrl = target.webURL
        webFallbackUrl = target.webURL
        utmParameters =
            utm.isEmpty
            ? nil
            : UTMParameters(source: utm.source, medium: utm.medium, campaign: utm.campaign, term: utm.term, content: utm.content)
        var parameters = target.deepLinkParameters
        if let fdl = target.link.fdl, let deepLink = URLComponents(string: fdl.link) {
            // A Firebase link's deep link is `link`: where a LinkForty app routes (its iOS and
            // Android URLs, and the path and query it reads), not only the web fallback.
            iosUrl = fdl.link
            androidUrl = fdl.link
            deepLinkPath = deepLink.path.isEmpty ? "/" : deepLink.path
            appScheme = fdl.iosCustomScheme ?? target.appScheme
            for item in deepLink.queryItems ?? [] where parameters[item.name] == nil { parameters[item.name] = item.value ?? "" }
        } else {
            iosUrl = target.iosURL
            androidUrl = target.androidURL
            deepLinkPath = target.deepLinkPath
            appScheme = target.appScheme
        }
        customParameters = parameters.isEmpty ? nil : parameters
        deepLinkParameters = parameters.isEmpty ? nil : parameters
        self.clickedAt = clickedAt?.iso8601
        clickId = clickID
    }

    /// Written by hand in sorted key order (the bytes `JSONEncoder` with sorted keys gave, at a
    /// tenth of its cost: it was 10% of an install answer's CPU).
    func append(to bytes: inout [UInt8]) {
        var object = JSONObjectWriter(into: &bytes)
        object.string("androidUrl", androidUrl, to: &bytes)
        object.string("appScheme", appScheme, to: &bytes)
        object.string("clickId", clickId, to: &bytes)
        object.string("clickedAt", clickedAt, to: &bytes)
        object.strings("customParameters", customParameters, to: &bytes)
        object.strings("deepLinkParameters", deepLinkParameters, to: &bytes)
        object.string("deepLinkPath", deepLinkPath, to: &bytes)
        object.string("iosUrl", iosUrl, to: &bytes)
        object.string("linkId", linkId, to: &bytes)
        object.string("shortCode", shortCode, to: &bytes)
        if let utmParameters {
            object.key("utmParameters", to: &bytes)
            var utm = JSONObjectWriter(into: &bytes)
            utm.string("campaign", utmParameters.campaign, to: &bytes)
            utm.string("content", utmParameters.content, to: &bytes)
            utm.string("medium", utmParameters.medium, to: &bytes)
            utm.string("source", utmParameters.source, to: &bytes)
            utm.string("term", utmParameters.term, to: &bytes)
            utm.close(&bytes)
        }
        object.string("webFallbackUrl", webFallbackUrl, to: &bytes)
        object.string("webUrl", webUrl, to: &bytes)
        object.close(&bytes)
    }

    var body: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512)
        append(to: &bytes)
        return bytes
    }
}
