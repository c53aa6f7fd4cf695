import App
import Attribution
import Cryptography
import HTTP
import StoreContracts

/// `POST /v1/attribution/match`'s body (docs/sdk-apis.md, "WarpLink"), checked field by field and
/// turned into the matcher's install report. Unknown keys are ignored; a known key of the wrong
/// type is a 400, a value out of range a 422, each naming the field.
struct MatchRequest {
    enum FingerprintVersion: String {
        case enrichedWithZone = "enriched_tz"
        case enriched, basic
    }

    var platform: UserAgentInfo.Platform
    var fingerprintVersion: FingerprintVersion
    var sdkVersion: String?
    var deviceID: String?
    var referrerLinkID: String?
    var acceptLanguage: String?
    /// Minutes east of UTC (the body's JavaScript-signed `timezone_offset`, negated).
    var utcOffsetMinutes: Int?
    var timezone: String?
    var screenPoints: ScreenSize?
    var userAgent: String?
    var consent: Consent?
    var adSignals: AdSignals?
    var playReferrer: PlayReferrerTimes?

    init(_ body: JSONFields) throws {
        let declared = try body.requiredString("platform", maxLength: 32)
        guard let platform = UserAgentInfo.Platform(declared: declared), platform == .ios || platform == .android else {
            throw HTTPError.invalidField("platform", "must be 'ios' or 'android'")
        }
        self.platform = platform
        // WarpLink's own server refuses a body without it; every SDK version sends it.
        let version = try body.requiredString("fingerprint_version", maxLength: 32)
        guard let fingerprintVersion = FingerprintVersion(rawValue: version) else {
            throw HTTPError.invalidField("fingerprint_version", "must be 'enriched_tz', 'enriched' or 'basic'")
        }
        self.fingerprintVersion = fingerprintVersion
        sdkVersion = try body.string("sdk_version", maxLength: 64)
        deviceID = try body.string("device_id", maxLength: 128).flatMap(Identifiers.realDeviceIdentifier)
        if let referrer = try body.string("referrer", maxLength: 64), !referrer.isEmpty {
            guard Identifiers.isUUID(referrer) else { throw HTTPError.invalidField("referrer", "must be a link id (a UUID)") }
            referrerLinkID = referrer.lowercased()
        }
        acceptLanguage = try body.string("accept_language", maxLength: 256)
        if let offset = try body.number("timezone_offset") {
            guard offset.rounded() == offset, (-840...720).contains(offset) else {
                throw HTTPError.invalidField("timezone_offset", "must be whole minutes west of UTC, from -840 to 720")
            }
            utcOffsetMinutes = offset == 0 ? 0 : -Int(offset)
        }
        // A zone this machine does not know is left out rather than failing the match.
        timezone = try body.string("timezone", maxLength: 64).flatMap { TimeZoneNames.isValid($0) ? $0 : nil }
        let width = try body.number("screen_width")
        let height = try body.number("screen_height")
        for (key, value) in [("screen_width", width), ("screen_height", height)] {
            // Zero is what the SDK sends when it has no screen to read: unknown, not wrong.
            if let value, !(value == 0 || ScreenSize.isPlausibleSide(value)) {
                throw HTTPError.invalidField(key, "must be a number of points from 1 to 20000")
            }
        }
        screenPoints = ScreenSize(points: width, height, scale: 1)
        userAgent = try body.string("user_agent", maxLength: 512)
        switch body.fields["is_reinstall"] {
        case nil, .null?, .bool?: break
        default: throw HTTPError.badRequest("field 'is_reinstall': expected a boolean", code: "invalid_field")
        }
        _ = try body.string("app_package_name", maxLength: 256)
        _ = try body.string("app_bundle_id", maxLength: 256)
        consent = try ConsentFields.consent(body, path: "")
        adSignals = try ConsentFields.signals([body], referrer: try body.string("install_referrer", maxLength: 4096))
        playReferrer = try PlayReferrerFields.times([body])
    }

    /// Languages of an `Accept-Language`-like list (`en-GB,fr;q=0.8`), at most ten plausible tags.
    var languages: [String] {
        guard let acceptLanguage else { return [] }
        return acceptLanguage.split(separator: ",").compactMap { part -> String? in
            let tag = String(part.split(separator: ";", maxSplits: 1).first ?? "").trimmingWhitespace()
            return LanguageTag.isPlausible(tag) ? tag : nil
        }.prefix(10).map { $0 }
    }

    /// The install as the matcher sees it. `device_id` is iOS's IDFV (deterministic against app
    /// opens that carried it, and the same install whichever SDK family reported it); on Android
    /// it only recognises the device's repeated calls.
    func report(project: Project, request: HTTPRequest, services: Services) -> InstallReport {
        let client = services.clientIP.clientAddress(of: request)
        let network = services.addressLists.network(of: client)
        let ipKey = network.ipKey
        let idfv = platform == .ios ? deviceID : nil
        let languages = languages
        let signals = InstallSignals(
            time: services.now(for: project), ipKey: ipKey, platform: platform, screenPoints: screenPoints,
            timezone: timezone, utcOffsetMinutes: utcOffsetMinutes, languages: languages, idfv: idfv,
            referrerLinkID: referrerLinkID)
        // One identifier is enough to find the device again: iOS's IDFV (its own index), else
        // Android's device id, else the fingerprint. Each more would be one more random index
        // entry written per install (measured: docs/performance.md, "Installs").
        let identity = InstallIdentity(
            deviceID: idfv == nil ? deviceID : nil,
            fingerprint: deviceID == nil ? fingerprint(ipKey: ipKey, languages: languages) : nil, idfv: idfv)
        var report = InstallReport(
            projectID: project.id, reporter: "warplink", identity: identity, signals: signals,
            appVersion: nil, ip: client?.ipString,
            userAgent: (userAgent ?? request.headers["User-Agent"]).map { $0.prefix(characters: 512) },
            country: services.countries.country(of: request, resolver: services.clientIP) ?? CountryCode.region(ofLocale: languages.first),
            isTest: BearerToken.from(request).map(APIKeyFormat.isTestKey) ?? false, consent: consent, adSignals: adSignals)
        report.classify(network, lists: services.addressLists, playReferrer: playReferrer)
        return report
    }

    /// What makes a repeated call from one device recognisable without a device id: the same
    /// network and the same signals (or the same referred link). Nil when the body carries
    /// nothing but the network, which every device behind it shares.
    func fingerprint(ipKey: String?, languages: [String]) -> String? {
        let zone = timezone ?? utcOffsetMinutes.map { "UTC\($0)" }
        guard referrerLinkID != nil || !languages.isEmpty || zone != nil || screenPoints != nil else { return nil }
        let source = InstallIdentity.fingerprintSource(
            ipKey: ipKey, userAgent: "warplink/\(platform.rawValue)", timezone: zone, language: languages.joined(separator: ","),
            screen: screenPoints, platformVersion: referrerLinkID)
        return Secrets.sha256Hex(source)
    }
}
