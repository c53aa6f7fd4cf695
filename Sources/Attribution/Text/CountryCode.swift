/// ISO 3166-1 alpha-2 country codes, from what SDKs send: a `country` field, or a locale or
/// language tag whose region subtag names one (`fr_FR`, `en-US`, `zh-Hant-TW`).
public enum CountryCode {
    /// Two ASCII letters, upper-cased; nil for anything else.
    public static func normalized(_ text: String?) -> String? {
        guard let text, text.utf8.count == 2, text.utf8.allSatisfy({ ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A }) else { return nil }
        return text.uppercased()
    }

    /// The region of a locale or BCP-47 tag: the first two-letter subtag after the language.
    public static func region(ofLocale tag: String?) -> String? {
        guard let tag else { return nil }
        let subtags = tag.split(whereSeparator: { $0 == "_" || $0 == "-" || $0 == "@" || $0 == "." }).dropFirst()
        return subtags.lazy.compactMap { normalized(String($0)) }.first
    }
}
