import Foundation

/// Days in a project's time zone (an IANA name such as Europe/Berlin): where the dashboard's
/// ranges begin and end and where its charts' days start. Days are found through the zone's rules,
/// so a day across a daylight-saving change has 23 or 25 hours.
public struct LocalCalendar: Sendable {
    public let identifier: String
    private let calendar: Calendar

    public init?(identifier: String) {
        guard !identifier.isEmpty, identifier.count <= 64, let zone = TimeZone(identifier: identifier) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        self.identifier = identifier
        self.calendar = calendar
    }

    public static let utc = LocalCalendar(identifier: "UTC")!

    /// The start of the local day that holds `time`.
    public func startOfDay(_ time: Timestamp) -> Timestamp { Timestamp(calendar.startOfDay(for: time.date)) }

    /// The start of the local day `days` after the day that starts at `dayStart` (or before it).
    public func addingDays(_ days: Int, to dayStart: Timestamp) -> Timestamp {
        guard let date = calendar.date(byAdding: .day, value: days, to: dayStart.date) else { return dayStart.adding(seconds: Int64(days) * 86400) }
        return startOfDay(Timestamp(date))
    }

    /// The local date of `time` as `YYYY-MM-DD`.
    public func dateText(_ time: Timestamp) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: time.date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// The local time of day of `time` as `HH:MM`.
    public func timeText(_ time: Timestamp) -> String {
        let parts = calendar.dateComponents([.hour, .minute], from: time.date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    /// The start of the local day a `YYYY-MM-DD` date names; nil when it names none.
    public func startOfDay(dateText text: String) -> Timestamp? {
        let fields = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.count == 10, fields.count == 3, fields.allSatisfy({ $0.allSatisfy(\.isASCII) }),
            let year = Int(fields[0]), let month = Int(fields[1]), let day = Int(fields[2]),
            (1970...9999).contains(year), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        let parts = DateComponents(year: year, month: month, day: day)
        guard let date = calendar.date(from: parts), calendar.dateComponents([.year, .month, .day], from: date) == parts else { return nil }
        return startOfDay(Timestamp(date))
    }
}
