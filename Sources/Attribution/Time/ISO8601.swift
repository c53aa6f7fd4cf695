import Foundation

extension Timestamp {
    /// `2026-11-20T10:00:05Z`: UTC, no fractional seconds (the iOS SDKs reject fractions).
    public var iso8601: String {
        var seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int = 2) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))T"
            + "\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec))Z"
    }

    /// Parses ISO 8601 date-times with a zone (`Z` or `±hh:mm`), with or without fractional
    /// seconds, or a date alone (midnight UTC).
    public init?(iso8601 text: String) {
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        let dateOnly = ISO8601DateFormatter()
        dateOnly.formatOptions = [.withFullDate]
        guard let date = plain.date(from: text) ?? withFraction.date(from: text) ?? dateOnly.date(from: text) else { return nil }
        self.init(date)
    }
}
