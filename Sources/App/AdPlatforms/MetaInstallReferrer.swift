import Attribution
import Cryptography
import Foundation
import JSON

/// Meta's install referrer (docs/ad-platforms/meta.md): the app reads it from Meta's apps on
/// Android and sends it as it came, `utm_content` holding `{"source": {"data", "nonce"}, "t"}`
/// in hex; decrypted with the app's key (AES-256-GCM) it names the campaign, ad set and ad (Meta's
/// older names: campaign group, campaign, ad group) — a deterministic claim.
enum MetaInstallReferrer {
    /// The claim and the decrypted text, or nil when this is no referrer of Meta's or the key does
    /// not open it.
    static func decrypt(_ referrer: String, keyHex: String) -> (claim: AdPlatformClaim, plaintext: String)? {
        guard let key = AESGCM.bytes(hex: keyHex), key.count == 32, case .object(let content)? = utmContent(referrer),
            case .object(let source)? = content["source"], case .string(let dataHex)? = source["data"],
            case .string(let nonceHex)? = source["nonce"], let sealed = AESGCM.bytes(hex: dataHex), let nonce = AESGCM.bytes(hex: nonceHex),
            let opened = AESGCM.open(sealed, key: key, nonce: nonce),
            case .object(let fields)? = try? JSONDecoder().decode(JSONValue.self, from: Data(opened))
        else { return nil }
        func text(_ key: String) -> String? {
            switch fields[key] {
            case .string(let value)?: value
            case .number(let value)?: value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : nil
            default: nil
            }
        }
        var engagedAt: Timestamp?
        if case .number(let seconds)? = content["t"], seconds > 0, let milliseconds = Int64(exactly: (seconds * 1000).rounded()) {
            engagedAt = Timestamp(milliseconds: milliseconds)
        }
        let viewThrough: Bool = if case .bool(true)? = fields["is_view_through"] { true } else { false }
        let claim = AdPlatformClaim(
            source: .metaInstallReferrer, campaignID: text("campaign_group_id"), campaignName: text("campaign_group_name"),
            adGroupID: text("campaign_id"), adGroupName: text("campaign_name"), adID: text("ad_id") ?? text("adgroup_id"),
            interaction: viewThrough ? "view_through" : "click_through", engagedAt: engagedAt)
        return (claim, String(decoding: opened, as: UTF8.self))
    }

    /// `utm_content`'s JSON, from the whole referrer (`utm_source=…&utm_content=%7B…`) or from
    /// the JSON itself.
    static func utmContent(_ referrer: String) -> JSONValue? {
        var text = referrer.trimmingCharacters(in: .whitespaces)
        if !text.hasPrefix("{") {
            guard
                let pair = text.split(separator: "&").first(where: { $0.hasPrefix("utm_content=") }),
                let decoded = String(pair.dropFirst("utm_content=".count)).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            else { return nil }
            text = decoded
        }
        return try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }
}
