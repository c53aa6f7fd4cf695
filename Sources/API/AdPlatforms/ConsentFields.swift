import Attribution
import Foundation
import HTTP
import JSON

/// `consent` and the ad-platform signals as every client family may send them
/// (docs/ad-platforms/consent.md): our own `{eea, ad_user_data, ad_personalization, tcf_string,
/// att_status}`, Linkrunner 4.1's `{is_eea, ad_user_data, ad_personalization}` with "1"/"0", and
/// a top-level `att_status`. A value that is not a yes, a no or unknown is a 400 naming the field.
enum ConsentFields {
    static func consent(_ body: JSONFields, path: String) throws -> Consent? {
        var consent = Consent()
        if let object = try body.object("consent", path: path + "consent") {
            let prefix = path + "consent."
            consent.eea = try signal(object.fields["eea"] ?? object.fields["is_eea"], path: prefix + "eea")
            consent.adUserData = try signal(object.fields["ad_user_data"], path: prefix + "ad_user_data")
            consent.adPersonalization = try signal(object.fields["ad_personalization"], path: prefix + "ad_personalization")
            consent.tcfString = try object.string("tcf_string", path: prefix + "tcf_string", maxLength: 8192)
            consent.attStatus = try attStatus(object.fields["att_status"], path: prefix + "att_status")
        }
        if consent.attStatus == nil { consent.attStatus = try attStatus(body.fields["att_status"], path: path + "att_status") }
        return consent.isEmpty ? nil : consent
    }

    /// Yes, no, or unknown (nil): true/false, 1/0, "1"/"0", "true"/"false", "granted"/"denied", "unknown".
    static func signal(_ value: JSONValue?, path: String) throws -> Bool? {
        switch value {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        case .number(let number)? where number == 0 || number == 1: return number == 1
        case .string(let text)?:
            switch text.lowercased() {
            case "1", "true", "granted", "yes": return true
            case "0", "false", "denied", "no": return false
            case "", "unknown": return nil
            default: break
            }
        default: break
        }
        throw HTTPError.invalidField(path, "must be true, false, \"granted\", \"denied\", \"1\", \"0\" or \"unknown\"")
    }

    /// A name or a number of `ATTrackingManager.AuthorizationStatus`; anything else is a 400.
    static func attStatus(_ value: JSONValue?, path: String) throws -> ATTStatus? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: if let status = ATTStatus(wire: text) { return status }
        case .number(let number)? where number.rounded() == number && (0...3).contains(number):
            return ATTStatus(wire: String(Int(number)))
        default: break
        }
        throw HTTPError.invalidField(path, "must be authorized, denied, restricted or not_determined (or 3, 2, 1, 0)")
    }

    /// `odm_info`, `meta_install_referrer` and the Play referrer's Google click ids, from the
    /// install body (and, for Linkrunner, its `device_data`).
    static func signals(_ bodies: [JSONFields], referrer: String?) throws -> AdSignals? {
        var signals = AdSignals()
        for body in bodies {
            signals.odmInfo = try signals.odmInfo ?? body.string("odm_info", maxLength: AdSignals.maximumLength)
            signals.metaInstallReferrer =
                try signals.metaInstallReferrer ?? body.string("meta_install_referrer", maxLength: AdSignals.maximumLength)
            signals.metaCampaignIDs = try signals.metaCampaignIDs ?? body.string("campaign_ids", maxLength: AdSignals.maximumLength)
        }
        if let referrer {
            let decoded = referrer.removingPercentEncodingLeniently
            let ids = AdSignals.googleClickIDs(inReferrer: decoded)
            signals.referrerGclid = ids.gclid
            signals.referrerGbraid = ids.gbraid
        }
        return signals.isEmpty ? nil : signals
    }
}

extension String {
    /// Percent-decoded, or as it is when it does not decode.
    var removingPercentEncodingLeniently: String { removingPercentEncoding ?? self }
}
