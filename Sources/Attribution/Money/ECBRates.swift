/// The European Central Bank's reference-rate files (`eurofxref.csv`, one day, and
/// `eurofxref-hist.csv`, every day since 1999): a header `Date, USD, JPY, …` and a row per day of
/// units per euro, the day as `2026-12-01` or `01 December 2026`, `N/A` where a currency had no
/// rate. Rates an operator gives come in the same shape.
public enum ECBRates {
    /// The days' rates, or why the file cannot be read (its line, and the column where one is at fault).
    public static func days(_ bytes: [UInt8]) -> Result<[String: [String: Double]], CostCSV.Refused> {
        func refused(_ line: Int, _ column: String?, _ reason: String) -> Result<[String: [String: Double]], CostCSV.Refused> {
            .failure(CostCSV.Refused(refusals: [CostCSV.Refusal(line: line, column: column, reason: reason)]))
        }
        let records: [(line: Int, fields: [String])]
        do {
            records = try CSVTable.records(bytes)
        } catch {
            return refused(error.line, nil, error.reason)
        }
        guard let header = records.first else { return refused(0, nil, "the file is empty") }
        let names = header.fields.map { $0.trimmingWhitespace().uppercased() }
        guard names.first == "DATE" else { return refused(header.line, names.first, "the first column must be Date") }
        for name in names.dropFirst() where !name.isEmpty && !MoneyAmount.isCurrencyCode(name) {
            return refused(header.line, name, "not a three-letter ISO 4217 code")
        }
        guard records.count > 1 else { return refused(0, nil, "the file has a header and no day") }
        var days: [String: [String: Double]] = [:]
        for record in records.dropFirst() {
            guard let text = record.fields.first?.trimmingWhitespace(), let day = day(text) else {
                return refused(record.line, "Date", "not a day ('2026-12-01' or '01 December 2026'): '\(record.fields.first ?? "")'")
            }
            var rates: [String: Double] = [:]
            for (name, field) in zip(names, record.fields).dropFirst() where !name.isEmpty {
                let value = field.trimmingWhitespace()
                if value.isEmpty || value.uppercased() == "N/A" { continue }
                guard let rate = Double(value), rate.isFinite, rate > 0 else {
                    return refused(record.line, name, "a rate must be a positive number, not '\(value)'")
                }
                rates[name] = rate
            }
            days[day] = rates
        }
        return .success(days)
    }

    private static let months = [
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december",
    ]

    /// `2026-12-01`, or the daily file's `01 December 2026`, as `YYYY-MM-DD`.
    static func day(_ text: String) -> String? {
        if CostCSV.isDay(text) { return text }
        let parts = text.split(separator: " ")
        guard parts.count == 3, let dayNumber = Int(parts[0]), let month = months.firstIndex(of: parts[1].lowercased()),
            parts[2].count == 4, Int(parts[2]) != nil
        else { return nil }
        let candidate = "\(parts[2])-\(month < 9 ? "0" : "")\(month + 1)-\(dayNumber < 10 ? "0" : "")\(dayNumber)"
        return CostCSV.isDay(candidate) ? candidate : nil
    }
}
