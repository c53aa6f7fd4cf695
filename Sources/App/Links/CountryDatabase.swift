/// Where a click's country comes from when the operator gives a geo database (`geoip_database`):
/// the executable plugs in libmaxminddb's reader (`GeoIP`).
public protocol CountryDatabase: Sendable {
    /// The ISO 3166-1 alpha-2 code, upper-cased; nil when the address is not in the file.
    func country(ofIP address: String) -> String?
}
