/// A short link (docs/links.md, "The link").
public struct Link: Sendable, Equatable, Identifiable {
    public struct OpenGraph: Sendable, Equatable {
        public var title: String?
        public var description: String?
        public var image: String?
        public init(title: String? = nil, description: String? = nil, image: String? = nil) {
            self.title = title
            self.description = description
            self.image = image
        }
    }

    public let id: String
    public let projectID: String
    public var templateID: String?
    public var shortCode: String
    /// The project domain the link lives on (`ProjectDomain.domain`); nil: served on any Host
    /// that is not another project's domain. Codes are unique per domain.
    public var domain: String?
    /// Firebase Dynamic Links' parameters, for a link that came from FDL: its taps follow FDL's rules.
    public var fdl: FDLOptions?
    /// Lead taps in social apps' browsers out (nil: as the project says).
    public var inAppEscape: Bool?
    public var title: String?
    public var description: String?
    public var originalURL: String?
    public var iosURL: String?
    public var androidURL: String?
    public var webURL: String?
    public var appScheme: String?
    public var deepLinkPath: String?
    public var deepLinkParameters: [String: String]
    public var utm: UTM
    /// Raw JSON (countries, devices, languages); kept and returned, not yet enforced.
    public var targeting: String?
    public var og: OpenGraph
    public var attributionWindowHours: Int?
    /// Append `click_id=<uuid>` to destination URLs.
    public var appendClickID: Bool
    public var expiresAt: Timestamp?
    /// Where taps go once the link has expired (otherwise a 410 page).
    public var expiredURL: String?
    public var maxClicks: Int?
    public var active: Bool
    /// Tried in order before the link's own destinations (`LinkRule`).
    public var rules: [LinkRule]
    /// An A/B split of the destination (`LinkVariant`); empty: none.
    public var variants: [LinkVariant]
    /// PBKDF2 of the password a tap must give before it is redirected (`PasswordHash`); nil: none.
    public var passwordHash: String?
    public var externalUserID: String?
    public var optionsHash: String?
    public let createdAt: Timestamp
    public var updatedAt: Timestamp

    public init(
        id: String, projectID: String, templateID: String? = nil, shortCode: String, title: String? = nil,
        description: String? = nil, originalURL: String? = nil, iosURL: String? = nil, androidURL: String? = nil,
        webURL: String? = nil, appScheme: String? = nil, deepLinkPath: String? = nil,
        deepLinkParameters: [String: String] = [:], utm: UTM = UTM(), targeting: String? = nil,
        og: OpenGraph = OpenGraph(), attributionWindowHours: Int? = nil, appendClickID: Bool = false,
        expiresAt: Timestamp? = nil, maxClicks: Int? = nil, active: Bool = true, externalUserID: String? = nil,
        optionsHash: String? = nil, createdAt: Timestamp, updatedAt: Timestamp? = nil, domain: String? = nil, fdl: FDLOptions? = nil,
        inAppEscape: Bool? = nil, rules: [LinkRule] = [], variants: [LinkVariant] = [], expiredURL: String? = nil,
        passwordHash: String? = nil
    ) {
        self.rules = rules
        self.variants = variants
        self.expiredURL = expiredURL
        self.passwordHash = passwordHash
        self.id = id
        self.projectID = projectID
        self.templateID = templateID
        self.shortCode = shortCode
        self.domain = domain
        self.fdl = fdl
        self.inAppEscape = inAppEscape
        self.title = title
        self.description = description
        self.originalURL = originalURL
        self.iosURL = iosURL
        self.androidURL = androidURL
        self.webURL = webURL
        self.appScheme = appScheme
        self.deepLinkPath = deepLinkPath
        self.deepLinkParameters = deepLinkParameters
        self.utm = utm
        self.targeting = targeting
        self.og = og
        self.attributionWindowHours = attributionWindowHours
        self.appendClickID = appendClickID
        self.expiresAt = expiresAt
        self.maxClicks = maxClicks
        self.active = active
        self.externalUserID = externalUserID
        self.optionsHash = optionsHash
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
    }

    /// Every problem with the link's values, each naming its key (snake_case, as the admin API).
    public static let maxTitleLength = 500
    public static let maxDescriptionLength = 2_000

    public func validate() -> [ValidationProblem] {
        var problems: [ValidationProblem] = []
        if !ShortCode.isValidCustom(shortCode) {
            problems.append(.init("short_code", "must be 3 to 64 characters of A-Z, a-z, 0-9, '_' or '-'"))
        } else if ShortCode.isReserved(shortCode) {
            problems.append(.init("short_code", "'\(shortCode)' is the path of one of the server's own routes; choose another"))
        }
        problems += ProjectSettings.urlProblems([
            ("original_url", originalURL), ("ios_url", iosURL), ("android_url", androidURL),
            ("web_url", webURL), ("og_image", og.image), ("expired_url", expiredURL),
        ])
        problems += LinkTemplate.appLinkProblems(scheme: appScheme, path: deepLinkPath)
        if let hours = attributionWindowHours, !ProjectSettings.attributionWindowRange.contains(hours) {
            problems.append(.init("attribution_window_hours", "must be between 1 and 2160"))
        }
        if let maxClicks, maxClicks < 1 { problems.append(.init("max_clicks", "must be at least 1")) }
        // Text shown on pages and in lists: a 10 MB title was accepted, and every list carried it.
        for (key, text, limit) in [
            ("title", title, Self.maxTitleLength), ("description", description, Self.maxDescriptionLength),
            ("og_title", og.title, Self.maxTitleLength), ("og_description", og.description, Self.maxDescriptionLength),
        ] {
            if let text, text.unicodeScalars.count > limit { problems.append(.init(key, "must be at most \(limit) characters")) }
        }
        return problems
    }
}

/// Why a link does not lead anywhere right now.
public enum LinkAvailability: Sendable, Equatable {
    case available
    case inactive
    case expired
    case exhausted

    public static func of(_ link: Link, clicks: Int, now: Timestamp) -> LinkAvailability {
        if !link.active { return .inactive }
        if let expiresAt = link.expiresAt, expiresAt <= now { return .expired }
        if let maxClicks = link.maxClicks, clicks >= maxClicks { return .exhausted }
        return .available
    }
}
