import App
import Attribution
import Cryptography
import HTTP
import JSON
import StoreContracts

/// The body of `POST /v1/install` and `POST /v1/open` as Branch's iOS and Android SDKs build it
/// (docs/sdk-apis.md, "Branch"): device fields at the top level (`hardware_id`, `os`,
/// `screen_width`…), the URL the app was opened with, and on an open the tokens of the first
/// answer. Unknown keys are ignored; a known key of the wrong type is a 400 naming it.
struct BranchSessionRequest {
    var branchKey: String?
    var platform: UserAgentInfo.Platform?
    var osVersion: String?
    var model: String?
    /// iOS's IDFV (`hardware_id` with `hardware_id_type: vendor_id`, or `ios_vendor_id`).
    var idfv: String?
    /// Android's hardware id, or an iOS random one: only recognises the device's repeated calls.
    var deviceID: String?
    var advertisingID: String?
    /// Native pixels.
    var screen: ScreenSize?
    var language: String?
    var userAgent: String?
    var appVersion: String?
    var developerIdentity: String?
    /// The URL the app was opened with: a universal link, an App Link, a URI scheme's.
    var openedURL: String?
    /// A click id the app got with its link (`link_click_id` of a URI scheme or App Link).
    var linkIdentifier: String?
    /// What an earlier answer gave the app: this server's install id.
    var bundleToken: String?
    var debug: Bool
    var consent: Consent?
    var installReferrer: String?
    var playReferrer: PlayReferrerTimes?
    /// iOS's AdServices token (`apple_attribution_token`): the install's Apple Ads claim.
    var appleAttributionToken: String?

    init(_ body: JSONFields) throws {
        branchKey = try body.string("branch_key", maxLength: 64)
        let os = try body.string("os", maxLength: 32)
        platform = UserAgentInfo.Platform(declared: os)
        // Android's `os_version` is its API level (a number; `34`), its release `os_version_android`.
        if case .number = body.fields["os_version"] {
            osVersion = try body.string("os_version_android", maxLength: 32)
        } else {
            osVersion = try body.string("os_version_android", maxLength: 32) ?? body.string("os_version", maxLength: 32)
        }
        model = try body.string("model", maxLength: 64)
        let hardwareID = try body.string("hardware_id", maxLength: 128).flatMap(Identifiers.realDeviceIdentifier)
        let hardwareType = try body.string("hardware_id_type", maxLength: 32)
        let vendorID = try body.string("ios_vendor_id", maxLength: 64).flatMap(Identifiers.realDeviceIdentifier)
        if platform == .ios {
            idfv = (vendorID ?? (hardwareType == "vendor_id" ? hardwareID : nil)).flatMap { Identifiers.isUUID($0) ? $0.uppercased() : nil }
            deviceID = idfv == nil ? hardwareID : nil
        } else {
            deviceID = hardwareID
        }
        if let ids = try body.object("advertising_ids") {
            advertisingID = try (ids.string("aaid", maxLength: 64) ?? ids.string("idfa", maxLength: 64)).flatMap(Identifiers.realDeviceIdentifier)
        }
        let width = try Self.number(body, "screen_width")
        let height = try Self.number(body, "screen_height")
        for (key, value) in [("screen_width", width), ("screen_height", height)] {
            if let value, !(value == 0 || ScreenSize.isPlausibleSide(value)) {
                throw HTTPError.invalidField(key, "must be a number of pixels from 1 to 20000")
            }
        }
        // Checked above to be 0 or 1…20000; converted without trapping all the same.
        if let width = width.flatMap({ Int(exactly: $0.rounded()) }), let height = height.flatMap({ Int(exactly: $0.rounded()) }), width > 0,
            height > 0
        {
            screen = ScreenSize(width: width, height: height)
        }
        language = try body.string("language", maxLength: 35).flatMap { LanguageTag.isPlausible($0) ? $0 : nil }
        userAgent = try body.string("user_agent", maxLength: 1024)
        appVersion = try body.string("app_version", maxLength: 64)
        developerIdentity = try body.identifier("identity")
        openedURL =
            try body.string("universal_link_url", maxLength: 4096) ?? body.string("android_app_link_url", maxLength: 4096)
            ?? body.string("external_intent_uri", maxLength: 4096)
        linkIdentifier = try body.identifier("link_identifier")
        bundleToken = try body.identifier("randomized_bundle_token") ?? body.identifier("identity_id")
        switch body.fields["debug"] {
        case nil, .null?: debug = false
        case .bool(let flag)?: debug = flag
        case .number(let number)?: debug = number != 0
        default: throw HTTPError.badRequest("field 'debug': expected true or false", code: "invalid_field")
        }
        var consent = Consent()
        consent.eea = try ConsentFields.signal(body.fields["dma_eea"], path: "dma_eea")
        consent.adPersonalization = try ConsentFields.signal(body.fields["dma_ad_personalization"], path: "dma_ad_personalization")
        consent.adUserData = try ConsentFields.signal(body.fields["dma_ad_user_data"], path: "dma_ad_user_data")
        self.consent = consent.isEmpty ? nil : consent
        installReferrer = try body.string("install_referrer_extras", maxLength: 4096)
        playReferrer = try PlayReferrerFields.times([body])
        // Checked (base64, 4 KB) where it is used; a value of the wrong type is no token.
        if case .string(let token)? = body.fields["apple_attribution_token"] { appleAttributionToken = token }
    }

    /// Numbers the SDKs send either as JSON numbers or as their text (Android's older builds).
    static func number(_ body: JSONFields, _ key: String) throws -> Double? {
        if case .string(let text)? = body.fields[key] {
            guard let value = Double(text) else { throw HTTPError.badRequest("field '\(key)': expected a number", code: "invalid_field") }
            return value
        }
        return try body.number(key)
    }

    /// The click id the Play Install Referrer carried back (`click_id=` of our redirect).
    var referrerClickID: String? {
        guard let installReferrer else { return nil }
        let decoded = installReferrer.removingPercentEncodingLeniently
        return decoded.split(separator: "&").compactMap { pair -> String? in
            let parts = pair.split(separator: "=", maxSplits: 1)
            return parts.count == 2 && parts[0] == "click_id" ? String(parts[1]) : nil
        }.first
    }

    /// The install as the matcher sees it: the IDFV on iOS (the one install across SDK
    /// families), the hardware id on Android, else the fingerprint of the network and signals.
    func report(project: Project, request: HTTPRequest, services: Services) -> InstallReport {
        let client = services.clientIP.clientAddress(of: request)
        let network = services.addressLists.network(of: client)
        let ipKey = network.ipKey
        let agent = userAgent ?? request.headers["User-Agent"]
        let parsed = UserAgentParser.parse(agent)
        let platform = platform ?? (parsed.platform == .ios || parsed.platform == .android ? parsed.platform : nil)
        let languages = language.map { [$0] } ?? []
        let signals = InstallSignals(
            time: services.now(for: project), ipKey: ipKey, platform: platform, osVersion: osVersion ?? parsed.osVersion,
            deviceClass: Normalize.deviceClass(model: model, platform: platform), screen: screen, languages: languages, idfv: idfv,
            advertisingID: advertisingID, referrerClickID: referrerClickID)
        let fingerprint =
            idfv == nil && deviceID == nil
            ? Secrets.sha256Hex(
                InstallIdentity.fingerprintSource(
                    ipKey: ipKey, userAgent: agent, timezone: nil, language: language, screen: screen, platformVersion: osVersion))
            : nil
        var report = InstallReport(
            projectID: project.id, reporter: "branch", identity: InstallIdentity(deviceID: deviceID, fingerprint: fingerprint, idfv: idfv),
            signals: signals, deviceModel: model, appVersion: appVersion, ip: client?.ipString, userAgent: agent?.prefix(characters: 1024),
            country: services.countries.country(of: request, resolver: services.clientIP) ?? CountryCode.region(ofLocale: language),
            isTest: debug || (branchKey.map(APIKeyFormat.isTestKey) ?? false), consent: consent)
        report.classify(network, lists: services.addressLists, playReferrer: playReferrer)
        return report
    }
}
