import Attribution
import Foundation
import JSON
import StoreContracts

/// Google Ads' App Conversion Tracking and Remarketing API (docs/ad-platforms/google.md): a POST
/// to `pagead/conversion/app/1.0` with everything in the query, the device's User-Agent and
/// address in headers; the answer says whether Google attributes the conversion. The
/// cross-network call tells Google who won an install Google also claimed.
enum GoogleAdsRequest {
    static let conversionPath = "pagead/conversion/app/1.0"
    static let crossNetworkPath = "pagead/conversion/app/1.0/cross_network"

    static func request(_ input: AdPlatformDeliveryInput, baseURL: String, crossNetwork: (adEventID: String, attributed: Bool)? = nil)
        -> Result<OutboundRequest, AdPlatformRefusal>
    {
        let connection = input.connection
        guard let token = connection.secrets["developer_token"] else {
            return .failure(.init(reason: "the Google Ads connection has no developer_token", counted: "not_configured"))
        }
        let platformKey = input.isIOS ? "link_id_ios" : "link_id_android"
        guard input.isIOS || input.isAndroid, let linkID = connection.settings[platformKey] else {
            return .failure(
                .init(
                    reason: "no Google link id for the install's platform (\(input.facts.install.platform ?? "unknown"))",
                    counted: "no_link_id"))
        }
        if input.consent.googleRefuses {
            return .failure(
                .init(
                    reason: "refused: consent (ad_user_data not granted for a user under European rules, or denied); Google would discard it",
                    counted: "consent"))
        }
        guard let type = connection.eventMapping.eventName(for: input.conversion, on: .google) else {
            return .failure(.init(reason: "not sent: the event mapping leaves it out", counted: "not_mapped"))
        }
        let facts = input.facts
        let deviceID = input.advertisingID ?? (input.isIOS ? facts.install.idfv : nil)
        guard let deviceID else {
            return .failure(.init(reason: "refused: no device id Google can use (no advertising id, or not allowed)", counted: "no_device_id"))
        }
        let standard = AdEventMapping.googleStandardTypes.contains(type)
        var items: [(String, String)] = [
            ("dev_token", token), ("link_id", linkID), ("app_event_type", standard ? type : "custom"),
        ]
        if !standard { items.append(("app_event_name", type)) }
        let idType = input.advertisingID == nil ? "idfv" : (input.isIOS ? "idfa" : "advertisingid")
        items += [
            ("rdid", deviceID), ("id_type", idType), ("lat", input.advertisingID == nil ? "1" : "0"),
            ("app_version", facts.install.appVersion ?? "0"), ("os_version", facts.osVersion ?? "0"),
            // No Google SDK in the app: the app's version stands for it, as Google asks.
            ("sdk_version", facts.install.appVersion ?? "0"), ("timestamp", String(format: "%.6f", input.occurredAtSeconds)),
        ]
        if let revenue = input.conversion.revenue, revenue.isFinite {
            items.append(("value", PostbackMacros.number(revenue)))
            if let currency = input.conversion.currency { items.append(("currency_code", currency)) }
        }
        let consent = input.consent
        if let eea = consent.eea { items.append(("eea", eea ? "1" : "0")) }
        if let adUserData = consent.adUserData { items.append(("ad_user_data", adUserData ? "1" : "0")) }
        if let personalization = consent.adPersonalization { items.append(("ad_personalization", personalization ? "1" : "0")) }
        if input.isAndroid, let gclid = facts.signals.referrerGclid ?? input.clickID(["gclid"]) {
            items.append(("market_referrer_gclid", gclid))
        }
        if input.isIOS, input.conversion.kind == .install, let odm = facts.signals.odmInfo { items.append(("odm_info", odm)) }
        if let crossNetwork {
            items += [("ad_event_id", crossNetwork.adEventID), ("attributed", crossNetwork.attributed ? "1" : "0")]
        }
        var headers: [(name: String, value: String)] = [("user-agent", facts.install.userAgent ?? input.userAgent)]
        if let ip = input.ip { headers.append(("x-forwarded-for", ip)) }
        let path = crossNetwork == nil ? conversionPath : crossNetworkPath
        return .success(
            OutboundRequest(
                method: "POST", url: baseURL + path + "?" + QueryText.encode(items), headers: headers, body: [], keptResponseBytes: 16_384))
    }

    /// Google's answer: whether it attributes the conversion, and its ad event when it does.
    static func claim(fromAnswer body: String) -> (attributed: Bool, claim: AdPlatformClaim?)? {
        guard case .object(let answer)? = try? JSONDecoder().decode(JSONValue.self, from: Data(body.utf8)) else { return nil }
        guard case .bool(let attributed)? = answer["attributed"] else { return (false, nil) }
        guard attributed, case .array(let events)? = answer["ad_events"], case .object(let event)? = events.first else {
            return (attributed, nil)
        }
        func text(_ key: String) -> String? {
            switch event[key] {
            case .string(let value)?: value
            case .number(let value)?: value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
            default: nil
            }
        }
        var engagedAt: Timestamp?
        // A time the platform cannot mean (beyond Int64 milliseconds) is no time.
        if case .number(let seconds)? = event["timestamp"], seconds > 0, let milliseconds = Int64(exactly: (seconds * 1000).rounded()) {
            engagedAt = Timestamp(milliseconds: milliseconds)
        }
        return (
            true,
            AdPlatformClaim(
                source: .googleAds, campaignID: text("campaign_id"), campaignName: text("campaign_name"), adGroupID: text("ad_group_id"),
                adGroupName: text("ad_group_name"), adID: text("creative_id"), interaction: text("interaction_type"), engagedAt: engagedAt,
                adEventID: text("ad_event_id"))
        )
    }
}
