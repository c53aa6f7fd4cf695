import Attribution
import Foundation
import HTTP

/// `device_data` (seed 001): what a Linkrunner client knows about the device, turned into the
/// matcher's signals. Unknown keys are ignored; a known key of the wrong type is a 400 naming it.
struct DeviceData: Sendable {
    var idfv: String?
    var advertisingID: String?
    var model: String?
    var systemVersion: String?
    var screen: ScreenSize?
    var screenPoints: (width: Double, height: Double, scale: Double)?
    var locale: String?
    var language: String?
    var timezone: String?
    /// Minutes east of UTC (Linkrunner's `timezone_offset`).
    var utcOffsetMinutes: Int?
    var userAgent: String?
    var referrerClickID: String?
    var appVersion: String?
    /// `adservices_attribution_token` as sent; checked (base64, 4 KB) where it is used, and a
    /// value of the wrong type is no token rather than a failed request.
    var appleAdsToken: String?
    /// `country`, else the region of `locale` (ISO 3166-1 alpha-2).
    var country: String?
    /// Linkrunner 4.1's `consent` and `att_status`, and `odm_info`, as the SDK puts them here.
    var consent: Consent?
    var adSignals: AdSignals?
    /// The Play Install Referrer as it came (its Google click ids are kept for Google Ads).
    var installReferrer: String?
    /// The Play referrer's times, when `device_data` carries them.
    var playReferrer: PlayReferrerTimes?

    init(_ body: JSONFields?) throws {
        guard let body else { return }
        func text(_ key: String) throws -> String? { try body.string(key, path: "device_data.\(key)") }
        idfv = try text("idfv").flatMap(Identifiers.realDeviceIdentifier)
        advertisingID = try (text("idfa") ?? text("gaid") ?? text("aaid")).flatMap(Identifiers.realDeviceIdentifier)
        model = try text("device") ?? text("device_model") ?? text("model")
        systemVersion = try text("system_version") ?? text("os_version")
        locale = try text("locale")
        language = try text("language")
        timezone = try text("timezone").flatMap { TimeZoneNames.isValid($0) ? $0 : nil }
        if let offset = try body.number("timezone_offset", path: "device_data.timezone_offset") {
            guard offset.rounded() == offset, (-720...840).contains(offset) else {
                throw HTTPError.invalidField("device_data.timezone_offset", "must be whole minutes east of UTC, from -720 to 840")
            }
            utcOffsetMinutes = Int(offset)
        }
        userAgent = try text("user_agent")
        appVersion = try text("version")
        if case .string(let token)? = body.fields["adservices_attribution_token"] { appleAdsToken = token }
        // Read leniently: it was ignored before it was kept, and a client's odd value must not fail the call.
        if case .string(let code)? = body.fields["country"] { country = CountryCode.normalized(code) }
        country = country ?? CountryCode.region(ofLocale: locale)
        if let display = try body.object("device_display", path: "device_data.device_display") {
            let width = try display.number("width", path: "device_data.device_display.width")
            let height = try display.number("height", path: "device_data.device_display.height")
            let scale = try display.number("scale", path: "device_data.device_display.scale") ?? 1
            // Zero or less means unknown, as before; beyond any screen is a client bug, said so
            // (1e300 points once trapped converting to pixels and took the server down).
            for (key, value) in [("width", width), ("height", height)] {
                // Zero or negative sides are kept as "unknown" (ScreenSize ignores them), as before.
                if let value, !(value.isFinite && value <= ScreenSize.maximumSide) {
                    throw HTTPError.invalidField("device_data.device_display.\(key)", "must be a number of points up to 20000")
                }
            }
            if let width, let height, width > 0, height > 0, scale > 0, scale <= 10 {
                screenPoints = (width, height, scale)
                screen = ScreenSize(points: width, height, scale: scale)
            }
        }
        // Play Install Referrer: `utm_source=...&click_id=<uuid>` (the store URL we decorated).
        consent = try ConsentFields.consent(body, path: "device_data.")
        if let referrer = try text("install_ref") ?? text("install_referrer") {
            installReferrer = referrer
            let decoded = referrer.removingPercentEncoding ?? referrer
            referrerClickID =
                decoded.split(separator: "&").compactMap { pair -> String? in
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    return parts.count == 2 && parts[0] == "click_id" ? String(parts[1]) : nil
                }.first
        }
        adSignals = try ConsentFields.signals([body], referrer: installReferrer)
        playReferrer = try PlayReferrerFields.times([body])
    }

    func platform(declared: String?) -> UserAgentInfo.Platform? {
        if let platform = UserAgentInfo.Platform(declared: declared) { return platform }
        // Cross-platform wrappers (FLUTTER, EXPO): tell by what the device sent.
        if idfv != nil || model?.lowercased().hasPrefix("iphone") == true || model?.lowercased().hasPrefix("ipad") == true { return .ios }
        if let agent = userAgent {
            let parsed = UserAgentParser.parse(agent).platform
            return parsed == .bot ? nil : parsed
        }
        return nil
    }

    func signals(time: Timestamp, ipKey: String?, declaredPlatform: String?) -> InstallSignals {
        let platform = platform(declared: declaredPlatform)
        var languages: [String] = []
        if let locale { languages.append(locale) }
        if let language { languages.append(language) }
        return InstallSignals(
            time: time, ipKey: ipKey, platform: platform, osVersion: systemVersion,
            deviceClass: Normalize.deviceClass(model: model, platform: platform), screen: screen, timezone: timezone,
            utcOffsetMinutes: utcOffsetMinutes, languages: languages, idfv: idfv, advertisingID: advertisingID,
            referrerClickID: referrerClickID)
    }
}
