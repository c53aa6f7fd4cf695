import Attribution
import HTTP
import JSON

/// A link as WarpLink's SDKs decode it (the resolve shape): `id`, `slug`, `domain`,
/// `destination_url` and `created_at` always (iOS 0.1.0 fails the whole call without any of
/// them), the rest only when known — never `null` (Android 0.1.x reads null as the text "null").
enum WarpLinkLink {
    /// - Parameters:
    ///   - parameters: the link's deep-link parameters, with those of the opened URL merged in.
    ///   - platform: whose store URL stands in for a link without a web URL.
    static func fields(
        _ target: LinkTarget, parameters: [String: String], domain: String, base: String,
        platform: UserAgentInfo.Platform?
    ) -> [String: JSONValue] {
        var merged = target
        merged.link.deepLinkParameters = target.deepLinkParameters.merging(parameters) { _, opened in opened }
        let shortURL = LinkURLs.url(base: base, shortCode: target.link.shortCode, templateSlug: target.templateSlug)
        var fields: [String: JSONValue] = [
            "id": .string(target.link.id),
            "slug": .string(target.link.shortCode),
            "domain": .string(domain),
            "destination_url": .string(destination(target, platform: platform) ?? shortURL),
            "custom_params": .object(merged.link.deepLinkParameters.mapValues(JSONValue.string)),
            "created_at": .string(isoMilliseconds(target.link.createdAt)),
        ]
        if let appLink = appLink(merged, base: base) {
            fields["ios_url"] = .string(appLink)
            fields["android_url"] = .string(appLink)
        }
        if let store = target.iosURL { fields["ios_fallback_url"] = .string(store) }
        return fields
    }

    /// The web URL, else the platform's store URL, else any destination the link has.
    static func destination(_ target: LinkTarget, platform: UserAgentInfo.Platform?) -> String? {
        switch platform {
        case .ios?: target.webURL ?? target.iosURL ?? target.androidURL
        case .android?: target.webURL ?? target.androidURL ?? target.iosURL
        default: target.webURL ?? target.iosURL ?? target.androidURL
        }
    }

    /// Where in the app the link leads: its `scheme://path?params`, else its universal link when
    /// it names a path; nil when it leads nowhere in particular.
    static func appLink(_ target: LinkTarget, base: String) -> String? {
        if let appURL = target.appURL { return appURL }
        guard let path = target.deepLinkPath, !path.isEmpty, path != "/" else { return nil }
        return target.universalLink(base: base)
    }

    /// `2026-01-01T00:00:00.000Z`, the form WarpLink's server writes.
    static func isoMilliseconds(_ time: Timestamp) -> String {
        var text = time.iso8601
        let milliseconds = ((time.milliseconds % 1000) + 1000) % 1000
        let fraction = String(milliseconds)
        text.insert(contentsOf: "." + String(repeating: "0", count: 3 - fraction.count) + fraction, at: text.index(before: text.endIndex))
        return text
    }

    /// The platform a WarpLink SDK names in its `User-Agent` (`WarpLink-iOS/0.1.0`).
    static func platform(userAgent: String?) -> UserAgentInfo.Platform? {
        guard let agent = userAgent?.lowercased() else { return nil }
        if agent.hasPrefix("warplink-ios/") { return .ios }
        if agent.hasPrefix("warplink-android/") { return .android }
        let parsed = UserAgentParser.parse(userAgent).platform
        return parsed == .bot ? nil : parsed
    }
}
