/// Short codes: generated ones are 8 random characters of [A-Za-z0-9] (62^8 ≈ 2·10^14, so a
/// collision is rare and retried); custom ones are [A-Za-z0-9_-]{3,64}.
public enum ShortCode {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    public static func generate<R: RandomNumberGenerator>(using generator: inout R) -> String {
        String((0..<8).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    /// `length` random characters of [A-Za-z0-9] (FDL's short links: from 4, or 17 unguessable).
    public static func generate(length: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return generate(using: &generator)
    }

    /// First path segments of the server's fixed routes (links-and-clicks.md, "Click routes"). A
    /// link or template slug with one of these names could never be reached, so none may have one.
    /// The router reserves the same list, so a new fixed route is added here.
    public static let reservedWords = ["api", "health", ".well-known", "metrics", "c", "admin", "v1", "v2", "dashboard", "tls", "notifications"]

    /// Whether `code` is a reserved word, whatever its case (browsers and people type either).
    public static func isReserved(_ code: String) -> Bool {
        reservedWords.contains { $0.utf8.count == code.utf8.count && $0 == code.lowercased() }
    }

    public static func isValidCustom(_ code: String) -> Bool {
        (3...64).contains(code.utf8.count) && code.utf8.allSatisfy(isCodeByte)
    }

    /// `A-Z`, `a-z`, `0-9`, `_` or `-`.
    static func isCodeByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }
}
