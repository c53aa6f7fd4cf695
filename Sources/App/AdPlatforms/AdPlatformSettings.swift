public import Attribution

/// Where each ad platform is reached (config `ad_platforms.*_url`, `ATTRIBUTIOND_*_URL`): the
/// platforms' own hosts unless tests point them at a fake on loopback. The paths under them are
/// the platforms' own.
public struct AdPlatformSettings: Sendable {
    public static let googleURL = "https://www.googleadservices.com/"
    public static let metaURL = "https://graph.facebook.com/"
    public static let tiktokURL = "https://business-api.tiktok.com/"
    public static let snapURL = "https://tr.snapchat.com/"
    /// The Google Ads API (spend reports) and Google's OAuth token endpoint (its refresh tokens).
    public static let googleAdsAPIURL = "https://googleads.googleapis.com/"
    public static let googleOAuthURL = "https://oauth2.googleapis.com/token"
    public static let googleAdsAPIVersion = "v18"
    /// The Graph API version Meta's Conversions API is called with.
    public static let metaGraphVersion = "v21.0"

    public var googleURL: String
    public var metaURL: String
    public var tiktokURL: String
    public var snapURL: String
    public var googleAdsAPIURL: String
    public var googleOAuthURL: String

    public init(
        googleURL: String = AdPlatformSettings.googleURL, metaURL: String = AdPlatformSettings.metaURL,
        tiktokURL: String = AdPlatformSettings.tiktokURL, snapURL: String = AdPlatformSettings.snapURL,
        googleAdsAPIURL: String = AdPlatformSettings.googleAdsAPIURL, googleOAuthURL: String = AdPlatformSettings.googleOAuthURL
    ) {
        self.googleAdsAPIURL = AppleAdsSettings.directory(googleAdsAPIURL)
        self.googleOAuthURL = googleOAuthURL
        self.googleURL = AppleAdsSettings.directory(googleURL)
        self.metaURL = AppleAdsSettings.directory(metaURL)
        self.tiktokURL = AppleAdsSettings.directory(tiktokURL)
        self.snapURL = AppleAdsSettings.directory(snapURL)
    }

    public func baseURL(of platform: AdPlatform) -> String {
        switch platform {
        case .google: googleURL
        case .meta: metaURL
        case .tiktok: tiktokURL
        case .snap: snapURL
        }
    }
}
