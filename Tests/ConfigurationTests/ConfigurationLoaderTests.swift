import API
import Configuration
import Foundation
import HTTP
import Store
import StoreContracts
import Testing

/// The configuration loader in process, table by table: what each source sets, and the key each
/// refusal names. (How the server applies a configuration is tested by starting it.)
@Suite struct ConfigurationLoaderTests {
    /// A file with `json`, loaded with `environment` (no other ATTRIBUTIOND_* variable).
    static func load(_ json: String? = nil, _ environment: [String: String] = [:]) throws -> ServerConfiguration {
        guard let json else { return try ConfigurationLoader.load(file: nil, environment: environment) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-config-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try ConfigurationLoader.load(file: file.path, environment: environment)
    }

    static let key = "a-configuration-admin-key-0123456789"

    struct Accepted: Sendable, CustomStringConvertible {
        let file: String?
        let environment: [String: String]
        let check: @Sendable (ServerConfiguration) -> Bool
        var description: String { "\(file ?? "no file") \(environment)" }
    }

    static let accepted: [Accepted] = [
        Accepted(file: nil, environment: [:]) { $0.port == 8080 && $0.host == "0.0.0.0" && $0.logLevel == "info" && $0.rateLimit?.perSecond == 100 },
        Accepted(file: #"{"port": 9000, "host": "::"}"#, environment: [:]) { $0.port == 9000 && $0.host == "::" },
        Accepted(file: #"{"port": 9000}"#, environment: ["ATTRIBUTIOND_PORT": "9100"]) { $0.port == 9100 },  // the environment wins
        Accepted(file: nil, environment: ["ATTRIBUTIOND_RATE_LIMIT": "0"]) { $0.rateLimit == nil },
        Accepted(file: nil, environment: ["ATTRIBUTIOND_RATE_LIMIT": "50"]) { $0.rateLimit?.perSecond == 50 && $0.rateLimit?.burst == 100 },
        Accepted(file: #"{"log_level": "notice", "log_ip": false}"#, environment: [:]) { $0.logLevel == "notice" && !$0.logIP },
        Accepted(file: #"{"trusted_proxies": ["10.0.0.0/8", "::1"]}"#, environment: [:]) { $0.trustedProxies == ["10.0.0.0/8", "::1"] },
        Accepted(file: #"{"click_retention_hours": 0}"#, environment: [:]) { $0.clickRetentionHours == 0 },
        Accepted(file: nil, environment: [:]) { $0.sqliteMemory == SQLiteMemory(cacheMiB: 8, mmapMiB: 0) },
        Accepted(file: #"{"sqlite_cache_mib": 4, "sqlite_mmap_mib": 0}"#, environment: [:]) {
            $0.sqliteMemory == SQLiteMemory(cacheMiB: 4, mmapMiB: 0)
        },
        Accepted(file: nil, environment: ["ATTRIBUTIOND_SQLITE_CACHE_MIB": "16", "ATTRIBUTIOND_SQLITE_MMAP_MIB": "64"]) {
            $0.sqliteMemory == SQLiteMemory(cacheMiB: 16, mmapMiB: 64)
        },
        Accepted(file: #"{"outbound": {"allow_private_addresses": true}}"#, environment: [:]) { $0.outbound.allowPrivateAddresses },
        Accepted(file: nil, environment: ["ATTRIBUTIOND_OUTBOUND_DELIVER": "false"]) { !$0.outbound.deliver },
        Accepted(file: nil, environment: ["ATTRIBUTIOND_DASHBOARD_PREFIX": "/admin-ui"]) { $0.dashboard.prefix == "/admin-ui" },
        Accepted(file: nil, environment: ["ATTRIBUTIOND_ADMIN_KEY": key]) { $0.adminKey == key },
        Accepted(file: nil, environment: ["ATTRIBUTIOND_DATABASE_URL": "postgres://u@127.0.0.1:5432/db"]) {
            $0.postgresURL == "postgres://u@127.0.0.1:5432/db"
        },
    ]

    @Test(arguments: accepted) func aSettingIsTakenFromItsSource(_ row: Accepted) throws {
        #expect(row.check(try Self.load(row.file, row.environment)))
    }

    struct Refused: Sendable, CustomStringConvertible {
        let file: String?
        let environment: [String: String]
        /// The key the error must name, and a piece of its message.
        let key: String
        let says: String
        var description: String { "\(key): \(says)" }
    }

    static let refused: [Refused] = [
        Refused(file: #"{"port": "eighty"}"#, environment: [:], key: "port", says: ""),
        Refused(file: #"{"sqlite_cache_mib": 0}"#, environment: [:], key: "sqlite_cache_mib", says: ""),
        Refused(file: nil, environment: ["ATTRIBUTIOND_SQLITE_MMAP_MIB": "-1"], key: "ATTRIBUTIOND_SQLITE_MMAP_MIB", says: ""),
        Refused(file: #"{"port": 70000}"#, environment: [:], key: "port", says: ""),
        Refused(file: #"{"colour": "blue"}"#, environment: [:], key: "colour", says: "unknown key"),
        Refused(file: nil, environment: ["ATTRIBUTIOND_COLOUR": "blue"], key: "ATTRIBUTIOND_COLOUR", says: "unknown environment variable"),
        Refused(file: #"{"log_level": "loud"}"#, environment: [:], key: "log_level", says: ""),
        Refused(file: #"{"trusted_proxies": ["10.0.0.0/33"]}"#, environment: [:], key: "trusted_proxies[0]", says: "CIDR"),
        Refused(file: #"{"click_retention_hours": -1}"#, environment: [:], key: "click_retention_hours", says: ""),
        Refused(file: nil, environment: ["ATTRIBUTIOND_ADMIN_KEY": "short"], key: "ATTRIBUTIOND_ADMIN_KEY", says: ""),
        Refused(file: #"{"admin_key": "aaaaaaaaaaaaaaaaaaaaaaaa"}"#, environment: [:], key: "admin_key", says: ""),
        Refused(file: nil, environment: ["ATTRIBUTIOND_ADMIN_KEY": key, "ATTRIBUTIOND_METRICS_TOKEN": key], key: "metrics_token", says: "differ"),
        Refused(file: #"{"port": 80, "port": 81}"#, environment: [:], key: "", says: "port"),  // a repeated key
        Refused(file: "[1, 2]", environment: [:], key: "", says: "must hold a JSON object"),
        Refused(file: #"{"projects": {}}"#, environment: [:], key: "projects", says: "array"),
    ]

    @Test(arguments: refused) func aBadSettingIsRefusedNamingItsKey(_ row: Refused) throws {
        do {
            _ = try Self.load(row.file, row.environment)
            Issue.record("accepted: \(row)")
        } catch let error as ConfigurationError {
            // A file-level refusal names the file itself; the rest name the key.
            if !row.key.isEmpty { #expect(error.key == row.key, "\(error)") }
            #expect(row.says.isEmpty || error.description.contains(row.says), "\(error)")
        }
    }
}
