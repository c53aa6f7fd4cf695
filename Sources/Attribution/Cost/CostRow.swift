/// What a network spent on one campaign (or one of its ad groups or ads) on one day in the
/// project's time zone, as the network reports it. A row is keyed by (day, network, campaign, ad
/// group, ad): a later upload of the same key replaces it, as networks restate their spend.
public struct CostRow: Sendable, Equatable {
    /// `YYYY-MM-DD`, a day in the project's time zone.
    public var day: String
    /// The network as our links and claims name it, lower case (`google`, `meta`, `apple_ads`).
    public var network: String
    public var campaignID: String
    public var campaignName: String
    /// Empty for a row of the whole campaign (or the whole ad group).
    public var adGroupID: String
    public var adID: String
    /// In millionths of the currency's unit: exact, and summed as integers.
    public var spendMicros: Int64
    /// ISO 4217, upper case.
    public var currency: String
    public var impressions: Int64?
    public var clicks: Int64?

    public init(
        day: String, network: String, campaignID: String, campaignName: String, adGroupID: String = "", adID: String = "",
        spendMicros: Int64, currency: String, impressions: Int64? = nil, clicks: Int64? = nil
    ) {
        self.day = day
        self.network = network
        self.campaignID = campaignID
        self.campaignName = campaignName
        self.adGroupID = adGroupID
        self.adID = adID
        self.spendMicros = spendMicros
        self.currency = currency
        self.impressions = impressions
        self.clicks = clicks
    }

    /// The campaign part of the row's key: its id, or its name where the network gave no id.
    public var campaignKey: String { campaignID.isEmpty ? "name:" + campaignName : campaignID }

    /// The spend as a decimal number (`12.5`).
    public var spend: Double { Double(spendMicros) / 1_000_000 }
}
