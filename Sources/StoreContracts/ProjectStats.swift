public import Attribution

/// What happened in a project over a period: clicks, installs by how they were matched, events,
/// revenue — in total and per link. Money is kept per currency and never added across currencies,
/// and captured payments are kept apart from the amounts events declare: an app that reports a
/// purchase as an event with an amount and also captures the payment would otherwise count it twice.
public struct ProjectStats: Sendable, Equatable {
    public struct Counts: Sendable, Equatable {
        public var clicks = 0
        public var botClicks = 0
        public var installs = 0
        public var attributedInstalls = 0
        /// Attributed installs Apple Ads claimed (not counted: Apple's developer-mode answers).
        public var appleAdsInstalls = 0
        public var deterministicInstalls = 0
        public var probabilisticInstalls = 0
        public var organicInstalls = 0
        public var events = 0
        /// Of these installs, those that have a user (signed up), and those with a payment that
        /// was not removed: counted at the install's own time and link (a cohort funnel).
        public var signups = 0
        public var payingInstalls = 0
        /// Captured payments not removed (Linkrunner `capture-payment`), by currency.
        public var paymentRevenue: [String: Double] = [:]
        /// Amounts declared by events (LinkForty `eventData.revenue`, Linkrunner `capture-event`
        /// `amount`), by currency; events without a currency count in the project's.
        public var eventRevenue: [String: Double] = [:]

        public init() {}
    }

    public struct LinkCounts: Sendable, Equatable {
        public let linkID: String
        public let shortCode: String
        public var counts: Counts
        /// The link's own UTM parameters (campaign tables group links by them).
        public var utmSource: String? = nil
        public var utmMedium: String? = nil
        public var utmCampaign: String? = nil

        public init(linkID: String, shortCode: String, counts: Counts, utmSource: String? = nil, utmMedium: String? = nil, utmCampaign: String? = nil)
        {
            self.linkID = linkID
            self.shortCode = shortCode
            self.counts = counts
            self.utmSource = utmSource
            self.utmMedium = utmMedium
            self.utmCampaign = utmCampaign
        }
    }

    /// Installs an ad platform's claim holds (Google Ads' answer, Meta's install referrer), and
    /// their events, by source, campaign and ad group: read from the claims, as Apple Ads' are.
    public struct AdPlatformCounts: Sendable, Equatable {
        /// `google_ads`, `meta_install_referrer`: the installs' matched factor.
        public let source: String
        public let campaignID: String?
        public var campaignName: String?
        /// Google's ad group, Meta's ad set, where the claim names one.
        public let adGroupID: String?
        public var adGroupName: String?
        public var installs: Int
        public var events: Int

        public init(
            source: String, campaignID: String?, campaignName: String?, adGroupID: String? = nil, adGroupName: String? = nil, installs: Int,
            events: Int
        ) {
            self.source = source
            self.campaignID = campaignID
            self.campaignName = campaignName
            self.adGroupID = adGroupID
            self.adGroupName = adGroupName
            self.installs = installs
            self.events = events
        }
    }

    /// Installs Apple Ads attributed, and their events and revenue, by campaign, ad group and keyword.
    public struct AppleAdsCounts: Sendable, Equatable {
        public let campaignID: String?
        public let adGroupID: String?
        public let keywordID: String?
        /// Apple's developer-mode answers (ids 1234567890), apart from paid ones.
        public let test: Bool
        public var counts: Counts
        /// Names from the Campaign Management API, when the project has credentials.
        public var campaignName: String? = nil
        public var adGroupName: String? = nil
        public var keyword: String? = nil

        public init(
            campaignID: String?, adGroupID: String?, keywordID: String?, test: Bool, counts: Counts, campaignName: String? = nil,
            adGroupName: String? = nil, keyword: String? = nil
        ) {
            self.campaignID = campaignID
            self.adGroupID = adGroupID
            self.keywordID = keywordID
            self.test = test
            self.counts = counts
            self.campaignName = campaignName
            self.adGroupName = adGroupName
            self.keyword = keyword
        }
    }

    public var totals: Counts
    public var links: [LinkCounts]
    public var appleAds: [AppleAdsCounts] = []
    public var adPlatforms: [AdPlatformCounts] = []
    /// Attributed installs by confidence band: "high" (≥ 0.80), "medium" (≥ 0.60), "low".
    public var installsByConfidence: [String: Int] = [:]
    /// Installs by their SKAN conversion value, per window (1–3): the fine value as a number, or
    /// the coarse one ("low", "medium", "high") where the window has no fine value.
    public var skanValues: [Int: [String: Int]] = [:]
    /// The period's payments a store verified (docs/revenue.md), per currency: part of
    /// `totals.paymentRevenue`, not beside it.
    public var verifiedPaymentRevenue: [String: Double] = [:]

    public init(
        totals: Counts, links: [LinkCounts], appleAds: [AppleAdsCounts] = [], installsByConfidence: [String: Int] = [:],
        skanValues: [Int: [String: Int]] = [:]
    ) {
        self.totals = totals
        self.links = links
        self.appleAds = appleAds
        self.installsByConfidence = installsByConfidence
        self.skanValues = skanValues
    }

    /// Installs the ad platforms' claims hold, by source.
    public var adPlatformInstallsBySource: [String: Int] {
        adPlatforms.reduce(into: [:]) { $0[$1.source, default: 0] += $1.installs }
    }

    /// The stats of two adjacent periods as one (counts and amounts added, per link, per Apple Ads
    /// row and per currency).
    public func adding(_ other: ProjectStats) -> ProjectStats {
        var merged = self
        merged.totals.add(other.totals)
        // In place, in this period's order (by code): the dashboard adds today's counts to a
        // cached past for every page view, and most links have nothing today.
        var index: [String: Int] = [:]
        index.reserveCapacity(merged.links.count)
        for (position, link) in merged.links.enumerated() { index[link.linkID] = position }
        var appended = false
        let nothing = Counts()
        for link in other.links where link.counts != nothing || index[link.linkID] == nil {
            if let position = index[link.linkID] {
                merged.links[position].counts.add(link.counts)
            } else {
                index[link.linkID] = merged.links.count
                merged.links.append(link)
                appended = true
            }
        }
        if appended { merged.links.sort { $0.shortCode < $1.shortCode } }
        merged.installsByConfidence.merge(other.installsByConfidence, uniquingKeysWith: +)
        merged.skanValues.merge(other.skanValues) { $0.merging($1, uniquingKeysWith: +) }
        merged.verifiedPaymentRevenue.merge(other.verifiedPaymentRevenue, uniquingKeysWith: +)
        for row in other.adPlatforms {
            if let index = merged.adPlatforms.firstIndex(where: {
                $0.source == row.source && $0.campaignID == row.campaignID && $0.adGroupID == row.adGroupID
            }) {
                merged.adPlatforms[index].installs += row.installs
                merged.adPlatforms[index].events += row.events
            } else {
                merged.adPlatforms.append(row)
            }
        }
        for row in other.appleAds {
            if let index = merged.appleAds.firstIndex(where: {
                $0.campaignID == row.campaignID && $0.adGroupID == row.adGroupID
                    && $0.keywordID == row.keywordID && $0.test == row.test
            }) {
                merged.appleAds[index].counts.add(row.counts)
            } else {
                merged.appleAds.append(row)
            }
        }
        return merged
    }
}

extension ProjectStats.Counts {
    public mutating func add(_ other: ProjectStats.Counts) {
        clicks += other.clicks
        botClicks += other.botClicks
        installs += other.installs
        attributedInstalls += other.attributedInstalls
        appleAdsInstalls += other.appleAdsInstalls
        deterministicInstalls += other.deterministicInstalls
        probabilisticInstalls += other.probabilisticInstalls
        organicInstalls += other.organicInstalls
        events += other.events
        signups += other.signups
        payingInstalls += other.payingInstalls
        paymentRevenue.merge(other.paymentRevenue, uniquingKeysWith: +)
        eventRevenue.merge(other.eventRevenue, uniquingKeysWith: +)
    }
}

/// One bucket of a time series: its start and the project's counts in it.
public struct StatsBucket: Sendable, Equatable {
    public let start: Timestamp
    public var counts = ProjectStats.Counts()

    public init(start: Timestamp, counts: ProjectStats.Counts = ProjectStats.Counts()) {
        self.start = start
        self.counts = counts
    }
}
