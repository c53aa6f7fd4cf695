import Foundation
import HTTP
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

    /// Whether `name` (canonical, `RequestAuthority`) is one this server answers as itself.
    public func isServerName(_ name: String) -> Bool {
        allowed.contains(name) || listening.withLock { $0.names.contains(name) }
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

    /// The lower-cased host of `host[:port]` (a bracketed IPv6 literal keeps its brackets, a
    /// trailing dot is dropped), or nil when the text is not a valid authority (`RequestAuthority`).
    public static func hostName(of authority: String) -> String? { RequestAuthority.hostName(of: authority) }

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
