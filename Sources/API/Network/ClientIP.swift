import Attribution
public import HTTP

/// An IPv4 or IPv6 network (`10.0.0.0/8`, `2001:db8::/32`, or one address).
public struct CIDRBlock: Sendable, Equatable {
    let network: SocketAddress
    let prefixLength: Int

    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let address = SocketAddress(ip: String(parts[0])) else { return nil }
        let maximum = address.family == .ipv4 ? 32 : 128
        let length = parts.count == 2 ? Int(parts[1]) : maximum
        guard let length, (0...maximum).contains(length) else { return nil }
        network = address
        prefixLength = length
    }

    public func contains(_ address: SocketAddress) -> Bool {
        let candidate = address.ipv4Mapped ?? address
        guard candidate.family == network.family else { return false }
        var remaining = prefixLength
        for (a, b) in zip(candidate.addressBytes, network.addressBytes) {
            if remaining <= 0 { return true }
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if a & mask != b & mask { return false }
            remaining -= 8
        }
        return true
    }
}

/// The client's address: the TCP peer, unless the peer is a trusted proxy, in which case the
/// right-most address of `X-Forwarded-For` (else `Forwarded`) that is not itself a trusted proxy.
/// Headers from anyone else are ignored: they are trivially forged.
public struct ClientIPResolver: Sendable {
    let trusted: [CIDRBlock]

    public init(trustedProxies: [String]) {
        trusted = trustedProxies.compactMap(CIDRBlock.init)
    }

    func isTrusted(_ address: SocketAddress) -> Bool { trusted.contains { $0.contains(address) } }

    public func clientAddress(of request: HTTPRequest) -> SocketAddress? {
        if let resolved = request.resolvedClientAddress { return resolved }
        guard let peer = request.remoteAddress else { return nil }
        guard isTrusted(peer) else { return peer.ipv4Mapped ?? peer }
        let hops = Self.forwardedFor(request.headers)
        // Walk from the nearest hop outwards; the first one we do not trust is the client.
        for hop in hops.reversed() {
            guard let address = hop else { return peer.ipv4Mapped ?? peer }  // unparseable: stop trusting the chain
            if !isTrusted(address) { return address }
        }
        return hops.first.flatMap { $0 } ?? (peer.ipv4Mapped ?? peer)
    }

    /// The chain of addresses, left (client side) to right (nearest). nil entries did not parse.
    static func forwardedFor(_ headers: HTTPHeaders) -> [SocketAddress?] {
        let xff = headers.values(for: "X-Forwarded-For")
        // One proxy in front, one address: what nearly every proxied request carries.
        if xff.count == 1, !xff[0].utf8.contains(UInt8(ascii: ",")) { return [parseHop(xff[0].trimmingOWS())] }
        if !xff.isEmpty {
            return xff.flatMap { $0.split(separator: ",") }.map { parseHop($0.trimmingOWS()) }
        }
        // RFC 7239: Forwarded: for=192.0.2.60;proto=http, for="[2001:db8::1]:4711"
        return headers.values(for: "Forwarded").flatMap { $0.split(separator: ",") }.compactMap { element -> SocketAddress?? in
            for pair in element.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingOWS().equalsIgnoringASCIICase("for") else { continue }
                return .some(parseHop(parts[1].trimmingOWS()))
            }
            return nil
        }
    }

    /// `1.2.3.4`, `1.2.3.4:5678`, `2001:db8::1`, `[2001:db8::1]:443`, `"[2001:db8::1]"`.
    static func parseHop(_ text: Substring) -> SocketAddress? {
        var value = text
        // Byte tests first: hops are ASCII, and Character tests walk grapheme clusters.
        if value.utf8.first == UInt8(ascii: "\""), value.utf8.last == UInt8(ascii: "\""), value.utf8.count >= 2 {
            value = value.dropFirst().dropLast()
        }
        if value.utf8.first == UInt8(ascii: "[") {
            guard let close = value.firstIndex(of: "]") else { return nil }
            return SocketAddress(ip: String(value[value.index(after: value.startIndex)..<close]))
        }
        if let address = SocketAddress(ip: String(value)) { return address }
        // IPv4 with a port.
        if let colon = value.lastIndex(of: ":"), value.filter({ $0 == ":" }).count == 1 {
            return SocketAddress(ip: String(value[..<colon]))
        }
        return nil
    }

    /// The scheme the client used: `https` when a trusted proxy says so, else what we serve.
    public func scheme(of request: HTTPRequest, servingTLS: Bool = false) -> String {
        if let peer = request.remoteAddress, isTrusted(peer) {
            if let proto = request.headers["X-Forwarded-Proto"]?.split(separator: ",").first?.trimmingOWS().lowercased(),
                proto == "https" || proto == "http"
            {
                return proto
            }
        }
        return servingTLS ? "https" : "http"
    }
}

extension SocketAddress {
    /// What probabilistic matching compares (see `NetworkKey`): for IPv4 the address itself.
    public var matchingKey: String {
        let address = ipv4Mapped ?? self
        return address.family == .ipv4 ? address.ipString : NetworkKey.key(addressBytes: address.addressBytes)
    }
}
