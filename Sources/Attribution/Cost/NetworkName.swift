import Foundation

/// One name per ad network, so that cost a network reports and installs our links, Apple Ads and
/// the ad platforms' claims credit meet: lower case, and the spellings UTM sources commonly use
/// for the same network folded into one (`facebook` and `instagram` are `meta`).
public enum NetworkName {
    public static let appleAds = "apple_ads"
    public static let google = "google"
    public static let meta = "meta"
    public static let tiktok = "tiktok"
    public static let snap = "snap"

    private static let aliases: [String: String] = [
        "apple": appleAds, "apple_search_ads": appleAds, "applesearchads": appleAds, "asa": appleAds, "search_ads": appleAds,
        "google_ads": google, "googleads": google, "adwords": google, "google_adwords": google,
        "facebook": meta, "fb": meta, "instagram": meta, "ig": meta, "facebook_ads": meta, "meta_ads": meta,
        "tiktok_ads": tiktok, "tiktokads": tiktok,
        "snapchat": snap, "snapchat_ads": snap,
    ]

    /// The network an ad platform's claim is of.
    public static func of(_ source: AdPlatformClaim.Source) -> String {
        switch source {
        case .googleAds: return google
        case .metaInstallReferrer: return meta
        }
    }

    /// `source` as one name: trimmed, lower case, an alias folded; '' for none.
    public static func normalized(_ source: String) -> String {
        let lower = source.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: " ", with: "_")
        return aliases[lower] ?? lower
    }
}
