import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where outbound requests may go (outbound.md, "SSRF"): http(s) URLs only, and by default no host
/// that resolves to a loopback, private, link-local, shared (CGNAT), multicast or unspecified
/// address, so a project's webhook cannot reach the server's own network. Checked when an
/// endpoint is saved and again before every attempt (DNS answers change).
public struct OutboundAddressPolicy: Sendable {
    public let allowPrivateAddresses: Bool

    public init(allowPrivateAddresses: Bool) {
        self.allowPrivateAddresses = allowPrivateAddresses
    }

    /// Why `url` may not be a target, or nil. Resolves the host (when an endpoint or template is
    /// saved; every connection is checked again by the transport, after its own DNS lookup).
    public func refusal(for url: String) -> String? {
        if let refusal = Self.syntaxRefusal(for: url) { return refusal }
        guard !allowPrivateAddresses, let host = URLComponents(string: url)?.host else { return nil }
        let addresses = Self.resolve(host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host)
        guard !addresses.isEmpty else { return "host '\(host)' does not resolve" }
        if let blocked = addresses.first(where: Self.isInternal) {
            return "host '\(host)' resolves to \(Self.describe(blocked)), a private or local address (set outbound.allow_private_addresses to allow)"
        }
        return nil
    }

    /// Why `url` is not an absolute http(s) URL without credentials, or nil (no DNS).
    public static func syntaxRefusal(for url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let host = components.host, !host.isEmpty
        else {
            return "must be an absolute http or https URL"
        }
        if components.user != nil || components.password != nil { return "must not carry credentials" }
        return nil
    }

    /// The host's addresses: 4 bytes (IPv4) or 16 (IPv6) each.
    static func resolve(_ host: String) -> [[UInt8]] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [[UInt8]] = []
        var entry = list
        while let info = entry?.pointee {
            if info.ai_family == AF_INET, let address = info.ai_addr {
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    var raw = pointer.pointee.sin_addr
                    addresses.append(withUnsafeBytes(of: &raw) { Array($0) })
                }
            } else if info.ai_family == AF_INET6, let address = info.ai_addr {
                address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    var raw = pointer.pointee.sin6_addr
                    addresses.append(withUnsafeBytes(of: &raw) { Array($0) })
                }
            }
            entry = info.ai_next
        }
        return addresses
    }

    /// Loopback, private, link-local, shared, multicast, unspecified or reserved. An IPv6 form
    /// that carries an IPv4 address (mapped, translated, compatible, NAT64, 6to4, Teredo) is
    /// judged by the IPv4 address a translator or tunnel would deliver it to.
    public static func isInternal(_ address: [UInt8]) -> Bool {
        if address.count == 4 { return isInternalIPv4(address) }
        guard address.count == 16 else { return true }
        if address.allSatisfy({ $0 == 0 }) { return true }  // ::
        if address[0..<15].allSatisfy({ $0 == 0 }) && address[15] == 1 { return true }  // ::1
        if let embedded = embeddedIPv4(address) { return isInternalIPv4(embedded) }
        if address[0] == 0x00 && address[1] == 0x64 && address[2] == 0xFF && address[3] == 0x9B && address[4] == 0 && address[5] == 1 {
            return true  // 64:ff9b:1::/48 local-use NAT64
        }
        if address[0] & 0xFE == 0xFC { return true }  // fc00::/7 unique local
        if address[0] == 0xFE && address[1] & 0xC0 == 0x80 { return true }  // fe80::/10 link-local
        if address[0] == 0xFE && address[1] & 0xC0 == 0xC0 { return true }  // fec0::/10 site-local (deprecated)
        if address[0] == 0xFF { return true }  // ff00::/8 multicast
        return false
    }

    /// The IPv4 address inside an IPv6 one that stands for it, or nil.
    static func embeddedIPv4(_ a: [UInt8]) -> [UInt8]? {
        let last = Array(a[12..<16])
        if a[0..<10].allSatisfy({ $0 == 0 }) && a[10] == 0xFF && a[11] == 0xFF { return last }  // ::ffff:0:0/96 mapped
        if a[0..<8].allSatisfy({ $0 == 0 }) && a[8] == 0xFF && a[9] == 0xFF && a[10] == 0 && a[11] == 0 {
            return last  // ::ffff:0:0:0/96 translated
        }
        if a[0..<12].allSatisfy({ $0 == 0 }) { return last }  // ::/96 compatible
        if a[0] == 0x00 && a[1] == 0x64 && a[2] == 0xFF && a[3] == 0x9B && a[4..<12].allSatisfy({ $0 == 0 }) {
            return last  // 64:ff9b::/96 NAT64
        }
        if a[0] == 0x20 && a[1] == 0x02 { return Array(a[2..<6]) }  // 2002::/16 6to4
        if a[0] == 0x20 && a[1] == 0x01 && a[2] == 0 && a[3] == 0 { return last.map { $0 ^ 0xFF } }  // 2001::/32 Teredo client
        return nil
    }

    static func isInternalIPv4(_ a: [UInt8]) -> Bool {
        switch a[0] {
        case 0, 10, 127: return true  // this network, private, loopback
        case 100: return a[1] & 0xC0 == 64  // 100.64.0.0/10 shared (CGNAT)
        case 169: return a[1] == 254  // link-local (cloud metadata)
        case 172: return a[1] & 0xF0 == 16  // 172.16.0.0/12
        case 192: return (a[1] == 168) || (a[1] == 0 && a[2] == 0)  // 192.168/16, 192.0.0/24
        case 198: return a[1] & 0xFE == 18  // 198.18.0.0/15 benchmarking
        default: return a[0] >= 224  // multicast and reserved
        }
    }

    public static func describe(_ address: [UInt8]) -> String {
        if address.count == 4 { return address.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(address[$0]) << 8 | UInt16(address[$0 + 1]), radix: 16) }.joined(separator: ":")
    }
}
