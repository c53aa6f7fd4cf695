public import Attribution

/// A stored install and how it was attributed.
public struct StoredInstall: Sendable, Equatable {
    public var id: String
    public var projectID: String
    public var match: MatchResult
    public var reinstall: Bool
    public var createdAt: Timestamp
    public var platform: String?
    public var userID: String? = nil
    /// Stored from a client's test mode (`InstallReport.isTest`).
    public var isTest = false
    /// The client family whose report created it (`InstallReport.reporter`).
    public var reporter: String?
    /// The class of the address it reported from (docs/traffic-quality.md).
    public var addressClass: AddressClass? = nil

    public init(
        id: String, projectID: String, match: MatchResult, reinstall: Bool, createdAt: Timestamp, platform: String?, userID: String? = nil,
        isTest: Bool = false, reporter: String? = nil
    ) {
        self.reporter = reporter
        self.id = id
        self.projectID = projectID
        self.match = match
        self.reinstall = reinstall
        self.createdAt = createdAt
        self.platform = platform
        self.userID = userID
        self.isTest = isTest
    }
}

public struct InstallOutcome: Sendable {
    public var install: StoredInstall
    /// False when tier 0 found this install already stored.
    public var isNew: Bool
    /// SKAN values due with this response, if the project has a schema.
    public var skan: SKANValues? = nil
    /// The link the install is attributed to and its template, read in the same transaction so
    /// that no read follows the write (the response is built on an event loop).
    public var link: Link? = nil
    public var template: LinkTemplate? = nil
    /// Apple's answer, when Apple Ads attributed the install, and the names of its campaign, ad
    /// group and keyword as far as they were fetched (read in the same transaction).
    public var appleAds: AppleAdsAnswer? = nil
    public var appleAdsNames = AppleAdsNames()
    /// What the install's user agreed to, as the install's report told it (nil: nothing), for its
    /// `install.created` webhook.
    public var consent: Consent? = nil

    public init(
        install: StoredInstall, isNew: Bool, skan: SKANValues? = nil, link: Link? = nil, template: LinkTemplate? = nil,
        appleAds: AppleAdsAnswer? = nil, appleAdsNames: AppleAdsNames = AppleAdsNames()
    ) {
        self.install = install
        self.isNew = isNew
        self.skan = skan
        self.link = link
        self.template = template
        self.appleAds = appleAds
        self.appleAdsNames = appleAdsNames
    }
}

/// How one install was attributed, as the accuracy simulation compares it with the truth.
public struct InstallAttributionRecord: Sendable {
    public let id: String
    public let attributed: Bool
    public let matchType: String
    public let confidence: Double
    public let clickID: String?
    public let clickedAt: Int64?
    public let createdAt: Int64
    /// Why a fraud rule refused the click that would have won it (JSON array text), and that click.
    public var rejectedReasons: [String] = []
    public var rejectedClickID: String? = nil

    public init(id: String, attributed: Bool, matchType: String, confidence: Double, clickID: String?, clickedAt: Int64?, createdAt: Int64) {
        self.id = id
        self.attributed = attributed
        self.matchType = matchType
        self.confidence = confidence
        self.clickID = clickID
        self.clickedAt = clickedAt
        self.createdAt = createdAt
    }
}
