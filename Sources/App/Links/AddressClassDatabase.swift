public import Attribution

/// Where an address's class comes from besides the operator's lists (`anonymous_ip_database`): the
/// executable plugs in libmaxminddb's reader of an anonymous-IP file (`GeoIP`).
public protocol AddressClassDatabase: Sendable {
    /// `hosting`, `vpn` (VPN exits, public proxies, Tor exits, residential proxies), or nil.
    func addressClass(ofIP address: String) -> AddressClass?
}
