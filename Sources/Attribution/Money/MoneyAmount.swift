/// Amounts of money as people read them: a currency's own number of decimals (ISO 4217 minor
/// units), never binary noise. Amounts are stored as clients send them and summed in SQL; a sum of
/// a million cents is off by about 1e-10 at most, so rounding it to the currency's unit gives the
/// exact total (194.94000000000003 is 194.94).
public enum MoneyAmount {
    /// Currencies without the usual two decimals.
    private static let digits: [String: Int] = [
        "BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0, "RWF": 0, "UGX": 0,
        "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
        "BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3,
        "CLF": 4, "UYW": 4,
    ]

    /// Whether `text` has an ISO 4217 code's shape: three letters A to Z.
    public static func isCurrencyCode(_ text: String) -> Bool { text.utf8.count == 3 && text.utf8.allSatisfy { $0 >= 0x41 && $0 <= 0x5A } }

    /// The currency's minor-unit decimals (2 unless ISO 4217 says otherwise).
    public static func decimals(_ currency: String) -> Int { digits[currency.uppercased()] ?? 2 }

    /// `amount` rounded to the currency's decimals.
    public static func rounded(_ amount: Double, currency: String) -> Double {
        guard amount.isFinite else { return amount }
        var scale = 1.0
        for _ in 0..<decimals(currency) { scale *= 10 }
        return (amount * scale).rounded() / scale
    }

    /// `EUR 19.99`, `JPY 1200`, `KWD 1.500`: the currency's decimals, always.
    public static func text(_ amount: Double, currency: String) -> String {
        let places = decimals(currency)
        let value = rounded(amount, currency: currency)
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        // Beyond what Int64 holds in minor units, no real amount lives: shown as it is.
        guard value.isFinite, abs(value) * scale < 9e15 else { return "\(currency) \(value)" }
        let units = Int64((abs(value) * scale).rounded())
        let whole = units / Int64(scale)
        let fraction = units % Int64(scale)
        var text = (value < 0 && units > 0 ? "-" : "") + String(whole)
        if places > 0 {
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: places - digits.count) + digits
        }
        return "\(currency) \(text)"
    }
}
