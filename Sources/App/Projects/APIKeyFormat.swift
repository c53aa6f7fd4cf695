import Cryptography
import StoreContracts

/// The shapes an issued API key can take. Every shape is stored hashed and works on every route
/// an API key does; the WarpLink shape exists because WarpLink's SDKs check a key's shape on the
/// device and refuse to start with any other (docs/sdk-apis.md, "WarpLink").
public enum APIKeyFormat: Sendable, Equatable {
    /// `ak_` and 32 base62 characters.
    case standard
    /// `wl_live_` or `wl_test_` and 32 base62 characters.
    case warplink(test: Bool)

    public func generate() -> String {
        switch self {
        case .standard: Secrets.generate(prefix: "ak_")
        case .warplink(let test): Secrets.generate(prefix: test ? "wl_test_" : "wl_live_")
        }
    }

    /// A key of WarpLink's test mode: what it reports is test traffic (`InstallReport.isTest`),
    /// on whichever route the key is used.
    public static func isTestKey(_ key: String) -> Bool { key.hasPrefix("wl_test_") }

    /// `^wl_(live|test)_[A-Za-z0-9]{32}$`, the check WarpLink's SDKs make.
    public static func isWarpLinkShaped(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard bytes.count == 40 else { return false }
        let prefix = String(decoding: bytes[..<8], as: UTF8.self)
        guard prefix == "wl_live_" || prefix == "wl_test_" else { return false }
        return bytes[8...].allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }
    }
}
