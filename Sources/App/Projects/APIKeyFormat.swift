import Cryptography
import StoreContracts

/// The shapes an issued API key can take. Every shape is stored hashed and works on every route
/// an API key does; the WarpLink shape exists because WarpLink's SDKs check a key's shape on the
/// device and refuse to start with any other (docs/sdk-apis.md, "WarpLink"); the Branch shape is
/// the `branch_key` Branch's SDKs send in every body (docs/sdk-apis.md, "Branch").
public enum APIKeyFormat: Sendable, Equatable {
    /// `ak_` and 32 base62 characters.
    case standard
    /// `wl_live_` or `wl_test_` and 32 base62 characters.
    case warplink(test: Bool)
    /// `key_live_` or `key_test_` and 32 base62 characters.
    case branch(test: Bool)

    public func generate() -> String {
        switch self {
        case .standard: Secrets.generate(prefix: "ak_")
        case .warplink(let test): Secrets.generate(prefix: test ? "wl_test_" : "wl_live_")
        case .branch(let test): Secrets.generate(prefix: test ? "key_test_" : "key_live_")
        }
    }

    /// A key of WarpLink's or Branch's test mode: what it reports is test traffic
    /// (`InstallReport.isTest`), on whichever route the key is used.
    public static func isTestKey(_ key: String) -> Bool { key.hasPrefix("wl_test_") || key.hasPrefix("key_test_") }

    /// `^key_(live|test)_[A-Za-z0-9]{32}$`: the keys Branch issues, and the SDKs send as `branch_key`.
    public static func isBranchShaped(_ key: String) -> Bool { hasShape(key, prefixes: ["key_live_", "key_test_"]) }

    /// `^wl_(live|test)_[A-Za-z0-9]{32}$`, the check WarpLink's SDKs make.
    public static func isWarpLinkShaped(_ key: String) -> Bool { hasShape(key, prefixes: ["wl_live_", "wl_test_"]) }

    /// One of `prefixes` (all of one length) and 32 base62 characters.
    private static func hasShape(_ key: String, prefixes: [String]) -> Bool {
        let bytes = Array(key.utf8)
        let length = prefixes[0].utf8.count
        guard bytes.count == length + 32, prefixes.contains(String(decoding: bytes[..<length], as: UTF8.self)) else { return false }
        return bytes[length...].allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }
    }
}
