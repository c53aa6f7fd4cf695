public import App
import HTTP

/// A tap's country: the header a trusted proxy sets (`country_header`, such as Cloudflare's
/// `CF-IPCountry`: the proxy has already looked the address up), else the operator's geo
/// database (`geoip_database`); nil when neither is configured or knows the address.
public struct TapCountries: Sendable {
    let database: (any CountryDatabase)?
    let header: String?

    public init(database: (any CountryDatabase)? = nil, header: String? = nil) {
        self.database = database
        self.header = header.flatMap { $0.isEmpty ? nil : $0 }
    }

    var isConfigured: Bool { database != nil || header != nil }

    func country(of request: HTTPRequest, resolver: ClientIPResolver) -> String? {
        guard isConfigured else { return nil }
        if let header, let peer = request.remoteAddress, resolver.isTrusted(peer), let value = request.headers[header],
            let code = Self.code(value)
        {
            return code
        }
        guard let database, let address = resolver.clientAddress(of: request)?.ipString else { return nil }
        return database.country(ofIP: address)
    }

    /// Two letters, upper-cased; proxies' placeholders (`XX` unknown, `T1` Tor) are none.
    static func code(_ value: String) -> String? {
        let bytes = Array(value.utf8)
        guard bytes.count == 2, bytes.allSatisfy({ ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A }) else { return nil }
        let code = value.uppercased()
        return code == "XX" ? nil : code
    }
}
