/// The grammars of the URL-like values a project or link stores: web and store URLs, app schemes
/// and deep-link paths. Every check reads unicode scalars, never Characters: in Swift `"\r\n"` is
/// one Character, so a Character-based check let CRLF through into `Location` (response splitting).
public enum URLGrammar {
    /// Long enough for any store or campaign URL; short enough to fit comfortably in a header.
    public static let maxURLLength = 4096
    public static let maxDeepLinkPathLength = 2048

    /// Why `text` is not an absolute http(s) URL with a host, or nil when it is one.
    public static func httpURLProblem(_ text: String) -> String? {
        if let problem = forbiddenScalarProblem(text, allowingSpace: false) { return problem }
        guard text.utf8.count <= maxURLLength else { return "must be at most \(maxURLLength) bytes" }
        let bytes = Array(text.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return "must be an absolute http(s) URL" }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
        guard scheme == "http" || scheme == "https" else { return "must be an http(s) URL" }
        guard bytes.count >= colon + 3, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/") else {
            return "must be an absolute http(s) URL (scheme://host)"
        }
        // RFC 3986 §3.2: the authority ends at the first '/', '?' or '#'.
        var authority = bytes[(colon + 3)...].prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[(at + 1)...] }
        var host = authority
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return "has an unterminated IPv6 host" }
            host = authority[authority.startIndex...close]
            let rest = authority[(close + 1)...]
            if !rest.isEmpty, let problem = portProblem(rest) { return problem }
            guard host.count > 2, host.dropFirst().dropLast().allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else {
                return "has an invalid IPv6 host"
            }
            return nil
        }
        if let portColon = authority.lastIndex(of: UInt8(ascii: ":")) {
            host = authority[..<portColon]
            if let problem = portProblem(authority[portColon...]) { return problem }
        }
        guard !host.isEmpty else { return "must have a host" }
        // reg-name (RFC 3986 §3.2.2) with IDN hosts allowed as UTF-8.
        let hostOK = host.allSatisfy { byte in
            byte >= 0x80 || isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~") || byte == UInt8(ascii: "%")
        }
        return hostOK ? nil : "has an invalid host"
    }

    /// `^[a-z][a-z0-9+.-]*$` (RFC 3986 §3.1, lower-case only), at most 64 bytes.
    public static func isScheme(_ text: String) -> Bool {
        guard let first = text.utf8.first, first >= 0x61, first <= 0x7A, text.utf8.count <= 64 else { return false }
        return text.utf8.allSatisfy { byte in
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
        }
    }

    /// Why `text` is not a deep-link path (the part after `scheme://`), or nil when it is one:
    /// RFC 3986 path, query and fragment characters, percent-escapes and non-ASCII text allowed.
    public static func deepLinkPathProblem(_ text: String) -> String? {
        if let problem = forbiddenScalarProblem(text, allowingSpace: false) { return problem }
        guard text.utf8.count <= maxDeepLinkPathLength else { return "must be at most \(maxDeepLinkPathLength) bytes" }
        return nil
    }

    /// Control characters (C0, DEL, C1), the Unicode line and paragraph separators, space unless
    /// allowed, and `"`, `<`, `>`, `\`: never part of a URL (RFC 3986 §2), and the characters of an
    /// attempt to leave an HTML attribute or turn `\` into a path separator (browsers read
    /// `https://a\@b` as host b). `{`, `}`, `|`, `^` and backquote are not valid either, but ad-network
    /// URLs carry `{macros}` and browsers accept them, so they pass.
    static func forbiddenScalarProblem(_ text: String, allowingSpace: Bool) -> String? {
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x20 || value == 0x7F || (0x80...0x9F).contains(value) {
                return "must not contain control characters (found U+\(hex4(value)))"
            }
            if value == 0x2028 || value == 0x2029 { return "must not contain line or paragraph separators (found U+\(hex4(value)))" }
            if value == 0x20, !allowingSpace { return "must not contain spaces" }
            if value < 0x80, "\"<>\\".unicodeScalars.contains(scalar) {
                return "must not contain '\(Character(scalar))' (percent-encode it)"
            }
        }
        return nil
    }

    private static func portProblem(_ colonAndPort: ArraySlice<UInt8>) -> String? {
        let digits = colonAndPort.dropFirst()
        guard colonAndPort.first == UInt8(ascii: ":"), !digits.isEmpty, digits.count <= 5,
            digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let port = Int(String(decoding: digits, as: UTF8.self)), port <= 65_535
        else { return "has an invalid port" }
        return nil
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
