/// Short codes: generated ones are 8 random characters of [A-Za-z0-9] (62^8 ≈ 2·10^14, so a
/// collision is rare and retried); custom ones are [A-Za-z0-9_-]{3,64}.
public enum ShortCode {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    public static func generate<R: RandomNumberGenerator>(using generator: inout R) -> String {
        String((0..<8).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return generate(using: &generator)
    }

    public static func isValidCustom(_ code: String) -> Bool {
        (3...64).contains(code.utf8.count) && code.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }
}
