public import Attribution

/// A project's connection to one ad platform: what identifies the app there (`settings`), the
/// credentials (`secrets`, write-only at the API), and how our facts map to its events.
public struct AdPlatformConnection: Sendable, Equatable {
    public var projectID: String
    public var platform: AdPlatform
    /// Google `link_id_ios`/`link_id_android`; Meta `dataset_id`, `app_id`; TikTok
    /// `event_source_id`; Snap `snap_app_id`; any platform's `test_event_code`.
    public var settings: [String: String]
    /// Google `developer_token`; Meta, TikTok and Snap `access_token`; Meta `install_referrer_key`.
    public var secrets: [String: String]
    public var eventMapping: AdEventMapping
    public var enabled: Bool
    public var createdAt: Timestamp
    public var updatedAt: Timestamp

    public init(
        projectID: String, platform: AdPlatform, settings: [String: String], secrets: [String: String],
        eventMapping: AdEventMapping = AdEventMapping(), enabled: Bool = true, createdAt: Timestamp, updatedAt: Timestamp
    ) {
        self.projectID = projectID
        self.platform = platform
        self.settings = settings
        self.secrets = secrets
        self.eventMapping = eventMapping
        self.enabled = enabled
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// What a delivery to an ad platform says of the install, read when it is sent (a consent given
/// or withdrawn since the fact counts; an erased install sends nothing).
public struct AdDeliveryFacts: Sendable, Equatable {
    public var install: InstallFacts
    public var osVersion: String?
    public var deviceModel: String?
    /// The first of the SDK's languages (`en_US`).
    public var locale: String?
    public var timezone: String?
    public var screenWidth: Double?
    public var screenHeight: Double?
    public var consent: Consent
    public var signals: AdSignals
    /// The install's attribution now: who won it (a matched factor such as `google_ads`), for the
    /// cross-network call.
    public var match: MatchResult
    public var createdAt: Timestamp
    public var isTest: Bool

    public init(
        install: InstallFacts, osVersion: String? = nil, deviceModel: String? = nil, locale: String? = nil, timezone: String? = nil,
        screenWidth: Double? = nil, screenHeight: Double? = nil, consent: Consent = Consent(), signals: AdSignals = AdSignals(),
        match: MatchResult = .organic, createdAt: Timestamp, isTest: Bool = false
    ) {
        self.install = install
        self.osVersion = osVersion
        self.deviceModel = deviceModel
        self.locale = locale
        self.timezone = timezone
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.consent = consent
        self.signals = signals
        self.match = match
        self.createdAt = createdAt
        self.isTest = isTest
    }
}

/// A platform's claim as stored beside the install, won or not.
public struct StoredAdClaim: Sendable, Equatable {
    public var installID: String
    public var claim: AdPlatformClaim
    public var won: Bool
    public var payload: String
    public var receivedAt: Timestamp

    public init(installID: String, claim: AdPlatformClaim, won: Bool, payload: String, receivedAt: Timestamp) {
        self.installID = installID
        self.claim = claim
        self.won = won
        self.payload = payload
        self.receivedAt = receivedAt
    }
}

/// Ad-platform connections, consent and claims (docs/ad-platforms/).
public protocol AdPlatformStore: Sendable {
    /// Creates or replaces the project's connection to its platform.
    func save(_ connection: AdPlatformConnection) throws
    func connection(projectID: String, platform: AdPlatform) throws -> AdPlatformConnection?
    func connections(projectID: String) throws -> [AdPlatformConnection]
    /// Every project's (the cache in front of the hot paths loads them at once).
    func allConnections() throws -> [AdPlatformConnection]
    func delete(projectID: String, platform: AdPlatform) throws -> Bool

    /// Replaces the install's consent; false when the project has no such install.
    func setConsent(_ consent: Consent, installID: String, projectID: String) throws -> Bool
    /// The install's consent as stored (nil: none told) and its signals; nil when there is no such install.
    func consent(installID: String, projectID: String) throws -> (consent: Consent?, signals: AdSignals)?
    func deliveryFacts(installID: String) throws -> AdDeliveryFacts?

    /// Keeps the claim; when it wins over the install's attribution (`wins`), the install takes it
    /// (a click it had claimed is released, the counts move) and `notify`'s jobs are written in the
    /// same transaction. Returns the install when it changed. A platform's second claim of one
    /// install replaces its first.
    func recordClaim(
        _ claim: AdPlatformClaim, payload: String, installID: String, at time: Timestamp,
        wins: @escaping @Sendable (MatchResult, Timestamp) -> Bool,
        notify: Notifier<AdClaimAttribution>?
    ) throws -> StoredInstall?
    func claims(installID: String) throws -> [StoredAdClaim]
}

/// A claim that became an install's attribution, for the `install.attributed` webhook.
public struct AdClaimAttribution: Sendable {
    public var install: StoredInstall
    public var claim: AdPlatformClaim

    public init(install: StoredInstall, claim: AdPlatformClaim) {
        self.install = install
        self.claim = claim
    }
}
