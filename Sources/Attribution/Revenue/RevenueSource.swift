/// Where store-verified revenue comes from (docs/revenue.md): Apple's App Store Server
/// Notifications V2, Google Play's Real-time Developer Notifications, RevenueCat's webhooks. The
/// raw values are the path segments of their receivers and admin routes.
public enum RevenueSource: String, Sendable, CaseIterable, Codable {
    case appStore = "app-store"
    case googlePlay = "google-play"
    case revenueCat = "revenuecat"

    /// The name a verified payment row keeps (`payments.verified_by`).
    public var storedName: String {
        switch self {
        case .appStore: "app_store"
        case .googlePlay: "google_play"
        case .revenueCat: "revenuecat"
        }
    }
}
