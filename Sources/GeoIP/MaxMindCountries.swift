public import App
internal import CMaxMindDB

/// Countries by IP address from a MaxMind-format database file (GeoLite2-Country, GeoIP2-Country,
/// DB-IP's lite country file…) the operator provides, read through libmaxminddb: the file is
/// memory-mapped once and looked up without locks (libmaxminddb's lookups only read it).
public final class MaxMindCountries: CountryDatabase, @unchecked Sendable {
    private let database: UnsafeMutablePointer<MMDB_s>
    /// The file's own description (`GeoLite2-Country`…), for the start-up log line.
    public let databaseType: String

    public struct OpenError: Error, CustomStringConvertible {
        public let description: String
    }

    public init(path: String) throws(OpenError) {
        database = UnsafeMutablePointer<MMDB_s>.allocate(capacity: 1)
        let status = MMDB_open(path, UInt32(MMDB_MODE_MMAP), database)
        guard status == MMDB_SUCCESS else {
            database.deallocate()
            throw OpenError(description: "cannot open the geo database \(path): \(String(cString: MMDB_strerror(status)))")
        }
        databaseType = database.pointee.metadata.database_type.map { String(cString: $0) } ?? "unknown"
    }

    deinit {
        MMDB_close(database)
        database.deallocate()
    }

    public func country(ofIP address: String) -> String? {
        var code: (CChar, CChar, CChar) = (0, 0, 0)
        let found = withUnsafeMutableBytes(of: &code) { buffer in
            attributiond_mmdb_country(database, address, buffer.baseAddress!.assumingMemoryBound(to: CChar.self))
        }
        guard found == 1 else { return nil }
        return String(decoding: [UInt8(bitPattern: code.0), UInt8(bitPattern: code.1)], as: UTF8.self).uppercased()
    }
}
