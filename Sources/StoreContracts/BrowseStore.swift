public import Attribution

/// One install as the dashboard lists it.
public struct InstallSummary: Sendable, Equatable {
    public let id: String
    public let createdAt: Timestamp
    public let api: String
    public let platform: String?
    public let matchType: String
    public let attributed: Bool
    public let confidence: Double
    public let matchedFactors: [String]
    public let linkID: String?
    public let shortCode: String?
    public let clickID: String?
    public let userID: String?
    public let country: String?
    /// Reported in a client's test mode (`InstallReport.isTest`).
    public let isTest: Bool

    public init(
        id: String, createdAt: Timestamp, api: String, platform: String?, matchType: String, attributed: Bool, confidence: Double,
        matchedFactors: [String], linkID: String?, shortCode: String?, clickID: String?, userID: String?, country: String?, isTest: Bool
    ) {
        self.id = id
        self.createdAt = createdAt
        self.api = api
        self.platform = platform
        self.matchType = matchType
        self.attributed = attributed
        self.confidence = confidence
        self.matchedFactors = matchedFactors
        self.linkID = linkID
        self.shortCode = shortCode
        self.clickID = clickID
        self.userID = userID
        self.country = country
        self.isTest = isTest
    }
}

/// One click as the dashboard lists it (no IP: the page shows what a marketer needs).
public struct ClickSummary: Sendable, Equatable {
    public let clickID: String
    public let createdAt: Timestamp
    public let source: String
    public let platform: String?
    public let deviceClass: String?
    public let isBot: Bool
    public let utmSource: String?
    public let utmCampaign: String?
    public let installID: String?

    public init(
        clickID: String, createdAt: Timestamp, source: String, platform: String?, deviceClass: String?, isBot: Bool, utmSource: String?,
        utmCampaign: String?, installID: String?
    ) {
        self.clickID = clickID
        self.createdAt = createdAt
        self.source = source
        self.platform = platform
        self.deviceClass = deviceClass
        self.isBot = isBot
        self.utmSource = utmSource
        self.utmCampaign = utmCampaign
        self.installID = installID
    }
}

public struct EventSummary: Sendable, Equatable {
    public let name: String
    public let receivedAt: Timestamp
    public let revenue: Double?
    public let currency: String?

    public init(name: String, receivedAt: Timestamp, revenue: Double?, currency: String?) {
        self.name = name
        self.receivedAt = receivedAt
        self.revenue = revenue
        self.currency = currency
    }
}

public struct PaymentSummary: Sendable, Equatable {
    public let paymentID: String
    public let amount: Double
    public let currency: String
    public let createdAt: Timestamp
    public let removedAt: Timestamp?
    /// The source that verified it (`app_store`, `google_play`, `revenuecat`); nil: the SDK's alone.
    public let verifiedBy: String?

    public init(paymentID: String, amount: Double, currency: String, createdAt: Timestamp, removedAt: Timestamp?, verifiedBy: String? = nil) {
        self.verifiedBy = verifiedBy
        self.paymentID = paymentID
        self.amount = amount
        self.currency = currency
        self.createdAt = createdAt
        self.removedAt = removedAt
    }
}

/// One SKAN postback window's current value for an install.
public struct SKANWindowSummary: Sendable, Equatable {
    public let window: Int
    public let fine: Int?
    public let coarse: String?
    public let locked: Bool
    public let updatedAt: Timestamp

    public init(window: Int, fine: Int?, coarse: String?, locked: Bool, updatedAt: Timestamp) {
        self.window = window
        self.fine = fine
        self.coarse = coarse
        self.locked = locked
        self.updatedAt = updatedAt
    }
}

/// Counts of one link in one bucket (a local day) of its chart, from the hourly rollup.
public struct LinkDay: Sendable, Equatable {
    public let day: Timestamp
    public var clicks: Int
    public var botClicks: Int
    public var installs: Int
    public var events: Int

    public init(day: Timestamp, clicks: Int, botClicks: Int, installs: Int, events: Int) {
        self.day = day
        self.clicks = clicks
        self.botClicks = botClicks
        self.installs = installs
        self.events = events
    }
}

/// What the dashboard pages read beyond stats, each an indexed range read.
public protocol BrowseStore: Sendable {
    /// The project's installs newest first, created before `before` when given.
    /// - Parameter test: the installs of clients' test modes rather than the live ones.
    func recentInstalls(projectID: String, test: Bool, before: Timestamp?, limit: Int) throws -> [InstallSummary]
    func install(id: String, projectID: String) throws -> InstallSummary?
    /// How the install was matched (`MatchExplanation`'s JSON), when it was recorded (installs
    /// stored since 0.2.0); nil for no such install, or one without it.
    func explanation(installID: String, projectID: String) throws -> String?
    /// The period's live installs a fraud rule refused a click of or flagged, grouped by reasons
    /// and the click's source and campaign; `since` inclusive, `until` exclusive (milliseconds).
    func trafficQuality(projectID: String, since: Int64, until: Int64) throws -> TrafficQualityRows
    /// Clicks from the install's network, at most `horizonMilliseconds` before it, that other
    /// installs had claimed by the time it came; newest first, at most `limit`.
    func clicksClaimedEarlier(installID: String, projectID: String, horizonMilliseconds: Int64, limit: Int) throws
        -> [ExplanationAnnotations.ClaimedClick]
    func events(installID: String, limit: Int) throws -> [EventSummary]
    func payments(installID: String) throws -> [PaymentSummary]
    /// The install's SKAN windows that have a value, window 1 first.
    func skanWindows(installID: String) throws -> [SKANWindowSummary]
    func click(clickID: String, projectID: String) throws -> ClickSummary?
    /// The link's clicks newest first.
    func recentClicks(linkID: String, limit: Int) throws -> [ClickSummary]
    /// The link's counts per bucket between consecutive boundaries (local days), from `rollup_link_hours`.
    func linkSeries(projectID: String, linkID: String, boundaries: [Timestamp]) throws -> [LinkDay]
    /// Every link's human clicks per UTC day (days since the epoch) of `days`, from the day
    /// rollups and, for hours not folded into them yet, the hour rollups; days without clicks left
    /// out. For the links list's sparklines: one range of each table, whatever the links.
    func linkDailyClicks(projectID: String, days: Range<Int64>) throws -> [String: [Int64: Int]]
    /// The counted installs credited to `linkIDs` made in [since, until), and their events.
    func linkCohortRows(projectID: String, linkIDs: [String], since: Timestamp, until: Timestamp) throws -> LinkCohortRows
    /// The link's human clicks in [since, until) by their country, with how many of them an
    /// install claimed, most clicks first; clicks without a country are left out.
    func linkCountries(linkID: String, since: Timestamp, until: Timestamp, limit: Int) throws -> [CountryCount]
}

/// Clicks from one country and the installs they led to.
public struct CountryCount: Sendable, Equatable {
    public var country: String
    public var clicks: Int
    public var installs: Int

    public init(country: String, clicks: Int, installs: Int) {
        self.country = country
        self.clicks = clicks
        self.installs = installs
    }
}

/// The installs credited to some links in a period and those installs' events: a cohort of the
/// links, counted from the rows (their installs and events are found through indexes).
public struct LinkCohortRows: Sendable {
    /// Each install's creation time (milliseconds).
    public var installs: [Int64]
    public var events: [CohortTable.InstallEvent]

    public init(installs: [Int64], events: [CohortTable.InstallEvent]) {
        self.installs = installs
        self.events = events
    }
}
