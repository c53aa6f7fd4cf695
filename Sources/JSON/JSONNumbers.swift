/// Numbers read from a client, turned into integers or text without ever trapping.
///
/// `Int64(someDouble)` traps when the double is beyond Int64's range (`1e19`, `1e308`) or not a
/// number, and a client chooses that double: one request would take the whole process down. Every
/// conversion of a parsed number goes through these, which answer nil (or plain decimal text)
/// instead.
extension Double {
    /// The number as an integer when it is whole and within ±2^53 (the range where a double holds
    /// every integer exactly); nil otherwise.
    public var exactInteger: Int64? {
        guard magnitude <= 9_007_199_254_740_992, let whole = Int64(exactly: self) else { return nil }
        return whole
    }

    /// The number as a client would write it: whole numbers within ±2^53 without a fraction
    /// (`63`, not `63.0`), the rest as Swift prints doubles (`1e+19`, `0.5`).
    public var decimalText: String {
        if let whole = exactInteger { return String(whole) }
        return isFinite ? String(self) : "null"
    }
}
