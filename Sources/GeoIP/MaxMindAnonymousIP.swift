public import App
public import Attribution
internal import CMaxMindDB

/// Hosting providers and anonymisers by IP address from a MaxMind-format anonymous-IP database
/// (GeoIP2-Anonymous-IP, or a file with its `is_hosting_provider`, `is_anonymous_vpn`,
/// `is_public_proxy`, `is_tor_exit_node` and `is_residential_proxy` flags) the operator provides.
public final class MaxMindAnonymousIP: AddressClassDatabase, @unchecked Sendable {
    private let database: UnsafeMutablePointer<MMDB_s>
    public let databaseType: String

    public init(path: String) throws(MaxMindCountries.OpenError) {
        database = UnsafeMutablePointer<MMDB_s>.allocate(capacity: 1)
        let status = MMDB_open(path, UInt32(MMDB_MODE_MMAP), database)
        guard status == MMDB_SUCCESS else {
            database.deallocate()
            throw MaxMindCountries.OpenError(description: "cannot open the anonymous-IP database \(path): \(String(cString: MMDB_strerror(status)))")
        }
        databaseType = database.pointee.metadata.database_type.map { String(cString: $0) } ?? "unknown"
    }

    deinit {
        MMDB_close(database)
        database.deallocate()
    }

    public func addressClass(ofIP address: String) -> AddressClass? {
        let flags = attributiond_mmdb_anonymous(database, address)
        if flags & 1 != 0 { return .hosting }
        return flags != 0 ? .vpn : nil
    }
}
