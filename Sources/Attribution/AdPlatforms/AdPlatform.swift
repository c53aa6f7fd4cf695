/// The ad platforms a project can send its installs and events to (docs/ad-platforms/).
public enum AdPlatform: String, Sendable, CaseIterable, Codable {
    case google, meta, tiktok, snap

    /// How the platform is named in pages and errors.
    public var displayName: String {
        switch self {
        case .google: "Google Ads"
        case .meta: "Meta"
        case .tiktok: "TikTok"
        case .snap: "Snap"
        }
    }

    /// The outbox job kind of its deliveries.
    public static let jobKind = "ad_platform"
}
