import Foundation

/// The European Central Bank's daily reference rates as it publishes them unzipped
/// (`eurofxref-daily.xml`): `<Cube time='2026-11-27'>` holding `<Cube currency='USD'
/// rate='1.0400'/>` per currency. Read by its attributes alone; anything else in the document is
/// ignored.
public enum ECBDailyXML {
    /// Each day's rates; empty when the document holds none.
    public static func days(_ text: String) -> [String: [String: Double]] {
        var days: [String: [String: Double]] = [:]
        var current: String?
        var rest = Substring(text)
        while let open = rest.range(of: "<Cube") {
            guard let close = rest[open.upperBound...].firstIndex(of: ">") else { break }
            let tag = rest[open.upperBound..<close]
            if let time = attribute("time", in: tag), CostCSV.isDay(time) {
                current = time
                days[time, default: [:]] = days[time] ?? [:]
            } else if let day = current, let currency = attribute("currency", in: tag), MoneyAmount.isCurrencyCode(currency),
                let rateText = attribute("rate", in: tag), let rate = Double(rateText), rate.isFinite, rate > 0
            {
                days[day, default: [:]][currency] = rate
            }
            rest = rest[rest.index(after: close)...]
        }
        return days.filter { !$0.value.isEmpty }
    }

    /// `name='value'` or `name="value"` in a tag's text.
    static func attribute(_ name: String, in tag: Substring) -> String? {
        for quote in ["'", "\""] {
            guard let start = tag.range(of: " \(name)=\(quote)") else { continue }
            let value = tag[start.upperBound...]
            guard let end = value.firstIndex(of: Character(quote)) else { return nil }
            return String(value[..<end])
        }
        return nil
    }
}
