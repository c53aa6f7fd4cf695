import Attribution
import HTTP

/// LinkForty's DeepLinkData, as the strictest SDK decoder (iOS) accepts it: `shortCode` always,
/// the rest only when known, string-valued maps, times without fractional seconds, and both
/// spellings where SDKs differ (`webUrl`/`webFallbackUrl`, `customParameters`/`deepLinkParameters`).
struct DeepLinkData: Encodable {
    struct UTMParameters: Encodable {
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
        iosUrl = target.iosURL
        androidUrl = target.androidURL
        webUrl = target.webURL
        webFallbackUrl = target.webURL
        deepLinkPath = target.deepLinkPath
        appScheme = target.appScheme
        utmParameters =
            utm.isEmpty
            ? nil
            : UTMParameters(source: utm.source, medium: utm.medium, campaign: utm.campaign, term: utm.term, content: utm.content)
        let parameters = target.deepLinkParameters
        customParameters = parameters.isEmpty ? nil : parameters
        deepLinkParameters = parameters.isEmpty ? nil : parameters
        self.clickedAt = clickedAt?.iso8601
        clickId = clickID
    }
}
