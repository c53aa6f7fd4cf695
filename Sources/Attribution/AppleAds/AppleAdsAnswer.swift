public import JSON

/// Apple's answer to an AdServices token exchange (docs/outbound.md, "Apple Ads (AdServices) exchange"): whether
/// an Apple Ads campaign drove the install and, if so, which. Ids are integers on the wire and
/// kept as text (clients get them as strings).
public struct AppleAdsAnswer: Sendable, Equatable {
    public enum ClaimType: String, Sendable {
        case click = "Click"
        case impression = "Impression"
    }

    public var attribution: Bool
    public var orgID: String?
    public var campaignID: String?
    public var adGroupID: String?
    /// Absent for search-match installs.
    public var keywordID: String?
    public var adID: String?
    /// `Download`, `Redownload`, `PreOrder`.
    public var conversionType: String?
    public var claimType: ClaimType?
    /// The tap or view (`clickDate` / `impressionDate`, minute precision).
    public var claimedAt: Timestamp?
    public var countryOrRegion: String?
    public var supplyPlacement: String?

    public init(
        attribution: Bool, orgID: String? = nil, campaignID: String? = nil, adGroupID: String? = nil, keywordID: String? = nil,
        adID: String? = nil, conversionType: String? = nil, claimType: ClaimType? = nil, claimedAt: Timestamp? = nil,
        countryOrRegion: String? = nil, supplyPlacement: String? = nil
    ) {
        self.attribution = attribution
        self.orgID = orgID
        self.campaignID = campaignID
        self.adGroupID = adGroupID
        self.keywordID = keywordID
        self.adID = adID
        self.conversionType = conversionType
        self.claimType = claimType
        self.claimedAt = claimedAt
        self.countryOrRegion = countryOrRegion
        self.supplyPlacement = supplyPlacement
    }

    /// The ids Apple answers for a token made in developer mode.
    public static let testCampaignID = "1234567890"

    /// Apple's developer-mode answer: recorded, flagged, never a paid install.
    public var isTest: Bool { attribution && [orgID, campaignID, adGroupID].contains(Self.testCampaignID) }

    /// The answer in Apple's JSON, or nil when it is not one (no boolean `attribution`, an id that
    /// is neither a whole number nor text, a date that does not parse).
    public init?(json: JSONValue) {
        guard case .object(let fields) = json, case .bool(let attribution)? = fields["attribution"] else { return nil }
        self.attribution = attribution
        func identifier(_ key: String) -> String?? {
            switch fields[key] {
            case nil, .null?: return .some(nil)
            case .number(let number)? where number.rounded() == number && abs(number) < 1e15: return .some(String(Int64(number)))
            case .string(let text)? where !text.isEmpty && text.count <= 64: return .some(text)
            default: return nil
            }
        }
        func text(_ key: String) -> String?? {
            switch fields[key] {
            case nil, .null?: return .some(nil)
            case .string(let text)? where text.count <= 64: return .some(text)
            default: return nil
            }
        }
        guard let org = identifier("orgId"), let campaign = identifier("campaignId"), let adGroup = identifier("adGroupId"),
            let keyword = identifier("keywordId"), let ad = identifier("adId"), let conversion = text("conversionType"),
            let claim = text("claimType"), let country = text("countryOrRegion"), let placement = text("supplyPlacement"),
            let clickDate = text("clickDate"), let impressionDate = text("impressionDate")
        else { return nil }
        orgID = org
        campaignID = campaign
        adGroupID = adGroup
        keywordID = keyword
        adID = ad
        conversionType = conversion
        claimType = claim.flatMap(ClaimType.init(rawValue:))
        countryOrRegion = country
        supplyPlacement = placement
        if let date = clickDate ?? impressionDate {
            guard let parsed = Self.parseDate(date) else { return nil }
            claimedAt = parsed
        }
        if claimType == nil, attribution { claimType = clickDate != nil ? .click : impressionDate != nil ? .impression : nil }
    }

    /// Apple's minute-precision dates (`2024-10-08T17:17Z`), and full ISO 8601 ones should they come.
    public static func parseDate(_ text: String) -> Timestamp? {
        if let full = Timestamp(iso8601: text) { return full }
        // Insert the seconds Apple leaves out: `…T17:17Z` → `…T17:17:00Z`.
        let bytes = Array(text.utf8)
        guard bytes.count >= 17, let t = bytes.firstIndex(of: UInt8(ascii: "T")), bytes.count > t + 6,
            bytes[t + 3] == UInt8(ascii: ":")
        else { return nil }
        let minutesEnd = text.utf8.index(text.utf8.startIndex, offsetBy: t + 6)
        return Timestamp(iso8601: String(text[..<minutesEnd]) + ":00" + String(text[minutesEnd...]))
    }
}

/// Whether Apple's claim becomes an install's attribution (docs/outbound.md, "Apple Ads (AdServices) exchange"):
/// Apple's own answer beats a probabilistic match; against a deterministic link match the later
/// touch wins; a tap counts for 30 days before the install, a view for 24 hours.
public enum AppleAdsPrecedence {
    public static let tapWindowSeconds: Int64 = 30 * 86_400
    public static let viewWindowSeconds: Int64 = 86_400

    public static func claimWins(_ answer: AppleAdsAnswer, over current: MatchResult, installedAt: Timestamp) -> Bool {
        guard answer.attribution else { return false }
        if let claimedAt = answer.claimedAt {
            let window = answer.claimType == .impression ? viewWindowSeconds : tapWindowSeconds
            let age = installedAt.milliseconds - claimedAt.milliseconds
            // Minute precision: a tap in the install's own minute reads as up to 59 s later.
            guard age >= -60_000, age <= window * 1000 else { return false }
        }
        guard current.attributed, current.matchType == .deterministic else { return true }
        guard let claimedAt = answer.claimedAt, let clickedAt = current.clickedAt else { return false }
        return claimedAt > clickedAt
    }
}
