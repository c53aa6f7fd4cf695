#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 address and port, as the kernel reported it for a peer or a bound socket.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    public enum Family: Sendable, Hashable { case ipv4, ipv6 }

    public let family: Family
    /// 4 or 16 bytes in network order.
    public let addressBytes: [UInt8]
    public let port: UInt16

    public init(family: Family, addressBytes: [UInt8], port: UInt16) {
        self.family = family
        self.addressBytes = addressBytes
        self.port = port
    }

    /// Which client a connection counts against for `maxConnectionsPerClient`, and every
    /// per-client budget: the IPv4 address (also when IPv4-mapped), or the /64 of an IPv6 one.
    public var clientKey: ClientKey {
        if let mapped = ipv4Mapped { return mapped.clientKey }
        var key = ClientKey()
        for (index, byte) in addressBytes.prefix(family == .ipv4 ? 4 : 8).enumerated() {
            key.bits |= UInt64(byte) << (56 - 8 * UInt64(index))
        }
        key.isIPv6 = family == .ipv6
        return key
    }

    public struct ClientKey: Sendable, Hashable {
        var bits: UInt64 = 0
        var isIPv6 = false
        /// The key of a request whose client address is unknown (all such requests share it).
        public static let unknown = ClientKey()
    }

    /// Parses a numeric IPv4 or IPv6 literal (no host names).
    public init?(ip: String, port: UInt16 = 0) {
        var v4 = in_addr()
        if inet_pton(AF_INET, ip, &v4) == 1 {
            self.init(family: .ipv4, addressBytes: withUnsafeBytes(of: &v4) { Array($0) }, port: port)
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, ip, &v6) == 1 {
            self.init(family: .ipv6, addressBytes: withUnsafeBytes(of: &v6) { Array($0) }, port: port)
            return
        }
        return nil
    }

    /// The address as text: dotted IPv4, or compressed IPv6. An IPv4-mapped IPv6 address
    /// (`::ffff:1.2.3.4`, what a dual-stack socket reports for IPv4 peers) is shown as IPv4.
    public var ipString: String {
        if let mapped = ipv4Mapped { return mapped.ipString }
        if family == .ipv4, addressBytes.count == 4 { return Self.dottedDecimal(addressBytes) }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let af = family == .ipv4 ? AF_INET : AF_INET6
        addressBytes.withUnsafeBytes { raw in
            _ = inet_ntop(af, raw.baseAddress, &text, socklen_t(text.count))
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `a.b.c.d`, formatted by hand: it is asked for on every request that carries an address.
    private static func dottedDecimal(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: 15) { text in
            var count = 0
            for (position, byte) in bytes.enumerated() {
                if position > 0 {
                    text[count] = UInt8(ascii: ".")
                    count += 1
                }
                if byte >= 100 {
                    text[count] = 0x30 + byte / 100
                    count += 1
                }
                if byte >= 10 {
                    text[count] = 0x30 + byte / 10 % 10
                    count += 1
                }
                text[count] = 0x30 + byte % 10
                count += 1
            }
            return count
        }
    }

    /// The IPv4 address inside an IPv4-mapped IPv6 address, if this is one.
    public var ipv4Mapped: SocketAddress? {
        guard family == .ipv6, addressBytes.count == 16,
            addressBytes[0..<10].allSatisfy({ $0 == 0 }), addressBytes[10] == 0xFF, addressBytes[11] == 0xFF
        else { return nil }
        return SocketAddress(family: .ipv4, addressBytes: Array(addressBytes[12..<16]), port: port)
    }

    public var description: String {
        family == .ipv6 && ipv4Mapped == nil ? "[\(ipString)]:\(port)" : "\(ipString):\(port)"
    }

    init?(storage: sockaddr_storage) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let sin = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            var address = sin.sin_addr
            self.init(
                family: .ipv4, addressBytes: withUnsafeBytes(of: &address) { Array($0) },
                port: UInt16(bigEndian: sin.sin_port))
        case AF_INET6:
            let sin6 = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            var address = sin6.sin6_addr
            self.init(
                family: .ipv6, addressBytes: withUnsafeBytes(of: &address) { Array($0) },
                port: UInt16(bigEndian: sin6.sin6_port))
        default:
            return nil
        }
    }
}
