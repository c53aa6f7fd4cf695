/// A complete request: head, body and where it came from.
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// The request-target exactly as sent (RFC 9112 §3.2).
    public var target: String
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The TCP peer; nil for requests built in tests.
    public var remoteAddress: SocketAddress?
    /// The client's address once the application has resolved it (behind a trusted proxy, the
    /// forwarded one): set by the outermost responder so that the rate limiter, the handler and
    /// the request log read one answer instead of parsing the forwarding headers each.
    public var resolvedClientAddress: SocketAddress?
    /// Named segments captured by the router (`/:code` → `["code": "abc"]`), percent-decoded.
    public var pathParameters: [String: String] = [:]
    /// Where to finish this request from another thread; nil for requests built in tests.
    public var executor: ResponseExecutor?

    public init(
        method: HTTPMethod, target: String, version: HTTPVersion = .http1_1,
        headers: HTTPHeaders = [:], body: [UInt8] = [], remoteAddress: SocketAddress? = nil
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The path part of the target, still percent-encoded. For absolute-form targets
    /// (RFC 9112 §3.2.2) the scheme and authority are dropped.
    public var path: Substring {
        // Byte searches: the target is ASCII (the parser refuses anything else), and a
        // Character search would walk grapheme clusters.
        var rest = Substring(target)
        // absolute-form: skip "scheme://authority".
        if rest.utf8.first != UInt8(ascii: "/"), let colon = rest.utf8.firstIndex(of: UInt8(ascii: ":")) {
            rest = rest[colon...].dropFirst(3)
            rest = rest.utf8.firstIndex(of: UInt8(ascii: "/")).map { rest[$0...] } ?? "/"
        }
        if let query = rest.utf8.firstIndex(of: UInt8(ascii: "?")) { return rest[..<query] }
        return rest
    }

    /// The query string without the `?`, or nil when the target has none.
    public var query: Substring? {
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        return target[target.utf8.index(after: mark)...]
    }

    /// Query parameters in order, percent-decoded, `+` read as a space (HTML form encoding).
    /// Parsed on each call, split on bytes (`&` and `=` are ASCII): a handler that needs several
    /// parameters reads this once.
    public var queryItems: [(name: String, value: String)] {
        guard let query else { return [] }
        return Self.queryItems(of: query)
    }

    /// A query string's parameters (no `?`), read as `queryItems` reads the request's.
    public static func queryItems(of query: Substring) -> [(name: String, value: String)] {
        var items: [(name: String, value: String)] = []
        for pair in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let text = Substring(pair)
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else {
                items.append((name: PercentDecoding.decode(text, plusAsSpace: true), value: ""))
                continue
            }
            items.append(
                (
                    name: PercentDecoding.decode(text[..<equals], plusAsSpace: true),
                    value: PercentDecoding.decode(text[text.utf8.index(after: equals)...], plusAsSpace: true)
                ))
        }
        return items
    }

    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// Whether the client asked to keep the connection open after this request
    /// (RFC 9112 §9.3: persistent by default in 1.1, opt-in with `keep-alive` in 1.0).
    public var wantsKeepAlive: Bool {
        switch version {
        case .http1_1: return !headers.listContains("Connection", token: "close")
        case .http1_0: return headers.listContains("Connection", token: "keep-alive")
        }
    }
}

enum PercentDecoding {
    static func decode(_ text: Substring, plusAsSpace: Bool) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                // A "%" without two hex digits after it stays as it is, with what follows it.
                let high = iterator.next()
                let low = high == nil ? nil : iterator.next()
                if let high, let low, let h = hexValue(high), let l = hexValue(low) {
                    bytes.append(h << 4 | l)
                } else {
                    bytes.append(byte)
                    if let high { bytes.append(high) }
                    if let low { bytes.append(low) }
                }
            } else if plusAsSpace, byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
