/// A moment as people type it in a query or a flag: ISO 8601, epoch milliseconds, or a span back
/// from now (`7d`, `24h`, `30m`).
public enum TimeSpecification {
    public static let expected = "an ISO 8601 time, epoch milliseconds, or a span such as 7d, 24h, 30m"

    /// Nil when `text` is none of those.
    public static func parse(_ text: String, now: Timestamp) -> Timestamp? {
        if let unit = text.last, "dhm".contains(unit), let amount = Int64(text.dropLast()), amount >= 0 {
            let unitMilliseconds: Int64 = (unit == "d" ? 86_400 : unit == "h" ? 3_600 : 60) * 1000
            // A span too long for 64-bit milliseconds is no time at all (not a trap).
            let (span, tooLong) = amount.multipliedReportingOverflow(by: unitMilliseconds)
            let (moment, beforeAnyTime) = now.milliseconds.subtractingReportingOverflow(span)
            return tooLong || beforeAnyTime ? nil : Timestamp(plausibleMilliseconds: moment)
        }
        if !text.isEmpty, text.allSatisfy(\.isNumber), let milliseconds = Int64(text) { return Timestamp(plausibleMilliseconds: milliseconds) }
        return Timestamp(iso8601: text)
    }
}
