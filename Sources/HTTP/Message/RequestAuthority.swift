/// The host a request names (RFC 9112 §3.2.2, RFC 3986 §3.2.2), as one canonical name: the
/// absolute-form target's authority when the target has one (it wins over Host), else the Host
/// header; lower-cased, without port, without the root's trailing dot (`shop.test.` is the same
/// DNS name as `shop.test`). Bracketed IPv6 literals keep their brackets.
///
/// A name that routes to a tenant must be spelt one way only: `Host: links.a-shop.com.` was not
/// matched to the claim of `links.a-shop.com`, and served every project's links there.
public enum RequestAuthority {
    /// The canonical host of `authority` (`host[:port]`), or nil when it is not a valid authority:
    /// an empty or over-long name, an empty label (`a..b`, `.a`), a character outside a reg-name,
    /// an empty, non-numeric, 6-digit or above-65535 port.
    public static func hostName(of authority: some StringProtocol) -> String? {
        guard let host = hostBytes(of: authority) else { return nil }
        return String(decoding: host, as: UTF8.self).lowercased()
    }

    /// Whether `authority` is a valid authority (`hostName(of:)` is non-nil): the parser asks this
    /// of every request, so it only reads the bytes, without a copy or a string.
    public static func isValid(_ authority: String) -> Bool {
        var authority = authority
        return authority.withUTF8 { hostBytes(of: $0) != nil }
    }

    private static func hostBytes(of authority: some StringProtocol) -> ArraySlice<UInt8>? {
        var authority = String(authority)
        return authority.withUTF8 { buffer in hostBytes(of: buffer).map { ArraySlice($0) } }
    }

    /// The host part of `bytes` (brackets kept, a trailing dot dropped), or nil when `bytes` is no
    /// valid authority.
    private static func hostBytes(of bytes: UnsafeBufferPointer<UInt8>) -> Slice<UnsafeBufferPointer<UInt8>>? {
        guard !bytes.isEmpty, bytes.count <= 255 else { return nil }
        var host = bytes[...]
        var portPart = bytes[bytes.endIndex...]
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")), close > 1 else { return nil }
            host = bytes[...close]
            portPart = bytes[(close + 1)...]
            guard host.dropFirst().dropLast().allSatisfy({ isHex($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else {
                return nil
            }
        } else {
            if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
                host = bytes[..<colon]
                portPart = bytes[colon...]
            }
            if host.last == UInt8(ascii: ".") { host = host.dropLast() }
            guard !host.isEmpty, host.first != UInt8(ascii: "."),
                host.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") })
            else { return nil }
            var previous: UInt8 = 0
            for byte in host {
                if byte == UInt8(ascii: "."), previous == UInt8(ascii: ".") { return nil }
                previous = byte
            }
        }
        guard isPort(portPart) else { return nil }
        return host
    }

    /// The authority of an absolute-form target (`http://host:port/path`), or nil for origin-form.
    public static func authority(ofTarget target: String) -> Substring? {
        let lowered = target.prefix(8).lowercased()
        let schemeLength = lowered.hasPrefix("http://") ? 7 : lowered.hasPrefix("https://") ? 8 : 0
        guard schemeLength > 0 else { return nil }
        let rest = target.dropFirst(schemeLength)
        let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        return rest[..<end]
    }

    /// Absent, or ":" and 1 to 5 digits naming 0…65535.
    static func isPort(_ colonAndDigits: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard let first = colonAndDigits.first else { return true }
        let digits = colonAndDigits.dropFirst()
        guard first == UInt8(ascii: ":"), (1...5).contains(digits.count), digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return false
        }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) } <= 65_535
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }
}

extension HTTPRequest {
    /// The canonical host this request names (`RequestAuthority`): the absolute-form target's
    /// authority, else Host; nil when neither is present or valid (the parser refuses an invalid one).
    public var hostName: String? {
        if let authority = RequestAuthority.authority(ofTarget: target) { return RequestAuthority.hostName(of: authority) }
        return headers["Host"].flatMap { RequestAuthority.hostName(of: $0) }
    }
}
