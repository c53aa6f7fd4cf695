import Attribution
import Foundation
import StoreContracts

/// The period an overview shows, in the project's time zone: the last 24 hours by hour, the last
/// 7, 30 or 90 days (today included) by day or week, or custom whole days (`from`, `to`
/// inclusive, `YYYY-MM-DD`). `boundaries` are the chart's buckets, local midnights for days.
struct DashboardRange {
    enum Bucket { case hour, day, week }

    static let presets: [(key: String, label: String)] = [("24h", "24 h"), ("7d", "7 days"), ("30d", "30 days"), ("90d", "90 days")]
    static let maximumDays = 366

    let key: String
    let since: Timestamp
    let until: Timestamp
    let bucket: Bucket
    let boundaries: [Timestamp]
    /// The custom range's dates, to carry into links.
    var from: String?
    var to: String?

    /// The query that shows this range again (for sorting, CSV).
    var query: HTML {
        guard let from, let to else { return "range=\(key)" }
        return "range=custom&amp;from=\(from)&amp;to=\(to)"
    }

    var bucketName: String {
        switch bucket {
        case .hour: "by hour"
        case .day: "by day"
        case .week: "by week"
        }
    }

    struct Problem: Error { let message: String }

    static func resolve(_ query: [(name: String, value: String)], calendar: LocalCalendar, now: Timestamp) throws -> DashboardRange {
        func item(_ name: String) -> String? { query.first { $0.name == name }?.value }
        let key = item("range") ?? "7d"
        let today = calendar.startOfDay(now)
        switch key {
        case "24h":
            let end = Timestamp(milliseconds: now.roundedDown(toMultipleOf: 3_600_000).milliseconds + 3_600_000)
            let boundaries = (0...24).map { end.adding(seconds: Int64($0 - 24) * 3600) }
            return DashboardRange(key: key, since: boundaries[0], until: end, bucket: .hour, boundaries: boundaries)
        case "7d", "30d", "90d":
            let count = key == "7d" ? 7 : key == "30d" ? 30 : 90
            return localDays(key: key, first: calendar.addingDays(1 - count, to: today), count: count, calendar: calendar)
        case "custom":
            guard let fromText = item("from"), let first = calendar.startOfDay(dateText: fromText) else {
                throw Problem(message: "from must be a date such as 2026-01-31")
            }
            guard let toText = item("to"), let last = calendar.startOfDay(dateText: toText) else {
                throw Problem(message: "to must be a date such as 2026-01-31")
            }
            guard first <= last else { throw Problem(message: "to must not be before from") }
            var count = 1
            while count <= maximumDays, calendar.addingDays(count, to: first) <= last { count += 1 }
            guard count <= maximumDays else { throw Problem(message: "a custom range covers at most \(maximumDays) days") }
            var range = localDays(key: key, first: first, count: count, calendar: calendar)
            range.from = fromText
            range.to = toText
            return range
        default:
            throw Problem(message: "range must be one of 24h, 7d, 30d, 90d or custom")
        }
    }

    /// `count` local days from `first`, by day up to two months and by week beyond.
    private static func localDays(key: String, first: Timestamp, count: Int, calendar: LocalCalendar) -> DashboardRange {
        let step = count > 62 ? 7 : 1
        var boundaries = stride(from: 0, to: count, by: step).map { calendar.addingDays($0, to: first) }
        let end = calendar.addingDays(count, to: first)
        boundaries.append(end)
        return DashboardRange(key: key, since: first, until: end, bucket: step == 7 ? .week : .day, boundaries: boundaries)
    }

    /// A bucket's label: its local hour, or its local date (`MM-DD`).
    func label(_ start: Timestamp, calendar: LocalCalendar) -> String {
        bucket == .hour ? calendar.timeText(start) : String(calendar.dateText(start).dropFirst(5))
    }
}

extension DashboardRange {
    /// The preset links and the custom-range form (a GET form, so it works without script); `carry`
    /// are the page's other query items (names as they are, values escaped here), kept as the
    /// range changes.
    func picker(
        base: String, calendar: LocalCalendar, carry: [(name: String, value: String)] = [],
        presets: [(key: String, label: String)] = DashboardRange.presets
    ) -> HTML {
        let carried = HTML(joining: carry.map { item -> HTML in "&amp;\(item.name)=\(Escape.queryValue(item.value))" })
        let links = presets.map { entry -> HTML in
            let current: HTML = entry.key == key ? #" aria-current="page""# : ""
            return #"<a href="\#(base)?range=\#(entry.key)\#(carried)"\#(current)>\#(entry.label)</a>"#
        }
        let from = self.from ?? calendar.dateText(since)
        let to = self.to ?? calendar.dateText(until.adding(seconds: -1))
        let hidden = carry.map { item -> HTML in #"<input type="hidden" name="\#(item.name)" value="\#(item.value)">"# }
        return """
            \(links)<form class="inline" method="get" action="\(base)"><input type="hidden" name="range" value="custom">\(hidden)\
            <label>From <input type="date" name="from" value="\(from)"></label> \
            <label>to <input type="date" name="to" value="\(to)"></label> <button>Show</button></form>
            """
    }
}

extension Escape {
    /// A query value inside an HTML attribute: percent-encoded (all but letters and digits), so
    /// that `&`, `=` or a space in a campaign's name stays in its value.
    static func queryValue(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }
}
