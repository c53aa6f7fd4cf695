import Foundation

/// An app whose installs are attributed: its identity and settings. Its token and API keys exist
/// only as hashes in the store, so they are not part of this value.
public struct Project: Sendable, Equatable, Identifiable {
    public let id: String
    public var name: String
    public var settings: ProjectSettings
    public var testMode: Bool
    public let createdAt: Timestamp
    public var updatedAt: Timestamp

    public init(
        id: String, name: String, settings: ProjectSettings, testMode: Bool = false,
        createdAt: Timestamp, updatedAt: Timestamp
    ) {
        self.id = id
        self.name = name
        self.settings = settings
        self.testMode = testMode
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Names are how operators and config files refer to projects.
    public static func validateName(_ name: String) -> ValidationProblem? {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return ValidationProblem("name", "must not be empty") }
        if trimmed.count > 200 { return ValidationProblem("name", "must be at most 200 characters") }
        return nil
    }
}

/// A link template: a slug (`/{slug}/{code}`) and defaults for the links made from it.
public struct LinkTemplate: Sendable, Equatable, Identifiable {
    public let id: String
    public let projectID: String
    public var slug: String
    public var name: String
    public var iosURL: String?
    public var androidURL: String?
    public var webURL: String?
    public var appScheme: String?
    public var deepLinkPath: String?
    public var deepLinkParameters: [String: String]
    public var utm: [String: String]
    public var attributionWindowHours: Int?
    public let createdAt: Timestamp

    public init(
        id: String, projectID: String, slug: String, name: String, iosURL: String? = nil, androidURL: String? = nil,
        webURL: String? = nil, appScheme: String? = nil, deepLinkPath: String? = nil,
        deepLinkParameters: [String: String] = [:], utm: [String: String] = [:],
        attributionWindowHours: Int? = nil, createdAt: Timestamp
    ) {
        self.id = id
        self.projectID = projectID
        self.slug = slug
        self.name = name
        self.iosURL = iosURL
        self.androidURL = androidURL
        self.webURL = webURL
        self.appScheme = appScheme
        self.deepLinkPath = deepLinkPath
        self.deepLinkParameters = deepLinkParameters
        self.utm = utm
        self.attributionWindowHours = attributionWindowHours
        self.createdAt = createdAt
    }

    public static let utmKeys: Set<String> = ["source", "medium", "campaign", "term", "content"]

    public func validate() -> [ValidationProblem] {
        var problems: [ValidationProblem] = []
        if !Self.isSlug(slug) {
            problems.append(.init("slug", "must be 1 to 64 characters of a-z, 0-9, '-' or '_'"))
        } else if ShortCode.isReserved(slug) {
            problems.append(.init("slug", "'\(slug)' is the path of one of the server's own routes; choose another"))
        }
        if name.trimmingCharacters(in: .whitespaces).isEmpty { problems.append(.init("name", "must not be empty")) }
        problems += ProjectSettings.urlProblems([("ios_url", iosURL), ("android_url", androidURL), ("web_url", webURL)])
        problems += Self.appLinkProblems(scheme: appScheme, path: deepLinkPath)
        for key in utm.keys where !Self.utmKeys.contains(key) {
            problems.append(.init("utm.\(key)", "unknown UTM key; use source, medium, campaign, term or content"))
        }
        if let hours = attributionWindowHours, !ProjectSettings.attributionWindowRange.contains(hours) {
            problems.append(.init("attribution_window_hours", "must be between 1 and 2160"))
        }
        return problems
    }

    static func isSlug(_ text: String) -> Bool {
        (1...64).contains(text.count) && text.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// The app scheme and deep-link path of a link or template, each by its own grammar.
    /// Schemes a browser would run or open locally instead of handing to an app: a link whose
    /// interstitial redirects to `javascript:…` is script on our origin.
    static let refusedAppSchemes: Set<String> = ["javascript", "data", "vbscript", "file", "blob", "about", "filesystem", "view-source"]

    static func appLinkProblems(scheme: String?, path: String?) -> [ValidationProblem] {
        var problems: [ValidationProblem] = []
        if let scheme, !URLGrammar.isScheme(scheme) {
            problems.append(.init("app_scheme", "must match ^[a-z][a-z0-9+.-]*$ (at most 64 characters)"))
        } else if let scheme, refusedAppSchemes.contains(scheme.lowercased()) {
            problems.append(.init("app_scheme", "'\(scheme)' runs code or reads files in a browser; use the app's own scheme"))
        }
        if let path, let problem = URLGrammar.deepLinkPathProblem(path) { problems.append(.init("deep_link_path", problem)) }
        return problems
    }
}
