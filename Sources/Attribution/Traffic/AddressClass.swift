/// What kind of network an address belongs to, as far as the operator's lists tell
/// (docs/traffic-quality.md). Matching treats each kind differently: an address that many
/// strangers share is never a match key on its own.
public struct AddressClass: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// Apple's iCloud Private Relay egress (Safari's taps, never an app's HTTPS calls).
    public static let privateRelay = AddressClass(rawValue: "private_relay")
    /// RFC 6598 shared address space (100.64.0.0/10) and operators' mobile carrier ranges.
    public static let carrierNAT = AddressClass(rawValue: "carrier_nat")
    /// Cloud and hosting providers: no person taps a link from a server.
    public static let hosting = AddressClass(rawValue: "hosting")
    /// Commercial VPN and anonymising proxy exits.
    public static let vpn = AddressClass(rawValue: "vpn")

    public var description: String { rawValue }

    /// How matching treats an address of this class.
    public enum Treatment: Sendable, Equatable {
        /// A household's or a phone's own network: the address is a match key.
        case ordinary
        /// Shared by many strangers at once (relay, VPN): never a match key on its own.
        case sharedEgress
        /// Shared by the users of one carrier gateway: a key, but only with a device signal agreeing.
        case carrierNAT
        /// Not a person: its clicks never win.
        case nonHuman
    }

    public var treatment: Treatment {
        switch self {
        case .privateRelay, .vpn: .sharedEgress
        case .carrierNAT: .carrierNAT
        case .hosting: .nonHuman
        default: .ordinary
        }
    }

    /// Lower-case letters, digits and `_`, 1 to 32 of them: a class name an operator's list may give.
    public static func isValidName(_ name: String) -> Bool {
        (1...32).contains(name.utf8.count)
            && name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
    }
}

/// The class of one address, and the region its list names (Apple's relay list gives each
/// egress prefix a country and region).
public struct AddressInfo: Sendable, Hashable {
    public var addressClass: AddressClass
    /// ISO 3166-1 alpha-2, upper-cased, when the list names one.
    public var country: String?
    /// ISO 3166-2 (`US-CA`), when the list names one.
    public var region: String?

    public init(addressClass: AddressClass, country: String? = nil, region: String? = nil) {
        self.addressClass = addressClass
        self.country = country
        self.region = region
    }
}
