/// What an install brought for the ad platforms besides its device ids: Google's on-device
/// measurement value, the Play referrer's Google click ids, Meta's encrypted install referrer and
/// the AEM campaign ids of a Meta deep link. Kept with the install (Google asks for the referrer's
/// gclid with every event for 180 days).
public struct AdSignals: Sendable, Equatable, Codable {
    /// `GoogleAdsOnDeviceConversion`'s opaque string, sent to Google as `odm_info` on first_open.
    public var odmInfo: String?
    /// The Play Install Referrer's `gclid`, sent as `market_referrer_gclid`.
    public var referrerGclid: String?
    public var referrerGbraid: String?
    /// Meta's install referrer as the app read it from Meta's content provider (encrypted).
    public var metaInstallReferrer: String?
    /// `campaign_ids` of a deep link from Meta (iOS AEM), forwarded for 7 days.
    public var metaCampaignIDs: String?

    public init(
        odmInfo: String? = nil, referrerGclid: String? = nil, referrerGbraid: String? = nil, metaInstallReferrer: String? = nil,
        metaCampaignIDs: String? = nil
    ) {
        self.odmInfo = odmInfo
        self.referrerGclid = referrerGclid
        self.referrerGbraid = referrerGbraid
        self.metaInstallReferrer = metaInstallReferrer
        self.metaCampaignIDs = metaCampaignIDs
    }

    enum CodingKeys: String, CodingKey {
        case odmInfo = "odm_info"
        case referrerGclid = "referrer_gclid"
        case referrerGbraid = "referrer_gbraid"
        case metaInstallReferrer = "meta_install_referrer"
        case metaCampaignIDs = "meta_campaign_ids"
    }

    public var isEmpty: Bool { self == AdSignals() }

    /// Longest value kept: these are opaque tokens of a few hundred bytes; more is not one.
    public static let maximumLength = 8192

    /// The Google click ids in a Play Install Referrer string (`utm_source=google-play&gclid=…`).
    public static func googleClickIDs(inReferrer referrer: String) -> (gclid: String?, gbraid: String?) {
        var gclid: String?
        var gbraid: String?
        for pair in referrer.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, !parts[1].isEmpty, parts[1].utf8.count <= 512 else { continue }
            if parts[0] == "gclid" { gclid = String(parts[1]) }
            if parts[0] == "gbraid" { gbraid = String(parts[1]) }
        }
        return (gclid, gbraid)
    }

    /// These signals with what `newer` knows put over them.
    public func updated(with newer: AdSignals) -> AdSignals {
        AdSignals(
            odmInfo: newer.odmInfo ?? odmInfo, referrerGclid: newer.referrerGclid ?? referrerGclid,
            referrerGbraid: newer.referrerGbraid ?? referrerGbraid, metaInstallReferrer: newer.metaInstallReferrer ?? metaInstallReferrer,
            metaCampaignIDs: newer.metaCampaignIDs ?? metaCampaignIDs)
    }
}
