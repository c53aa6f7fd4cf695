/// One postback copy Apple's device sent to the app's own domain, as stored once its signature
/// verified: SKAdNetwork's fields or AdAttributionKit's, in one shape (docs/skan-postbacks.md).
public struct ApplePostback: Sendable, Equatable {
    public enum Framework: String, Sendable, CaseIterable {
        case skadnetwork, adattributionkit
    }

    public var framework: Framework
    /// SKAdNetwork's `version` ("4.0"); AdAttributionKit has none.
    public var version: String?
    /// The key the signature verified with: AdAttributionKit's `kid`, `skadnetwork-p256` for SKAN.
    public var keyID: String
    /// Signed with one of Apple's development keys (accepted for test-mode projects only).
    public var isDevelopment: Bool
    /// SKAN `transaction-id` / AdAttributionKit `postback-identifier`: unique per postback.
    public var dedupeKey: String
    public var adNetworkID: String
    /// 2–4 digits (SKAN 4, AdAttributionKit); older SKAN versions send `campaignID` instead.
    public var sourceIdentifier: String?
    public var campaignID: Int64?
    /// The advertised app's App Store id.
    public var appID: Int64
    public var sourceAppID: Int64?
    public var sourceDomain: String?
    /// SKAN: 0 view-through, 1 StoreKit-rendered or click.
    public var fidelityType: Int?
    /// AdAttributionKit: `view` or `click`.
    public var interactionType: String?
    /// AdAttributionKit: `app-impression`, `web-impression`…
    public var impressionType: String?
    /// `download`, `redownload` or (AdAttributionKit) `re-engagement`.
    public var conversionType: String
    public var redownload: Bool
    public var didWin: Bool?
    /// The conversion window: 0 days 0–2, 1 days 3–7, 2 days 8–35.
    public var sequenceIndex: Int
    public var fineValue: Int?
    public var coarseValue: SKANSchema.Coarse?
    /// ISO 3166 alpha-2 (AdAttributionKit, outside the signature).
    public var country: String?
    public var marketplace: String?
    public var publisherItemID: Int64?

    public init(
        framework: Framework, version: String?, keyID: String, isDevelopment: Bool, dedupeKey: String, adNetworkID: String,
        sourceIdentifier: String?, campaignID: Int64?, appID: Int64, sourceAppID: Int64?, sourceDomain: String?, fidelityType: Int?,
        interactionType: String?, impressionType: String?, conversionType: String, redownload: Bool, didWin: Bool?, sequenceIndex: Int,
        fineValue: Int?, coarseValue: SKANSchema.Coarse?, country: String?, marketplace: String?, publisherItemID: Int64?
    ) {
        self.framework = framework
        self.version = version
        self.keyID = keyID
        self.isDevelopment = isDevelopment
        self.dedupeKey = dedupeKey
        self.adNetworkID = adNetworkID
        self.sourceIdentifier = sourceIdentifier
        self.campaignID = campaignID
        self.appID = appID
        self.sourceAppID = sourceAppID
        self.sourceDomain = sourceDomain
        self.fidelityType = fidelityType
        self.interactionType = interactionType
        self.impressionType = impressionType
        self.conversionType = conversionType
        self.redownload = redownload
        self.didWin = didWin
        self.sequenceIndex = sequenceIndex
        self.fineValue = fineValue
        self.coarseValue = coarseValue
        self.country = country
        self.marketplace = marketplace
        self.publisherItemID = publisherItemID
    }

    /// The source a report groups by: the source identifier, or an older version's campaign id.
    public var source: String { sourceIdentifier ?? campaignID.map(String.init) ?? "" }
}

/// A stored copy: the postback with its project, id, raw body and arrival.
public struct StoredApplePostback: Sendable, Equatable {
    public var id: String
    public var projectID: String
    public var postback: ApplePostback
    public var rawBody: String
    public var receivedAt: Timestamp

    public init(id: String, projectID: String, postback: ApplePostback, rawBody: String, receivedAt: Timestamp) {
        self.id = id
        self.projectID = projectID
        self.postback = postback
        self.rawBody = rawBody
        self.receivedAt = receivedAt
    }
}
