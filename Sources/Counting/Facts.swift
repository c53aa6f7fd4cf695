/// What the counting rules read of the rows they count: a store reads these (SQL in `Store`),
/// the rules below decide what they add. Times are milliseconds since the epoch.

/// A stored click.
public struct ClickFact: Equatable, Sendable {
    public var projectID: String
    public var at: Int64
    /// Nil once the link is deleted (its clicks are counted under "no link" then).
    public var linkID: String?
    public var isBot: Bool
    public var platform: String?
    public var osVersion: String?
    public var country: String?
    public var referer: String?

    public init(
        projectID: String, at: Int64, linkID: String?, isBot: Bool, platform: String?, osVersion: String?, country: String?,
        referer: String?
    ) {
        self.projectID = projectID
        self.at = at
        self.linkID = linkID
        self.isBot = isBot
        self.platform = platform
        self.osVersion = osVersion
        self.country = country
        self.referer = referer
    }
}

/// A stored install, with what of its other rows decides its own counts.
public struct InstallFact: Equatable, Sendable {
    public var projectID: String
    public var createdAt: Int64
    /// A test device's install: nothing of it is counted (`docs/storage.md`, "Test traffic").
    public var isTest: Bool
    public var attributed: Bool
    public var linkID: String?
    public var matchType: String
    /// Attributed by Apple Ads (`matched_factors` is `["apple_ads"]`).
    public var appleAds: Bool
    public var confidence: Double
    public var signedUp: Bool
    public var hasLivePayment: Bool
    public var hasRevenueEvent: Bool
    public var platform: String?
    public var osVersion: String?
    public var country: String?
    /// The click it was attributed from while that click is stored: its `Referer` (nil without one).
    public var click: Click?

    public struct Click: Equatable, Sendable {
        public var referer: String?
        public init(referer: String?) { self.referer = referer }
    }

    public init(
        projectID: String, createdAt: Int64, isTest: Bool, attributed: Bool, linkID: String?, matchType: String, appleAds: Bool,
        confidence: Double, signedUp: Bool, hasLivePayment: Bool, hasRevenueEvent: Bool, platform: String?, osVersion: String?,
        country: String?, click: Click?
    ) {
        self.projectID = projectID
        self.createdAt = createdAt
        self.isTest = isTest
        self.attributed = attributed
        self.linkID = linkID
        self.matchType = matchType
        self.appleAds = appleAds
        self.confidence = confidence
        self.signedUp = signedUp
        self.hasLivePayment = hasLivePayment
        self.hasRevenueEvent = hasRevenueEvent
        self.platform = platform
        self.osVersion = osVersion
        self.country = country
        self.click = click
    }

    /// The link its counts go under: its own while attributed to one, else '' ("no link").
    public var rollupLink: String { attributed ? linkID ?? "" : "" }
}

/// A stored event of an install.
public struct EventFact: Equatable, Sendable {
    /// When it is charted (`ChartedTime`).
    public var at: Int64
    public var name: String
    public var currency: String?
    public var revenue: Double?

    public init(at: Int64, name: String, currency: String?, revenue: Double?) {
        self.at = at
        self.name = name
        self.currency = currency
        self.revenue = revenue
    }
}

/// A captured payment of an install that is not removed (refunded, cancelled).
public struct PaymentFact: Equatable, Sendable {
    public var at: Int64
    public var currency: String
    public var amount: Double

    public init(at: Int64, currency: String, amount: Double) {
        self.at = at
        self.currency = currency
        self.amount = amount
    }
}

/// An install's SKAN conversion value in one postback window: the fine value as text, else the
/// coarse one.
public struct SKANFact: Equatable, Sendable {
    public var window: Int
    public var value: String

    public init(window: Int, value: String) {
        self.window = window
        self.value = value
    }
}

/// What the rules read of an install's other events when one is stored or removed.
public struct EventHistory: Equatable, Sendable {
    /// The earliest charted time of its other events of the same name; nil without one.
    public var earliestOtherOfName: Int64?
    /// Whether another of its events is charted on the same day after install.
    public var otherOnItsDay: Bool

    public init(earliestOtherOfName: Int64?, otherOnItsDay: Bool) {
        self.earliestOtherOfName = earliestOtherOfName
        self.otherOnItsDay = otherOnItsDay
    }
}

/// An install with every row of it that counts: the state a recount reads, and the state an
/// erasure or a re-attribution takes back.
public struct InstallState: Equatable, Sendable {
    public var install: InstallFact
    public var events: [EventFact]
    public var payments: [PaymentFact]
    public var skan: [SKANFact]

    public init(install: InstallFact, events: [EventFact], payments: [PaymentFact], skan: [SKANFact]) {
        self.install = install
        self.events = events
        self.payments = payments
        self.skan = skan
    }
}
