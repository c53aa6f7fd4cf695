import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Which `Host` header values may become the base of link URLs (`og:url`, the LinkForty link
/// `url`, QR codes) when `public_url` is not configured. A Host is the client's to choose: taken
/// as sent, a request with `Host: evil.example` would have made the server publish links to
/// another site. Accepted: the names in `allowed_hosts`, and the names this server listens on
/// (localhost, the loopback addresses, the listening address, the machine's host name). Anything
/// else gets the default base: the first allowed host, else `localhost` with the listening port.
public final class PublicHosts: Sendable {
    private let allowed: Set<String>
    private let defaultHost: String?
    private let listening = Mutex<(names: Set<String>, port: UInt16?)>((PublicHosts.machineNames(), nil))

    /// - Parameter allowed: host names, optionally with a port (which is ignored when matching).
    public init(allowed: [String]) {
        self.allowed = Set(allowed.compactMap { Self.hostName(of: $0) })
        defaultHost = allowed.first
    }

    /// Called once the server is bound: its address and port join the accepted names.
    public func listening(on host: String, port: UInt16) {
        listening.withLock { state in
            if host != "0.0.0.0", host != "::", let name = Self.hostName(of: host.contains(":") ? "[\(host)]" : host) {
                state.names.insert(name)
            }
            state.port = port
        }
    }

    /// `host[:port]` to use in link URLs for a request that sent `header` as its Host.
    func host(forHeader header: String?) -> String {
        if let header, let name = Self.hostName(of: header) {
            if allowed.contains(name) || listening.withLock({ $0.names.contains(name) }) { return header }
        }
        if let defaultHost { return defaultHost }
        let port = listening.withLock { $0.port }
        return port.map { "localhost:\($0)" } ?? "localhost"
    }

    /// The lower-cased host of `host[:port]` (a bracketed IPv6 literal keeps its brackets), or nil
    /// when the text is not a plausible authority (RFC 3986 §3.2.2 reg-name, IPv4 or IPv6 literal).
    public static func hostName(of authority: String) -> String? {
        let bytes = Array(authority.utf8)
        guard !bytes.isEmpty, bytes.count <= 255 else { return nil }
        var host = bytes[...]
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            host = bytes[...close]
            guard Self.isPort(bytes[(close + 1)...]) else { return nil }
            guard host.dropFirst().dropLast().allSatisfy({ isHex($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else { return nil }
        } else {
            if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
                host = bytes[..<colon]
                guard Self.isPort(bytes[colon...]) else { return nil }
            }
            guard !host.isEmpty, host.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }) else { return nil }
        }
        return String(decoding: host, as: UTF8.self).lowercased()
    }

    private static func isPort(_ colonAndDigits: ArraySlice<UInt8>) -> Bool {
        guard let first = colonAndDigits.first else { return true }
        let digits = colonAndDigits.dropFirst()
        return first == UInt8(ascii: ":") && (1...5).contains(digits.count) && digits.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }

    private static func machineNames() -> Set<String> {
        var names: Set<String> = ["localhost", "127.0.0.1", "[::1]"]
        var buffer = [CChar](repeating: 0, count: 256)
        if gethostname(&buffer, buffer.count) == 0 {
            let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let host = hostName(of: name) { names.insert(host) }
        }
        return names
    }
}
