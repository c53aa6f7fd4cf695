/// A network whose reporting API the server pulls spend from (docs/cost.md, "Pulled from the
/// networks"); the raw values are the admin routes' path segments.
public enum CostNetwork: String, Sendable, CaseIterable {
    case googleAds = "google-ads"
    case meta
    case tiktok
    /// The project's Apple Ads credentials (`PUT …/apple-ads`) read its campaign reports.
    case appleAds = "apple-ads"

    /// The name its cost rows carry (`NetworkName`).
    public var networkName: String {
        switch self {
        case .googleAds: NetworkName.google
        case .meta: NetworkName.meta
        case .tiktok: NetworkName.tiktok
        case .appleAds: NetworkName.appleAds
        }
    }

    /// What a connection names at the network, and its credentials.
    public var settingKeys: [String] {
        switch self {
        case .googleAds: ["customer_id", "login_customer_id"]
        case .meta: ["ad_account_id"]
        case .tiktok: ["advertiser_id", "currency"]
        case .appleAds: []
        }
    }
    public var requiredSettingKeys: [String] {
        switch self {
        case .googleAds: ["customer_id"]
        case .meta: ["ad_account_id"]
        case .tiktok: ["advertiser_id", "currency"]
        case .appleAds: []
        }
    }
    public var secretKeys: [String] {
        switch self {
        case .googleAds: ["developer_token", "client_id", "client_secret", "refresh_token"]
        case .meta, .tiktok: ["access_token"]
        case .appleAds: []
        }
    }
}
