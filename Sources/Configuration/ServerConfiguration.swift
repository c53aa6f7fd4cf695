public import API
public import App
import Attribution
import Foundation
public import HTTP
public import JSON
public import Store
import StoreContracts

/// Everything `attributiond` can be configured with. Sources, later ones winning: built-in
/// defaults, the JSON file, `ATTRIBUTIOND_*` environment variables, command-line flags.
/// Every key is documented in config/README.md.
public struct ServerConfiguration {
    public init() {}

    public var host = "0.0.0.0"
    public var port: UInt16 = 8080
    public var db = "./data/attributiond.sqlite"
    /// A `postgres://` (or `postgresql://`) URL: the database is PostgreSQL, not the file `db`.
    public var postgresURL: String?
    /// A PostgreSQL replica for the stats and the dashboard's reads (`database_read_url`).
    public var postgresReadURL: String?
    /// PostgreSQL transactions committing side by side (`database_write_lanes`).
    public var postgresWriteLanes = 4
    public var adminKey: String?
    /// A bearer token that reads `/metrics` and nothing else (`metrics_token`).
    public var metricsToken: String?
    /// The links' public base URL; when unset, each request's Host is used.
    public var publicURL: String?
    /// Host names accepted from requests for link URLs when `publicURL` is unset (`PublicHosts`).
    public var allowedHosts: [String] = []
    /// The project (by name) of LinkForty requests that carry neither an API key nor an app token.
    public var defaultProject: String?
    public var trustedProxies: [String] = []
    /// A MaxMind-format country database file for clicks' countries (`geoip_database`).
    public var geoipDatabase: String?
    /// The header a trusted proxy puts the client's country in (`country_header`, e.g. `CF-IPCountry`).
    public var countryHeader: String?
    /// Apple's Private Relay egress list, a file in its `egress-ip-ranges.csv` format (`private_relay_list`).
    public var privateRelayList: String?
    /// Where `ip-lists update` and the daily refresh fetch it (`private_relay_url`).
    public var privateRelayURL = "https://mask-api.icloud.com/egress-ip-ranges.csv"
    /// Fetch it again every day in `serve` (`private_relay_refresh`); off by default.
    public var privateRelayRefresh = false
    /// A MaxMind-format anonymous-IP database for hosting and VPN addresses (`anonymous_ip_database`).
    public var anonymousIPDatabase: String?
    /// Operators' CIDR lists, each a class name and a file (`ip_lists`), later ones winning.
    public var ipLists: [(addressClass: String, path: String)] = []
    public var synchronous: Database.Synchronous = .normal
    /// SQLite's page cache and memory map per connection (`sqlite_cache_mib`, `sqlite_mmap_mib`).
    public var sqliteMemory = SQLiteMemory()
    public var drainSeconds = 10
    public var logLevel = "info"
    public var logIP = true
    /// Log lines to this file (appended; SIGHUP reopens it) instead of stderr.
    public var logFile: String?
    public var limits = HTTPServerLimits()
    /// Per-IP requests a second on public endpoints and the burst allowed; nil: no limit.
    public var rateLimit: (perSecond: Double, burst: Double)? = (100, 200)
    /// Hours of clicks to keep; nil: the longest attribution window in use + 24 h; 0: keep all.
    public var clickRetentionHours: Int?
    /// HTTPS beside HTTP: PEM certificate chain, PEM key, and the port.
    /// HTTPS beside HTTP; `cert` and `key` may be left out when `acme` gets the certificates.
    public var tls: (cert: String?, key: String?, port: UInt16)?
    /// Certificates for project domains from an ACME CA (`acme`, `ATTRIBUTIOND_ACME_*`).
    public var acme: ACMESettings?
    /// A PEM file of CA roots to trust the ACME server with instead of the system's (tests).
    public var acmeTrustedRoots: String?
    /// Set by the environment before or after the directory (the order of variables is not fixed).
    var pendingACMEEmail: String?
    var pendingACMEVerify: Bool?
    /// Outbound requests (webhooks, postbacks): whether targets on private or local addresses are
    /// allowed, and how long delivered jobs are kept.
    public var outbound = (allowPrivateAddresses: false, deliveredRetentionHours: 168, requestTimeoutSeconds: 15, deliver: true)
    /// The raw export (docs/export.md): whether this node runs it, how often it looks for closed
    /// hours, and where files are made before they are put (the system's temporary directory).
    public var export = (run: true, intervalSeconds: 60, scratchDirectory: String?.none, partSizeMiB: 16)
    /// Where AdServices tokens are exchanged, and how soon Apple's "not yet" is asked again.
    public var appleAds = AppleAdsSettings()
    /// Where the ad platforms are reached (`ad_platforms.google_url` …): tests point them at fakes.
    public var adPlatforms = AdPlatformSettings()
    public var revenue = RevenueSettings()
    /// Whether and where the dashboard is served.
    public var dashboard = DashboardSettings()
    /// Projects declared in the file, reconciled at start.
    public var projects: [JSONValue] = []
    /// The file these settings came from, if any.
    public var sourceFile: String?
}

public struct ConfigurationError: Error, CustomStringConvertible {
    public let key: String
    public let message: String
    public var description: String { "configuration: \(key): \(message)" }

    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }
}

public enum ConfigurationLoader {
    public static let defaultFiles = ["config/attributiond.json", "/etc/attributiond/attributiond.json"]

    /// Reads the file (the one given, else `ATTRIBUTIOND_CONFIG`, else the first default that
    /// exists), then applies the environment.
    public static func load(file explicitFile: String?, environment: [String: String]) throws -> ServerConfiguration {
        var configuration = ServerConfiguration()
        let file =
            explicitFile ?? environment["ATTRIBUTIOND_CONFIG"]
            ?? defaultFiles.first { FileManager.default.fileExists(atPath: $0) }
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ConfigurationError(key: file, message: "cannot read the configuration file")
            }
            let root: JSONValue
            do {
                root = try JSONBody.decode(JSONValue.self, from: Array(data))
            } catch {
                let reason = error.message.replacingOccurrences(of: "request body is not valid JSON: ", with: "")
                throw ConfigurationError(key: file, message: "not valid JSON (\(reason))")
            }
            guard case .object(let object) = root else { throw ConfigurationError(key: file, message: "must hold a JSON object") }
            try apply(object, to: &configuration)
            configuration.sourceFile = file
        }
        try applyEnvironment(environment, to: &configuration)
        if let token = configuration.metricsToken, let problem = adminKeyProblem(token) {
            let source = environment["ATTRIBUTIOND_METRICS_TOKEN"]?.isEmpty == false ? "ATTRIBUTIOND_METRICS_TOKEN" : "metrics_token"
            throw ConfigurationError(key: source, message: problem + " (make one with `openssl rand -base64 32`)")
        }
        if let token = configuration.metricsToken, token == configuration.adminKey {
            throw ConfigurationError(key: "metrics_token", message: "must differ from the admin key (it is given to a metrics scraper)")
        }
        if let email = configuration.pendingACMEEmail { configuration.acme?.email = email }
        if let verify = configuration.pendingACMEVerify { configuration.acme?.verifyReachability = verify }
        if let tls = configuration.tls, tls.cert == nil, configuration.acme == nil {
            throw ConfigurationError(key: "tls.cert", message: "is required unless acme gets the certificates")
        }
        if let key = configuration.adminKey, let problem = adminKeyProblem(key) {
            let source = environment["ATTRIBUTIOND_ADMIN_KEY"]?.isEmpty == false ? "ATTRIBUTIOND_ADMIN_KEY" : "admin_key"
            throw ConfigurationError(key: source, message: problem + " (it guards every project; make one with `openssl rand -base64 32`)")
        }
        return configuration
    }

    /// Admin keys shorter than this are refused at start: the admin API is reachable by anyone who
    /// can reach the server, and failed guesses are only slowed, not stopped.
    public static let minimumAdminKeyLength = 16
    /// A key must use this many different characters (`aaaaaaaaaaaaaaaa` is 16 characters long).
    public static let minimumDistinctAdminKeyCharacters = 10
    /// Keys published as examples (this project's docs among them): anyone can try them.
    public static let exampleAdminKeys: Set<String> = [
        "change-me-0123456789", "changeme-0123456789", "change-me-please", "your-admin-key-here",
        "0123456789abcdef", "0123456789abcdefghij", "abcdefghijklmnop", "1234567890123456",
    ]

    /// Why `key` may not guard the server, or nil.
    public static func adminKeyProblem(_ key: String) -> String? {
        if key.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) {
            return "must not contain spaces, line breaks or control characters (a key with them can never be sent in a header)"
        }
        if key.count < minimumAdminKeyLength { return "must be at least \(minimumAdminKeyLength) characters" }
        if Set(key).count < minimumDistinctAdminKeyCharacters {
            return "must use at least \(minimumDistinctAdminKeyCharacters) different characters"
        }
        if exampleAdminKeys.contains(key.lowercased()) { return "is a published example key, not a secret" }
        return nil
    }

    private static func apply(_ object: [String: JSONValue], to configuration: inout ServerConfiguration) throws {
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
            switch key {
            case "host": configuration.host = try string(value, key)
            case "port": configuration.port = try port(value, key)
            case "db": configuration.db = try string(value, key)
            case "database_url": try configuration.setDatabase(try string(value, key), key)
            case "database_read_url": try configuration.setReadReplica(try string(value, key), key)
            case "database_write_lanes": configuration.postgresWriteLanes = try integer(value, key, 1...64)
            case "admin_key": configuration.adminKey = try optionalString(value, key)
            case "metrics_token": configuration.metricsToken = try optionalString(value, key)
            case "default_project": configuration.defaultProject = try optionalString(value, key)
            case "public_url": configuration.publicURL = try publicURL(try optionalString(value, key), key)
            case "allowed_hosts": configuration.allowedHosts = try hostNames(try strings(value, key), key)
            case "trusted_proxies": configuration.trustedProxies = try cidrs(try strings(value, key), key)
            case "geoip_database": configuration.geoipDatabase = try optionalString(value, key)
            case "country_header": configuration.countryHeader = try headerName(try optionalString(value, key), key)
            case "private_relay_list": configuration.privateRelayList = try optionalString(value, key)
            case "private_relay_url": configuration.privateRelayURL = try string(value, key)
            case "anonymous_ip_database": configuration.anonymousIPDatabase = try optionalString(value, key)
            case "private_relay_refresh": configuration.privateRelayRefresh = try bool(value, key)
            case "ip_lists": configuration.ipLists = try ipLists(value, key)
            case "synchronous": configuration.synchronous = try synchronous(try string(value, key), key)
            case "sqlite_cache_mib": configuration.sqliteMemory.cacheMiB = try integer(value, key, 1...4096)
            case "sqlite_mmap_mib": configuration.sqliteMemory.mmapMiB = try integer(value, key, 0...65536)
            case "drain_seconds": configuration.drainSeconds = try integer(value, key, 0...3600)
            case "log_level": configuration.logLevel = try logLevel(try string(value, key), key)
            case "log_ip": configuration.logIP = try bool(value, key)
            case "log_file": configuration.logFile = try optionalString(value, key)
            case "limits": try applyLimits(value, to: &configuration.limits)
            case "rate_limit": configuration.rateLimit = try rateLimit(value, key)
            case "tls": configuration.tls = try tls(value, key)
            case "acme": try applyACME(value, key, to: &configuration)
            case "click_retention_hours": configuration.clickRetentionHours = try integer(value, key, 0...87_600)
            case "outbound": try applyOutbound(value, to: &configuration)
            case "export": try applyExport(value, to: &configuration)
            case "apple_ads": try applyAppleAds(value, to: &configuration)
            case "ad_platforms": try applyAdPlatforms(value, to: &configuration)
            case "dashboard": try applyDashboard(value, to: &configuration)
            case "projects":
                guard case .array(let projects) = value else { throw ConfigurationError(key: key, message: "must be an array of projects") }
                configuration.projects = projects
            default:
                throw ConfigurationError(key: key, message: "unknown key (see config/README.md for the keys)")
            }
        }
    }

    /// `{"hosting": "/etc/attributiond/hosting.txt", …}` in the file, or `class=path` items
    /// (`hosting=/etc/…/hosting.txt,vpn=/etc/…/vpn.txt` in the environment).
    static func ipLists(_ value: JSONValue, _ key: String) throws -> [(addressClass: String, path: String)] {
        var lists: [(addressClass: String, path: String)] = []
        switch value {
        case .object(let object):
            lists = try object.sorted { $0.key < $1.key }.map { name, path in
                guard case .string(let file) = path, !file.isEmpty else {
                    throw ConfigurationError(key: "\(key).\(name)", message: "must be a file path")
                }
                return (name, file)
            }
        case .array(let items):
            lists = try items.compactMap { item in
                guard case .string(let text) = item else { throw ConfigurationError(key: key, message: "must be class=path items") }
                if text.isEmpty { return nil }
                let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[1].isEmpty else { throw ConfigurationError(key: key, message: "'\(text)' is not class=path") }
                return (parts[0], parts[1])
            }
        case .null: return []
        default: throw ConfigurationError(key: key, message: "must be an object of class names and file paths")
        }
        for (name, _) in lists where !AddressClass.isValidName(name) {
            throw ConfigurationError(key: key, message: "class '\(name)' must be 1 to 32 of a-z, 0-9 and _ (hosting, vpn, carrier_nat or your own)")
        }
        return lists
    }

    private static func applyOutbound(_ value: JSONValue, to configuration: inout ServerConfiguration) throws {
        guard case .object(let object) = value else { throw ConfigurationError(key: "outbound", message: "must be an object") }
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
            let path = "outbound.\(key)"
            switch key {
            case "allow_private_addresses": configuration.outbound.allowPrivateAddresses = try bool(value, path)
            case "delivered_retention_hours": configuration.outbound.deliveredRetentionHours = try integer(value, path, 0...87_600)
            case "request_timeout_seconds": configuration.outbound.requestTimeoutSeconds = try integer(value, path, 1...60)
            case "deliver": configuration.outbound.deliver = try bool(value, path)
            default: throw ConfigurationError(key: path, message: "unknown key (see config/README.md)")
            }
        }
    }

    private static func applyExport(_ value: JSONValue, to configuration: inout ServerConfiguration) throws {
        guard case .object(let object) = value else { throw ConfigurationError(key: "export", message: "must be an object") }
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
            let path = "export.\(key)"
            switch key {
            case "run": configuration.export.run = try bool(value, path)
            case "interval_seconds": configuration.export.intervalSeconds = try integer(value, path, 1...3600)
            case "scratch_directory": configuration.export.scratchDirectory = try optionalString(value, path)
            case "part_size_mib": configuration.export.partSizeMiB = try integer(value, path, 5...1024)
            default: throw ConfigurationError(key: path, message: "unknown key (see config/README.md)")
            }
        }
    }

    private static func applyDashboard(_ value: JSONValue, to configuration: inout ServerConfiguration) throws {
        guard case .object(let object) = value else { throw ConfigurationError(key: "dashboard", message: "must be an object") }
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
            let path = "dashboard.\(key)"
            switch key {
            case "enabled": configuration.dashboard.enabled = try bool(value, path)
            case "prefix": configuration.dashboard.prefix = try dashboardPrefix(try string(value, path), path)
            default: throw ConfigurationError(key: path, message: "unknown key (see config/README.md)")
            }
        }
    }

    private static func dashboardPrefix(_ text: String, _ key: String) throws -> String {
        guard let prefix = DashboardSettings.validPrefix(text) else {
            throw ConfigurationError(key: key, message: "must be one path segment of letters, digits, - or _, such as /dashboard")
        }
        if ShortCode.isReserved(String(prefix.dropFirst())) && prefix != "/dashboard" {
            throw ConfigurationError(key: key, message: "\(prefix) is taken by another API")
        }
        return prefix
    }

    private static func applyAppleAds(_ value: JSONValue, to configuration: inout ServerConfiguration) throws {
        guard case .object(let object) = value else { throw ConfigurationError(key: "apple_ads", message: "must be an object") }
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
            let path = "apple_ads.\(key)"
            switch key {
            case "url": configuration.appleAds.url = try appleAdsURL(value, path)
            case "retry_seconds": configuration.appleAds.retrySeconds = Double(try integer(value, path, 1...3600))
            case "oauth_url": configuration.appleAds.oauthURL = try appleAdsURL(value, path)
            case "api_url": configuration.appleAds.apiURL = AppleAdsSettings.directory(try appleAdsURL(value, path))
            default: throw ConfigurationError(key: path, message: "unknown key (see config/README.md)")
            }
        }
    }

    private static func applyAdPlatforms(_ value: JSONValue, to configuration: inout ServerConfiguration) throws {
        guard case .object(let object) = value else { throw ConfigurationError(key: "ad_platforms", message: "must be an object") }
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
            let path = "ad_platforms.\(key)"
            let url = AppleAdsSettings.directory(try appleAdsURL(value, path))
            switch key {
            case "google_url": configuration.adPlatforms.googleURL = url
            case "meta_url": configuration.adPlatforms.metaURL = url
            case "tiktok_url": configuration.adPlatforms.tiktokURL = url
            case "snap_url": configuration.adPlatforms.snapURL = url
            default: throw ConfigurationError(key: path, message: "unknown key (see config/README.md)")
            }
        }
    }

    /// An absolute http(s) URL (the exchange posts the token there).
    /// A PEM file of root certificates, read once: at least one certificate in it.
    private static func rootCertificates(_ path: String, _ key: String) throws -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigurationError(key: key, message: "cannot read \(path)")
        }
        guard text.contains("-----BEGIN CERTIFICATE-----") else {
            throw ConfigurationError(key: key, message: "\(path) holds no PEM certificate")
        }
        return text
    }

    private static func appleAdsURL(_ value: JSONValue, _ key: String) throws -> String {
        guard case .string(let text) = value, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http", url.host?.isEmpty == false
        else {
            throw ConfigurationError(key: key, message: "must be an absolute http(s) URL")
        }
        return text
    }

    private static func applyLimits(_ value: JSONValue, to limits: inout HTTPServerLimits) throws {
        guard case .object(let object) = value else { throw ConfigurationError(key: "limits", message: "must be an object") }
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
            let path = "limits.\(key)"
            switch key {
            case "max_connections": limits.maxConnections = try integer(value, path, 1...1_000_000)
            case "max_connections_per_client": limits.maxConnectionsPerClient = try integer(value, path, 1...1_000_000)
            case "max_in_flight_requests": limits.maxInFlightRequests = try integer(value, path, 1...1_000_000)
            case "max_pipelined_requests": limits.maxPipelinedRequests = try integer(value, path, 1...1024)
            case "max_header_bytes": limits.maxHeaderBytes = try integer(value, path, 1024...1_048_576)
            case "max_request_target_bytes": limits.maxRequestTargetBytes = try integer(value, path, 256...1_048_576)
            case "max_body_bytes": limits.maxBodyBytes = try integer(value, path, 0...1_073_741_824)
            case "max_buffered_body_bytes": limits.maxBufferedBodyBytes = try integer(value, path, 1_048_576...68_719_476_736)
            case "header_timeout_seconds": limits.headerReadTimeout = .milliseconds(try seconds(value, path))
            case "tls_handshake_timeout_seconds": limits.tlsHandshakeTimeout = .milliseconds(try seconds(value, path))
            case "body_timeout_seconds": limits.bodyReadTimeout = .milliseconds(try seconds(value, path))
            case "idle_timeout_seconds": limits.idleTimeout = .milliseconds(try seconds(value, path))
            case "write_timeout_seconds": limits.writeTimeout = .milliseconds(try seconds(value, path))
            case "event_loops": limits.eventLoops = try integer(value, path, 1...256)
            default: throw ConfigurationError(key: path, message: "unknown key (see config/README.md for the keys)")
            }
        }
    }

    private static func applyEnvironment(_ environment: [String: String], to configuration: inout ServerConfiguration) throws {
        for (name, text) in environment.sorted(by: { $0.key < $1.key }) where name.hasPrefix("ATTRIBUTIOND_") {
            switch name {
            case "ATTRIBUTIOND_CONFIG": continue
            case "ATTRIBUTIOND_HOST": configuration.host = text
            case "ATTRIBUTIOND_PORT": configuration.port = try port(.string(text), name)
            case "ATTRIBUTIOND_DB": configuration.db = text
            case "ATTRIBUTIOND_DATABASE_URL": try configuration.setDatabase(text, name)
            case "ATTRIBUTIOND_DATABASE_READ_URL": try configuration.setReadReplica(text, name)
            case "ATTRIBUTIOND_DATABASE_WRITE_LANES": configuration.postgresWriteLanes = try integer(.string(text), name, 1...64)
            case "ATTRIBUTIOND_ADMIN_KEY": configuration.adminKey = text.isEmpty ? nil : text
            case "ATTRIBUTIOND_METRICS_TOKEN": configuration.metricsToken = text.isEmpty ? nil : text
            case "ATTRIBUTIOND_DEFAULT_PROJECT": configuration.defaultProject = text.isEmpty ? nil : text
            case "ATTRIBUTIOND_PUBLIC_URL": configuration.publicURL = try publicURL(text.isEmpty ? nil : text, name)
            case "ATTRIBUTIOND_ALLOWED_HOSTS":
                configuration.allowedHosts = try hostNames(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }, name)
            case "ATTRIBUTIOND_TRUSTED_PROXIES":
                configuration.trustedProxies = try cidrs(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }, name)
            case "ATTRIBUTIOND_GEOIP_DATABASE": configuration.geoipDatabase = text.isEmpty ? nil : text
            case "ATTRIBUTIOND_COUNTRY_HEADER": configuration.countryHeader = try headerName(text.isEmpty ? nil : text, name)
            case "ATTRIBUTIOND_PRIVATE_RELAY_LIST": configuration.privateRelayList = text.isEmpty ? nil : text
            case "ATTRIBUTIOND_PRIVATE_RELAY_URL": configuration.privateRelayURL = text
            case "ATTRIBUTIOND_ANONYMOUS_IP_DATABASE": configuration.anonymousIPDatabase = text.isEmpty ? nil : text
            case "ATTRIBUTIOND_PRIVATE_RELAY_REFRESH": configuration.privateRelayRefresh = try bool(.string(text), name)
            case "ATTRIBUTIOND_IP_LISTS":
                configuration.ipLists = try ipLists(.array(text.split(separator: ",").map { .string($0.trimmingCharacters(in: .whitespaces)) }), name)
            case "ATTRIBUTIOND_SYNCHRONOUS": configuration.synchronous = try synchronous(text, name)
            case "ATTRIBUTIOND_SQLITE_CACHE_MIB": configuration.sqliteMemory.cacheMiB = try integer(.string(text), name, 1...4096)
            case "ATTRIBUTIOND_SQLITE_MMAP_MIB": configuration.sqliteMemory.mmapMiB = try integer(.string(text), name, 0...65536)
            case "ATTRIBUTIOND_DRAIN_SECONDS": configuration.drainSeconds = try integer(.string(text), name, 0...3600)
            case "ATTRIBUTIOND_LOG_LEVEL": configuration.logLevel = try logLevel(text, name)
            case "ATTRIBUTIOND_LOG_IP": configuration.logIP = try bool(.string(text), name)
            case "ATTRIBUTIOND_LOG_FILE": configuration.logFile = text.isEmpty ? nil : text
            case "ATTRIBUTIOND_CLICK_RETENTION_HOURS": configuration.clickRetentionHours = try integer(.string(text), name, 0...87_600)
            case "ATTRIBUTIOND_OUTBOUND_ALLOW_PRIVATE": configuration.outbound.allowPrivateAddresses = try bool(.string(text), name)
            case "ATTRIBUTIOND_OUTBOUND_DELIVER": configuration.outbound.deliver = try bool(.string(text), name)
            case "ATTRIBUTIOND_EXPORT_RUN": configuration.export.run = try bool(.string(text), name)
            case "ATTRIBUTIOND_EXPORT_INTERVAL_SECONDS": configuration.export.intervalSeconds = try integer(.string(text), name, 1...3600)
            case "ATTRIBUTIOND_EXPORT_SCRATCH_DIRECTORY": configuration.export.scratchDirectory = text.isEmpty ? nil : text
            case "ATTRIBUTIOND_EXPORT_PART_SIZE_MIB": configuration.export.partSizeMiB = try integer(.string(text), name, 5...1024)
            case "ATTRIBUTIOND_ACME_DIRECTORY_URL":
                let email = configuration.acme?.email
                let verify = configuration.acme?.verifyReachability ?? true
                configuration.acme = ACMESettings(directoryURL: try acmeDirectory(text, name), email: email)
                configuration.acme?.verifyReachability = verify
            case "ATTRIBUTIOND_ACME_EMAIL": configuration.pendingACMEEmail = text
            case "ATTRIBUTIOND_ACME_CA_ROOTS": configuration.acmeTrustedRoots = text
            case "ATTRIBUTIOND_ACME_VERIFY": configuration.pendingACMEVerify = try bool(.string(text), name)
            case "ATTRIBUTIOND_DASHBOARD_ENABLED": configuration.dashboard.enabled = try bool(.string(text), name)
            case "ATTRIBUTIOND_DASHBOARD_PREFIX": configuration.dashboard.prefix = try dashboardPrefix(text, name)
            case "ATTRIBUTIOND_OUTBOUND_REQUEST_TIMEOUT_SECONDS":
                configuration.outbound.requestTimeoutSeconds = try integer(.string(text), name, 1...60)
            case "ATTRIBUTIOND_APPLE_ADS_URL": configuration.appleAds.url = try appleAdsURL(.string(text), name)
            case "ATTRIBUTIOND_GOOGLE_ADS_API_URL":
                configuration.adPlatforms.googleAdsAPIURL = AppleAdsSettings.directory(try appleAdsURL(.string(text), name))
            case "ATTRIBUTIOND_GOOGLE_OAUTH_URL": configuration.adPlatforms.googleOAuthURL = try appleAdsURL(.string(text), name)
            case "ATTRIBUTIOND_FX_URL": configuration.revenue.exchangeRatesURL = text.isEmpty ? nil : try appleAdsURL(.string(text), name)
            case "ATTRIBUTIOND_GOOGLE_PLAY_URL":
                configuration.revenue.googlePlayURL = AppleAdsSettings.directory(try appleAdsURL(.string(text), name))
            case "ATTRIBUTIOND_GOOGLE_CERTS_URL": configuration.revenue.googleCertsURL = try appleAdsURL(.string(text), name)
            case "ATTRIBUTIOND_APPLE_ROOT_CERTIFICATES": configuration.revenue.appleRootCertificatesPEM = try rootCertificates(text, name)
            case "ATTRIBUTIOND_GOOGLE_ADS_URL": configuration.adPlatforms.googleURL = AppleAdsSettings.directory(try appleAdsURL(.string(text), name))
            case "ATTRIBUTIOND_META_URL": configuration.adPlatforms.metaURL = AppleAdsSettings.directory(try appleAdsURL(.string(text), name))
            case "ATTRIBUTIOND_TIKTOK_URL": configuration.adPlatforms.tiktokURL = AppleAdsSettings.directory(try appleAdsURL(.string(text), name))
            case "ATTRIBUTIOND_SNAP_URL": configuration.adPlatforms.snapURL = AppleAdsSettings.directory(try appleAdsURL(.string(text), name))
            case "ATTRIBUTIOND_APPLE_ADS_OAUTH_URL": configuration.appleAds.oauthURL = try appleAdsURL(.string(text), name)
            case "ATTRIBUTIOND_APPLE_ADS_API_URL": configuration.appleAds.apiURL = AppleAdsSettings.directory(try appleAdsURL(.string(text), name))
            case "ATTRIBUTIOND_APPLE_ADS_RETRY_SECONDS": configuration.appleAds.retrySeconds = Double(try integer(.string(text), name, 1...3600))
            case "ATTRIBUTIOND_RATE_LIMIT":
                let rate = try integer(.string(text), name, 0...1_000_000)
                configuration.rateLimit = rate == 0 ? nil : (Double(rate), Double(rate) * 2)
            default: throw ConfigurationError(key: name, message: "unknown environment variable (see config/README.md)")
            }
        }
    }

    // MARK: - Typed readers that name the key on failure

    private static func string(_ value: JSONValue, _ key: String) throws -> String {
        guard case .string(let text) = value else { throw ConfigurationError(key: key, message: "must be a string") }
        return text
    }

    private static func optionalString(_ value: JSONValue, _ key: String) throws -> String? {
        if case .null = value { return nil }
        let text = try string(value, key)
        return text.isEmpty ? nil : text
    }

    private static func strings(_ value: JSONValue, _ key: String) throws -> [String] {
        guard case .array(let items) = value else { throw ConfigurationError(key: key, message: "must be an array of strings") }
        return try items.enumerated().map { try string($0.element, "\(key)[\($0.offset)]") }
    }

    private static func integer(_ value: JSONValue, _ key: String, _ range: ClosedRange<Int>) throws -> Int {
        let number: Int?
        switch value {
        case .number(let double) where double.rounded() == double && abs(double) < 1e15: number = Int(double)
        case .string(let text): number = Int(text)
        default: number = nil
        }
        guard let number, range.contains(number) else {
            throw ConfigurationError(key: key, message: "must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    private static func port(_ value: JSONValue, _ key: String) throws -> UInt16 {
        UInt16(try integer(value, key, 0...65535))
    }

    private static func seconds(_ value: JSONValue, _ key: String) throws -> Int {
        let seconds: Double?
        switch value {
        case .number(let double): seconds = double
        case .string(let text): seconds = Double(text)
        default: seconds = nil
        }
        guard let seconds, seconds > 0, seconds <= 86_400 else {
            throw ConfigurationError(key: key, message: "must be a number of seconds above 0 and at most 86400")
        }
        return Int((seconds * 1000).rounded())
    }

    private static func bool(_ value: JSONValue, _ key: String) throws -> Bool {
        switch value {
        case .bool(let flag): return flag
        case .string(let text) where ["true", "1", "yes"].contains(text.lowercased()): return true
        case .string(let text) where ["false", "0", "no"].contains(text.lowercased()): return false
        default: throw ConfigurationError(key: key, message: "must be true or false")
        }
    }

    private static func synchronous(_ text: String, _ key: String) throws -> Database.Synchronous {
        guard let mode = Database.Synchronous(rawValue: text.uppercased()) else {
            throw ConfigurationError(key: key, message: "must be NORMAL or FULL")
        }
        return mode
    }

    private static func logLevel(_ text: String, _ key: String) throws -> String {
        let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
        guard levels.contains(text.lowercased()) else {
            throw ConfigurationError(key: key, message: "must be one of \(levels.joined(separator: ", "))")
        }
        return text.lowercased()
    }

    /// `{"requests_per_second": 100, "burst": 200}`; a rate of 0 turns the limit off.
    private static func rateLimit(_ value: JSONValue, _ key: String) throws -> (perSecond: Double, burst: Double)? {
        guard case .object(let object) = value else { throw ConfigurationError(key: key, message: "must be an object") }
        var rate = 100.0
        var burst: Double?
        for (name, item) in object.sorted(by: { $0.key < $1.key }) {
            switch name {
            case "requests_per_second": rate = Double(try integer(item, "\(key).\(name)", 0...1_000_000))
            case "burst": burst = Double(try integer(item, "\(key).\(name)", 1...10_000_000))
            default: throw ConfigurationError(key: "\(key).\(name)", message: "unknown key (see config/README.md for the keys)")
            }
        }
        return rate == 0 ? nil : (rate, burst ?? rate * 2)
    }

    private static func applyACME(_ value: JSONValue, _ key: String, to configuration: inout ServerConfiguration) throws {
        guard case .object(let object) = value else { throw ConfigurationError(key: key, message: "must be an object with directory_url") }
        for name in object.keys where !["directory_url", "email", "ca_roots", "verify"].contains(name) {
            throw ConfigurationError(key: "\(key).\(name)", message: "unknown key (see config/README.md for the keys)")
        }
        guard let directory = try object["directory_url"].map({ try string($0, "\(key).directory_url") }) else {
            throw ConfigurationError(key: "\(key).directory_url", message: "is required")
        }
        var settings = ACMESettings(
            directoryURL: try acmeDirectory(directory, "\(key).directory_url"), email: try object["email"].map { try string($0, "\(key).email") })
        if let verify = object["verify"] { settings.verifyReachability = try bool(verify, "\(key).verify") }
        configuration.acme = settings
        configuration.acmeTrustedRoots = try object["ca_roots"].map { try string($0, "\(key).ca_roots") }
    }

    private static func acmeDirectory(_ text: String, _ key: String) throws -> String {
        guard let url = URL(string: text), url.scheme == "https" || url.scheme == "http", url.host != nil else {
            throw ConfigurationError(key: key, message: "must be the ACME directory's URL (https://acme-v02.api.letsencrypt.org/directory)")
        }
        return text
    }

    private static func tls(_ value: JSONValue, _ key: String) throws -> (cert: String?, key: String?, port: UInt16) {
        guard case .object(let object) = value else { throw ConfigurationError(key: key, message: "must be an object with cert and key") }
        for name in object.keys where !["cert", "key", "port"].contains(name) {
            throw ConfigurationError(key: "\(key).\(name)", message: "unknown key (see config/README.md for the keys)")
        }
        let cert = try object["cert"].map { try string($0, "\(key).cert") }
        let privateKey = try object["key"].map { try string($0, "\(key).key") }
        if (cert == nil) != (privateKey == nil) {
            throw ConfigurationError(
                key: "\(key).\(cert == nil ? "cert" : "key")", message: "is required with \(key).\(cert == nil ? "key" : "cert")")
        }
        let port = try object["port"].map { try Self.port($0, "\(key).port") } ?? 8443
        return (cert, privateKey, port)
    }

    private static func hostNames(_ names: [String], _ key: String) throws -> [String] {
        for (index, name) in names.enumerated() where PublicHosts.hostName(of: name) == nil {
            throw ConfigurationError(
                key: "\(key)[\(index)]", message: "must be a host name, optionally with a port (go.example.com, go.example.com:8443)")
        }
        return names
    }

    /// An HTTP field name (RFC 9110 token characters).
    private static func headerName(_ text: String?, _ key: String) throws -> String? {
        guard let text else { return nil }
        let token = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        guard (1...64).contains(text.utf8.count), text.utf8.allSatisfy(token.contains) else {
            throw ConfigurationError(key: key, message: "'\(text)' is not a header name")
        }
        return text
    }

    private static func publicURL(_ text: String?, _ key: String) throws -> String? {
        guard let text else { return nil }
        let lowered = text.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), !text.contains(" "), !text.contains("?") else {
            throw ConfigurationError(key: key, message: "must be an http(s) URL such as https://go.example.com")
        }
        return text
    }

    private static func cidrs(_ values: [String], _ key: String) throws -> [String] {
        for (index, value) in values.enumerated() where !isCIDR(value) {
            throw ConfigurationError(key: "\(key)[\(index)]", message: "'\(value)' is not an IP address or CIDR block")
        }
        return values
    }

    public static func isCIDR(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let address = SocketAddress(ip: String(parts[0])) else { return false }
        guard parts.count == 2 else { return true }
        guard let bits = Int(parts[1]) else { return false }
        return (0...(address.family == .ipv4 ? 32 : 128)).contains(bits)
    }
}

extension ServerConfiguration {
    /// `database_read_url`: a PostgreSQL URL (empty: none).
    public mutating func setReadReplica(_ text: String, _ key: String) throws {
        if text.isEmpty {
            postgresReadURL = nil
            return
        }
        var probe = ServerConfiguration()
        try probe.setDatabase(text, key)
        guard probe.postgresURL != nil else {
            throw ConfigurationError(key: key, message: "a read replica is a PostgreSQL URL: postgres://user:password@host:5432/database")
        }
        postgresReadURL = text
    }

    /// `database_url`, `ATTRIBUTIOND_DATABASE_URL`, `--database`: a PostgreSQL URL, or a SQLite path.
    public mutating func setDatabase(_ text: String, _ key: String) throws {
        let lowered = text.lowercased()
        if lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") {
            guard URLComponents(string: text)?.host?.isEmpty == false || text.contains("host=") else {
                throw ConfigurationError(key: key, message: "a PostgreSQL URL needs a host: postgres://user:password@host:5432/database")
            }
            postgresURL = text
        } else if text.contains("://") {
            throw ConfigurationError(
                key: key, message: "expected postgres://… or a SQLite file path, got a '\(text.prefix(while: { $0 != ":" }))' URL")
        } else if text.isEmpty {
            throw ConfigurationError(key: key, message: "must not be empty")
        } else {
            db = text
            postgresURL = nil
        }
    }
}
