/// What an install's user agreed to, as the SDKs and the admin API tell it. Every signal may be
/// unknown (nil): unknown is never read as granted (docs/ad-platforms/consent.md).
public struct Consent: Sendable, Equatable, Codable {
    /// Whether European rules (GDPR, UK GDPR, Swiss FADP, the DMA) apply to the user.
    public var eea: Bool?
    /// Whether the user's data may be sent to ad platforms for advertising.
    public var adUserData: Bool?
    /// Whether it may be used to personalise ads.
    public var adPersonalization: Bool?
    /// The IAB TCF v2 consent string, passed on as it came.
    public var tcfString: String?
    public var attStatus: ATTStatus?

    public init(
        eea: Bool? = nil, adUserData: Bool? = nil, adPersonalization: Bool? = nil, tcfString: String? = nil, attStatus: ATTStatus? = nil
    ) {
        self.eea = eea
        self.adUserData = adUserData
        self.adPersonalization = adPersonalization
        self.tcfString = tcfString
        self.attStatus = attStatus
    }

    /// The signals' names in JSON everywhere (storage, the admin API, webhooks).
    public enum CodingKeys: String, CodingKey {
        case eea
        case adUserData = "ad_user_data"
        case adPersonalization = "ad_personalization"
        case tcfString = "tcf_string"
        case attStatus = "att_status"
    }

    public var isEmpty: Bool { self == Consent() }

    /// This consent with what `newer` knows put over it, signal by signal.
    public func updated(with newer: Consent) -> Consent {
        Consent(
            eea: newer.eea ?? eea, adUserData: newer.adUserData ?? adUserData,
            adPersonalization: newer.adPersonalization ?? adPersonalization, tcfString: newer.tcfString ?? tcfString,
            attStatus: newer.attStatus ?? attStatus)
    }

    /// The install's own signals, the project's default where the install said nothing.
    public func resolved(default fallback: Consent) -> Consent { fallback.updated(with: self) }

    /// Whether anything that identifies the user (address, user agent, install id, click ids) may
    /// go to a platform: not when the user denied sharing their data.
    public var allowsIdentifiers: Bool { adUserData != false }

    /// Whether the device's advertising id may go too: not when identifiers may not, nor when App
    /// Tracking Transparency said anything but yes.
    public var allowsAdvertisingID: Bool { allowsIdentifiers && (attStatus == nil || attStatus == .authorized) }

    /// Whether Google would discard an upload of this user's conversion: a denied `ad_user_data`,
    /// or European rules without a granted one (unknown included).
    public var googleRefuses: Bool { adUserData == false || (eea == true && adUserData != true) }

    /// Whether Meta should process the event under Limited Data Use (a user who denied
    /// personalisation, or a denied data sharing).
    public var limitedDataUse: Bool { adPersonalization == false || adUserData == false }
}

/// App Tracking Transparency's answer on iOS (`ATTrackingManager.AuthorizationStatus`).
public enum ATTStatus: String, Sendable, Codable, CaseIterable {
    case authorized, denied, restricted
    case notDetermined = "not_determined"

    /// Reads the names and numbers SDKs send: `authorized`, `AUTHORIZED`, `3`, `notDetermined`…
    public init?(wire: String) {
        let lowered = String(wire.lowercased().filter { $0 != "_" })
        switch lowered {
        case "authorized", "3": self = .authorized
        case "denied", "2": self = .denied
        case "restricted", "1": self = .restricted
        case "notdetermined", "0": self = .notDetermined
        default: return nil
        }
    }

    /// Whether the IDFA may be used: only when authorised.
    public var allowsTracking: Bool { self == .authorized }

    /// TikTok's spelling.
    public var tiktokValue: String {
        switch self {
        case .authorized: "AUTHORIZED"
        case .denied: "DENIED"
        case .restricted: "RESTRICTED"
        case .notDetermined: "NOT_DETERMINED"
        }
    }
}
