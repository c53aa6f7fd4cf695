/// The site a click came from, as the breakdowns group it: the host of its `Referer`, in ASCII
/// lower case, without user info, port or a leading `www.`; "" when there is none (a direct
/// visit, an app that sends no referrer).
///
/// Kept to steps that read the same in SQL: SQLite's trigger calls this function (registered on
/// every connection as `referrer_host`), PostgreSQL's runs `referrer_host` of postgres/0021, and
/// the two must group a referrer alike (`BreakdownTests` compares them on the same inputs).
public enum ReferrerHost {
    public static func of(_ referrer: String?) -> String {
        guard let referrer, !referrer.isEmpty else { return "" }
        var host = ArraySlice(referrer.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 })
        if let scheme = firstIndex(of: Array("://".utf8), in: host) { host = host[(scheme + 3)...] }
        if let end = host.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            host = host[..<end]
        }
        if let at = host.lastIndex(of: UInt8(ascii: "@")) { host = host[(at + 1)...] }
        if let colon = host.firstIndex(of: UInt8(ascii: ":")) { host = host[..<colon] }
        if host.starts(with: "www.".utf8) { host = host.dropFirst(4) }
        return String(decoding: host, as: UTF8.self)
    }

    private static func firstIndex(of needle: [UInt8], in bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        for start in bytes.startIndex...(bytes.endIndex - needle.count) where bytes[start..<start + needle.count].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
