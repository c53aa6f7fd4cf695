/// An ad platform's word that its ad drove an install: Google's answer to a first_open upload
/// (`attributed` with its ad event), or Meta's install referrer decrypted. Claims are kept beside
/// our own match and may take the install's attribution (docs/ad-platforms/claims.md).
public struct AdPlatformClaim: Sendable, Equatable {
    public enum Source: String, Sendable {
        case googleAds = "google_ads"
        case metaInstallReferrer = "meta_install_referrer"

        public var platform: AdPlatform {
            switch self {
            case .googleAds: .google
            case .metaInstallReferrer: .meta
            }
        }
    }

    public var source: Source
    public var campaignID: String?
    public var campaignName: String?
    public var adGroupID: String?
    public var adGroupName: String?
    public var adID: String?
    /// Click- or view-through, as the platform says.
    public var interaction: String?
    /// When the ad was engaged with, when the platform says.
    public var engagedAt: Timestamp?
    /// The platform's id of its ad event (Google's `ad_event_id`, asked for in the cross-network call).
    public var adEventID: String?

    public init(
        source: Source, campaignID: String? = nil, campaignName: String? = nil, adGroupID: String? = nil, adGroupName: String? = nil,
        adID: String? = nil, interaction: String? = nil, engagedAt: Timestamp? = nil, adEventID: String? = nil
    ) {
        self.source = source
        self.campaignID = campaignID
        self.campaignName = campaignName
        self.adGroupID = adGroupID
        self.adGroupName = adGroupName
        self.adID = adID
        self.interaction = interaction
        self.engagedAt = engagedAt
        self.adEventID = adEventID
    }

    /// The matched factor an install won by this claim carries.
    public var factor: String { source.rawValue }
}

/// When a platform's claim takes an install from our own match. A claim is the platform's own
/// record of an ad engagement, so it wins over an organic install and a probabilistic match. Over
/// a deterministic click of ours (the user tapped our link) a Google claim wins only when its
/// engagement came after our click (the last touch wins, as with Apple Ads); Meta's referrer has
/// no engagement time and does not take a deterministic match. A claim older than the platform's
/// window (30 days for a click, 1 day for a view) does not win.
public enum AdPlatformPrecedence {
    public static let clickWindowSeconds: Int64 = 30 * 86_400
    public static let viewWindowSeconds: Int64 = 86_400

    public static func claimWins(_ claim: AdPlatformClaim, over current: MatchResult, installedAt: Timestamp) -> Bool {
        if let engagedAt = claim.engagedAt {
            let window = claim.interaction?.lowercased().contains("view") == true ? viewWindowSeconds : clickWindowSeconds
            let age = installedAt.milliseconds - engagedAt.milliseconds
            guard age >= -60_000, age <= window * 1000 else { return false }
        }
        guard current.attributed, current.matchType == .deterministic else { return true }
        // Another platform's claim (or Apple Ads) already holds it: the first claim keeps it.
        guard current.clickID != nil, let engagedAt = claim.engagedAt, let clickedAt = current.clickedAt else { return false }
        return engagedAt > clickedAt
    }
}
