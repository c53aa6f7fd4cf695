import Attribution
import Foundation
import JSON
import StoreContracts

/// What one delivery to a platform needs: the fact, the install as it is now, the connection.
struct AdPlatformDeliveryInput: Sendable {
    var conversion: AdConversion
    var facts: AdDeliveryFacts
    var connection: AdPlatformConnection
    /// The project's consent for what the install did not tell.
    var consent: Consent
    var userAgent: String
    /// A test event: the platform's test mode where it has one.
    var isTest = false

    var isIOS: Bool { facts.install.platform == "ios" }
    var isAndroid: Bool { facts.install.platform == "android" }
    var occurredAtSeconds: Double { Double(conversion.occurredAt) / 1000 }
    /// The install's advertising id where consent lets it go.
    var advertisingID: String? { consent.allowsAdvertisingID ? facts.install.advertisingID : nil }
    var ip: String? { consent.allowsIdentifiers ? facts.install.ip : nil }
    var deviceUserAgent: String? { consent.allowsIdentifiers ? facts.install.userAgent : nil }
    /// The id the link's click carried for this platform (`fbclid`, `ttclid`, `ScCid`…).
    func clickID(_ parameters: Set<String>) -> String? {
        guard consent.allowsIdentifiers, let id = facts.install.click?.networkClickID, parameters.contains(id.parameter.lowercased()) else {
            return nil
        }
        return id.value
    }
}

/// Why a delivery is not sent; `reason` is recorded on the job, `counted` labels the refusal in
/// `/metrics` (`attributiond_ad_platform_refused_total`).
struct AdPlatformRefusal: Error, Equatable {
    var reason: String
    var counted: String
}

/// Meta's and Snap's `extinfo`: sixteen strings in a fixed order, empty where unknown.
enum ExtendedDeviceInfo {
    static func values(_ input: AdPlatformDeliveryInput) -> [JSONValue] {
        let facts = input.facts
        let version = facts.install.appVersion ?? ""
        let fields: [String] = [
            input.isIOS ? "i2" : "a2", input.connection.settings["app_package"] ?? "", version, version, facts.osVersion ?? "",
            facts.deviceModel ?? "", facts.locale ?? "", "", "", facts.screenWidth.map(integerText) ?? "",
            facts.screenHeight.map(integerText) ?? "", "", "", "", "", facts.timezone ?? "",
        ]
        return fields.map(JSONValue.string)
    }

    private static func integerText(_ value: Double) -> String { Int64(exactly: value.rounded()).map(String.init) ?? "" }
}

enum QueryText {
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ items: [(String, String)]) -> String {
        items.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")" }.joined(separator: "&")
    }

    static func encodePathSegment(_ segment: String) -> String { segment.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "" }
}
