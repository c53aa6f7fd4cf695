import Attribution
import Foundation
import HTTP

/// `POST /admin/v1/projects` and config-declared projects: a name and any settings.
struct ProjectCreation: Decodable {
    var name: String
    var settings: ProjectSettings
    var testMode: Bool

    static let settingKeys: Set<String> = [
        "ios_team_id", "ios_bundle_id", "android_package", "android_sha256", "ios_store_url", "android_store_url",
        "web_url", "attribution_window_hours", "min_confidence", "currency", "signing", "skan", "matching", "sdk_auth",
        "click_id_parameters", "apple_ads", "time_zone", "in_app_escape", "ios_app_store_id", "utm_templates", "long_link_hosts",
        "long_links_per_domain", "play_referrer", "default_consent", "reporting_currency",
        "traffic_quality",
    ]

    init(from decoder: any Decoder) throws {
        try self.init(from: decoder, extraKeys: [])
    }

    init(from decoder: any Decoder, extraKeys: Set<String>) throws {
        try decoder.rejectUnknownKeys(Self.settingKeys.union(["name", "test_mode"]).union(extraKeys))
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        name = try container.decode(String.self, forKey: AnyCodingKey(stringValue: "name"))
        testMode = try container.decodeIfPresent(Bool.self, forKey: AnyCodingKey(stringValue: "test_mode")) ?? false
        settings = try SettingsPatch(from: decoder).applied(to: ProjectSettings())
    }
}

/// `PATCH /admin/v1/projects/{id}`: only the keys sent change; `null` clears an optional one.
struct ProjectUpdate: Decodable {
    var name: String?
    /// Accepted only with the value it already has (it is fixed at creation).
    var testMode: Bool?
    var settings: SettingsPatch

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(ProjectCreation.settingKeys.union(["name", "test_mode"]))
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        name = try container.decodeIfPresent(String.self, forKey: AnyCodingKey(stringValue: "name"))
        testMode = try container.decodeIfPresent(Bool.self, forKey: AnyCodingKey(stringValue: "test_mode"))
        settings = try SettingsPatch(from: decoder)
    }
}

struct SettingsPatch: Decodable {
    var iosTeamID: Patch<String> = .absent
    var iosBundleID: Patch<String> = .absent
    var androidPackage: Patch<String> = .absent
    var androidSHA256: Patch<[String]> = .absent
    var iosStoreURL: Patch<String> = .absent
    var androidStoreURL: Patch<String> = .absent
    var webURL: Patch<String> = .absent
    var attributionWindowHours: Patch<Int> = .absent
    var minConfidence: Patch<Double> = .absent
    var currency: Patch<String> = .absent
    var reportingCurrency: Patch<String> = .absent
    var signing: Patch<SigningMode> = .absent
    var sdkAuth: Patch<SDKAuthentication> = .absent
    var clickIDParameters: Patch<[String]> = .absent
    var appleAds: Patch<Bool> = .absent
    var inAppEscape: Patch<Bool> = .absent
    var iosAppStoreID: Patch<Int64> = .absent
    var timeZone: Patch<String> = .absent
    var skan: Patch<JSONValue> = .absent
    var matching: Patch<MatchingPayload> = .absent
    var utmTemplates: Patch<JSONValue> = .absent
    var longLinkHosts: Patch<[String]> = .absent
    var longLinksPerDomain: Patch<Int> = .absent
    var playReferrer: Patch<PlayReferrerFormat> = .absent
    var defaultConsent: Patch<JSONValue> = .absent
    var trafficQuality: Patch<JSONValue> = .absent

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnyCodingKey.self)
        func key(_ name: String) -> AnyCodingKey { AnyCodingKey(stringValue: name) }
        iosTeamID = try c.decodePatch(String.self, forKey: key("ios_team_id"))
        iosBundleID = try c.decodePatch(String.self, forKey: key("ios_bundle_id"))
        androidPackage = try c.decodePatch(String.self, forKey: key("android_package"))
        androidSHA256 = try c.decodePatch([String].self, forKey: key("android_sha256"))
        iosStoreURL = try c.decodePatch(String.self, forKey: key("ios_store_url"))
        androidStoreURL = try c.decodePatch(String.self, forKey: key("android_store_url"))
        webURL = try c.decodePatch(String.self, forKey: key("web_url"))
        attributionWindowHours = try c.decodePatch(Int.self, forKey: key("attribution_window_hours"))
        minConfidence = try c.decodePatch(Double.self, forKey: key("min_confidence"))
        currency = try c.decodePatch(String.self, forKey: key("currency"))
        reportingCurrency = try c.decodePatch(String.self, forKey: key("reporting_currency"))
        signing = try c.decodePatch(SigningMode.self, forKey: key("signing"))
        sdkAuth = try c.decodePatch(SDKAuthentication.self, forKey: key("sdk_auth"))
        clickIDParameters = try c.decodePatch([String].self, forKey: key("click_id_parameters"))
        appleAds = try c.decodePatch(Bool.self, forKey: key("apple_ads"))
        inAppEscape = try c.decodePatch(Bool.self, forKey: key("in_app_escape"))
        iosAppStoreID = try c.decodePatch(Int64.self, forKey: key("ios_app_store_id"))
        timeZone = try c.decodePatch(String.self, forKey: key("time_zone"))
        skan = try c.decodePatch(JSONValue.self, forKey: key("skan"))
        matching = try c.decodePatch(MatchingPayload.self, forKey: key("matching"))
        utmTemplates = try c.decodePatch(JSONValue.self, forKey: key("utm_templates"))
        longLinkHosts = try c.decodePatch([String].self, forKey: key("long_link_hosts"))
        longLinksPerDomain = try c.decodePatch(Int.self, forKey: key("long_links_per_domain"))
        playReferrer = try c.decodePatch(PlayReferrerFormat.self, forKey: key("play_referrer"))
        defaultConsent = try c.decodePatch(JSONValue.self, forKey: key("default_consent"))
        trafficQuality = try c.decodePatch(JSONValue.self, forKey: key("traffic_quality"))
    }

    /// The settings with this patch applied; keys that cannot be null fall back to their defaults.
    func applied(to current: ProjectSettings) throws -> ProjectSettings {
        let defaults = ProjectSettings()
        var settings = current
        settings.iosTeamID = iosTeamID.apply(to: current.iosTeamID)
        settings.iosBundleID = iosBundleID.apply(to: current.iosBundleID)
        settings.androidPackage = androidPackage.apply(to: current.androidPackage)
        settings.androidSHA256 = androidSHA256.apply(to: current.androidSHA256) ?? []
        settings.iosStoreURL = iosStoreURL.apply(to: current.iosStoreURL)
        settings.androidStoreURL = androidStoreURL.apply(to: current.androidStoreURL)
        settings.webURL = webURL.apply(to: current.webURL)
        settings.attributionWindowHours = attributionWindowHours.apply(to: current.attributionWindowHours) ?? defaults.attributionWindowHours
        settings.minConfidence = minConfidence.apply(to: current.minConfidence) ?? defaults.minConfidence
        settings.currency = currency.apply(to: current.currency) ?? defaults.currency
        settings.reportingCurrency = reportingCurrency.apply(to: current.reportingCurrency) ?? defaults.reportingCurrency
        settings.signing = signing.apply(to: current.signing) ?? defaults.signing
        settings.sdkAuth = sdkAuth.apply(to: current.sdkAuth) ?? defaults.sdkAuth
        settings.clickIDParameters = clickIDParameters.apply(to: current.clickIDParameters) ?? []
        settings.appleAds = appleAds.apply(to: current.appleAds) ?? defaults.appleAds
        settings.inAppEscape = inAppEscape.apply(to: current.inAppEscape) ?? defaults.inAppEscape
        settings.iosAppStoreID = iosAppStoreID.apply(to: current.iosAppStoreID)
        settings.timeZone = timeZone.apply(to: current.timeZone) ?? defaults.timeZone
        settings.longLinkHosts = (longLinkHosts.apply(to: current.longLinkHosts) ?? []).map { $0.lowercased() }
        settings.longLinksPerDomain = longLinksPerDomain.apply(to: current.longLinksPerDomain) ?? defaults.longLinksPerDomain
        settings.playReferrer = playReferrer.apply(to: current.playReferrer) ?? defaults.playReferrer
        switch defaultConsent {
        case .absent: break
        case .null: settings.defaultConsent = Consent()
        case .value(.object(let object)):
            settings.defaultConsent = try ConsentFields.consent(JSONFields(fields: ["consent": .object(object)]), path: "default_") ?? Consent()
        case .value:
            throw HTTPError.invalidField("default_consent", "must be an object {eea, ad_user_data, ad_personalization, tcf_string, att_status}")
        }
        switch trafficQuality {
        case .absent: break
        case .null: settings.trafficQuality = TrafficQualityRules()
        case .value(let value): settings.trafficQuality = try TrafficQualityPayload.applied(value, to: current.trafficQuality)
        }
        settings.matching = matching.apply(to: current.matching.map(MatchingPayload.init)).map(\.overrides)
        switch utmTemplates {
        case .absent: break
        case .null: settings.utmTemplates = []
        case .value(let value):
            do {
                settings.utmTemplates = try UTMTemplate.parse(value)
            } catch {
                throw HTTPError.invalidField(error.problem.key, error.problem.message)
            }
        }
        switch skan {
        case .absent: break
        case .null: settings.skanSchema = nil
        case .value(let schema):
            guard case .object = schema else { throw HTTPError.invalidField("skan", "must be a JSON object") }
            let text = String(decoding: schema.serialized(), as: UTF8.self)
            do {
                _ = try SKANSchemaParser.parse(json: text)
            } catch {
                throw HTTPError(.unprocessableContent, code: "invalid_skan_schema", message: error.description)
            }
            settings.skanSchema = text
        }
        return settings
    }
}

/// A project as the admin API shows it. The token and key appear only in the creation response.
struct ProjectBody: Encodable {
    let id: String
    let name: String
    let token: String?
    let api_key: String?
    let ios_team_id: String?
    let ios_bundle_id: String?
    let android_package: String?
    let android_sha256: [String]
    let ios_store_url: String?
    let android_store_url: String?
    let web_url: String?
    let attribution_window_hours: Int
    let min_confidence: Double
    let currency: String
    let reporting_currency: String
    let signing: String
    let sdk_auth: String
    let click_id_parameters: [String]
    let apple_ads: Bool
    let in_app_escape: Bool
    let ios_app_store_id: Int64?
    /// The id postbacks are matched on: the one set, or the one in the store URL.
    let app_store_id: Int64?
    let time_zone: String
    let utm_templates: JSONValue
    let long_link_hosts: [String]
    let long_links_per_domain: Int
    let play_referrer: String
    let default_consent: Consent
    let traffic_quality: TrafficQualityRules
    let test_mode: Bool
    let skan: JSONValue?
    let matching: MatchingPayload?
    let created_at: String
    let updated_at: String

    init(_ project: Project, token: String? = nil, apiKey: String? = nil) {
        let settings = project.settings
        id = project.id
        name = project.name
        self.token = token
        api_key = apiKey
        ios_team_id = settings.iosTeamID
        ios_bundle_id = settings.iosBundleID
        android_package = settings.androidPackage
        android_sha256 = settings.androidSHA256
        ios_store_url = settings.iosStoreURL
        android_store_url = settings.androidStoreURL
        web_url = settings.webURL
        attribution_window_hours = settings.attributionWindowHours
        min_confidence = settings.minConfidence
        currency = settings.currency
        reporting_currency = settings.reportingCurrency
        signing = settings.signing.rawValue
        sdk_auth = settings.sdkAuth.rawValue
        click_id_parameters = settings.clickIDParameters
        apple_ads = settings.appleAds
        in_app_escape = settings.inAppEscape
        ios_app_store_id = settings.iosAppStoreID
        app_store_id = settings.appStoreID
        time_zone = settings.timeZone
        utm_templates = UTMTemplate.json(settings.utmTemplates)
        long_link_hosts = settings.longLinkHosts
        long_links_per_domain = settings.longLinksPerDomain
        play_referrer = settings.playReferrer.rawValue
        default_consent = settings.defaultConsent
        traffic_quality = settings.trafficQuality
        test_mode = project.testMode
        skan = settings.skanSchema.flatMap { try? JSONBody.decode(JSONValue.self, from: Array($0.utf8)) }
        matching = settings.matching.map(MatchingPayload.init)
        created_at = project.createdAt.iso8601
        updated_at = project.updatedAt.iso8601
    }

    func encode(to encoder: any Encoder) throws {
        // Optional settings are always present (null when unset) so clients see every key.
        var c = encoder.container(keyedBy: AnyCodingKey.self)
        func key(_ name: String) -> AnyCodingKey { AnyCodingKey(stringValue: name) }
        try c.encode(id, forKey: key("id"))
        try c.encode(name, forKey: key("name"))
        if let token { try c.encode(token, forKey: key("token")) }
        if let api_key { try c.encode(api_key, forKey: key("api_key")) }
        try c.encode(ios_team_id, forKey: key("ios_team_id"))
        try c.encode(ios_bundle_id, forKey: key("ios_bundle_id"))
        try c.encode(android_package, forKey: key("android_package"))
        try c.encode(android_sha256, forKey: key("android_sha256"))
        try c.encode(ios_store_url, forKey: key("ios_store_url"))
        try c.encode(android_store_url, forKey: key("android_store_url"))
        try c.encode(web_url, forKey: key("web_url"))
        try c.encode(attribution_window_hours, forKey: key("attribution_window_hours"))
        try c.encode(min_confidence, forKey: key("min_confidence"))
        try c.encode(currency, forKey: key("currency"))
        try c.encode(reporting_currency, forKey: key("reporting_currency"))
        try c.encode(signing, forKey: key("signing"))
        try c.encode(sdk_auth, forKey: key("sdk_auth"))
        try c.encode(click_id_parameters, forKey: key("click_id_parameters"))
        try c.encode(apple_ads, forKey: key("apple_ads"))
        try c.encode(in_app_escape, forKey: key("in_app_escape"))
        try c.encode(ios_app_store_id, forKey: key("ios_app_store_id"))
        try c.encode(app_store_id, forKey: key("app_store_id"))
        try c.encode(time_zone, forKey: key("time_zone"))
        try c.encode(utm_templates, forKey: key("utm_templates"))
        try c.encode(long_link_hosts, forKey: key("long_link_hosts"))
        try c.encode(long_links_per_domain, forKey: key("long_links_per_domain"))
        try c.encode(play_referrer, forKey: key("play_referrer"))
        try c.encode(ConsentBody(default_consent), forKey: key("default_consent"))
        try c.encode(traffic_quality, forKey: key("traffic_quality"))
        try c.encode(test_mode, forKey: key("test_mode"))
        try c.encode(skan, forKey: key("skan"))
        try c.encode(matching, forKey: key("matching"))
        try c.encode(created_at, forKey: key("created_at"))
        try c.encode(updated_at, forKey: key("updated_at"))
    }
}

/// Turns validation problems into one 422 that names every bad key.
func throwIfInvalid(_ problems: [ValidationProblem]) throws {
    guard let first = problems.first else { return }
    let message = problems.count == 1 ? first.description : problems.map(\.description).joined(separator: "; ")
    throw HTTPError(.unprocessableContent, code: "invalid_field", message: message)
}

/// `"matching": {"decay": [{"under_hours": 1, "confidence": 0.85}, …], "candidate_penalty": 0.15}`.
struct MatchingPayload: Codable, Sendable {
    struct Step: Codable, Sendable {
        var under_hours: Double
        var confidence: Double
    }
    var decay: [Step]?
    var candidate_penalty: Double?

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(["decay", "candidate_penalty"])
        let c = try decoder.container(keyedBy: AnyCodingKey.self)
        decay = try c.decodeIfPresent([Step].self, forKey: AnyCodingKey(stringValue: "decay"))
        candidate_penalty = try c.decodeIfPresent(Double.self, forKey: AnyCodingKey(stringValue: "candidate_penalty"))
    }

    init(_ overrides: MatchingOverrides) {
        decay = overrides.decay?.map { Step(under_hours: Double($0.underSeconds) / 3600, confidence: $0.confidence) }
        candidate_penalty = overrides.candidatePenalty
    }

    var overrides: MatchingOverrides {
        // Int64(_:) traps on a Double beyond its range: such a step gets a value validation refuses.
        MatchingOverrides(
            decay: decay?.map { step in
                let seconds = (step.under_hours * 3600).rounded()
                return .init(underSeconds: seconds.isFinite && seconds.magnitude < 1e15 ? Int64(seconds) : .max, confidence: step.confidence)
            },
            candidatePenalty: candidate_penalty)
    }
}

/// `"traffic_quality": {"click_injection": true, "referrer_click_tolerance_seconds": 600,
/// "min_click_to_install_seconds": 10, "refuse_datacenter_clicks": true}`: keys left out keep
/// their current values; unknown keys are refused.
enum TrafficQualityPayload {
    static func applied(_ value: JSONValue, to current: TrafficQualityRules) throws -> TrafficQualityRules {
        guard case .object(let fields) = value else {
            throw HTTPError.invalidField(
                "traffic_quality",
                "must be an object {click_injection, referrer_click_tolerance_seconds, min_click_to_install_seconds, refuse_datacenter_clicks}")
        }
        var rules = current
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            let path = "traffic_quality.\(key)"
            switch (key, value) {
            case ("click_injection", .bool(let on)): rules.clickInjection = on
            case ("refuse_datacenter_clicks", .bool(let on)): rules.refuseDatacenterClicks = on
            case ("carrier_nat_needs_device_signal", .bool(let on)): rules.carrierNATNeedsDeviceSignal = on
            case ("referrer_click_tolerance_seconds", .number(let seconds)) where seconds.rounded() == seconds && abs(seconds) < 1e9:
                rules.referrerClickToleranceSeconds = Int64(seconds)
            case ("min_click_to_install_seconds", .number(let seconds)) where seconds.rounded() == seconds && abs(seconds) < 1e9:
                rules.minClickToInstallSeconds = Int64(seconds)
            case ("flood_clicks_per_address_hour", .number(let clicks)) where clicks.rounded() == clicks && abs(clicks) < 1e9:
                rules.floodClicksPerAddressHour = Int(clicks)
            case ("click_injection", _), ("refuse_datacenter_clicks", _), ("carrier_nat_needs_device_signal", _):
                throw HTTPError.invalidField(path, "must be true or false")
            case ("referrer_click_tolerance_seconds", _), ("min_click_to_install_seconds", _):
                throw HTTPError.invalidField(path, "must be a whole number of seconds")
            case ("flood_clicks_per_address_hour", _): throw HTTPError.invalidField(path, "must be a whole number of clicks")
            default: throw HTTPError.invalidField(path, "unknown key")
            }
        }
        return rules
    }
}
