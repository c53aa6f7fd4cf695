/// An install as an SDK reported it, before matching: who it is (tier 0), what it says of itself
/// (the signals the cascade compares), and what is kept with it.
public struct InstallReport: Sendable {
    public var projectID: String
    /// Which client family reported it, kept with the install as a label (the API layer names it;
    /// nothing in matching depends on it).
    public var reporter: String
    public var identity: InstallIdentity
    public var signals: InstallSignals
    public var deviceModel: String?
    public var appVersion: String?
    public var ip: String?
    public var userAgent: String?
    /// Narrows every link's window for this install (LinkForty `attributionWindowHours`).
    public var windowHoursLimit: Int?
    /// ISO 3166-1 alpha-2 (`CountryCode`), when the SDK told it.
    public var country: String?
    /// Sent in a client's test mode (a WarpLink `wl_test_` key, Linkrunner's `debug`): matched
    /// like any install, kept apart from the live counts, and never sent to webhooks or postbacks.
    public var isTest: Bool
    /// What the user agreed to, as far as the SDK told (nil: nothing), and the signals the ad
    /// platforms read (docs/ad-platforms/). Kept with the install; nothing in matching reads them.
    public var consent: Consent? = nil
    public var adSignals: AdSignals? = nil

    public init(
        projectID: String, reporter: String, identity: InstallIdentity, signals: InstallSignals, deviceModel: String? = nil,
        appVersion: String? = nil, ip: String? = nil, userAgent: String? = nil, windowHoursLimit: Int? = nil, country: String? = nil,
        isTest: Bool = false, consent: Consent? = nil, adSignals: AdSignals? = nil
    ) {
        self.consent = consent
        self.adSignals = adSignals
        self.projectID = projectID
        self.reporter = reporter
        self.identity = identity
        self.signals = signals
        self.deviceModel = deviceModel
        self.appVersion = appVersion
        self.ip = ip
        self.userAgent = userAgent
        self.windowHoursLimit = windowHoursLimit
        self.country = country
        self.isTest = isTest
    }
}
