/// A cost upload: a CSV table with a header row naming its columns, in any order —
/// `date, network, campaign_id, campaign_name, spend` always, `adgroup_id, ad_id, currency,
/// impressions, clicks` when the network has them (a missing currency is the project's). Read
/// whole before anything is stored: one refused cell refuses the upload, and every refusal names
/// its line and column.
public enum CostCSV {
    public struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// The 1-based line of the file (the header is line 1); 0 for the file as a whole.
        public let line: Int
        /// The column's name from the header, or nil for the whole line or file.
        public let column: String?
        public let reason: String

        public init(line: Int, column: String?, reason: String) {
            self.line = line
            self.column = column
            self.reason = reason
        }

        public var description: String {
            (line > 0 ? "line \(line)" : "the file") + (column.map { ", column \($0)" } ?? "") + ": " + reason
        }
    }

    /// Every refusal of an upload, in the order of the file.
    public struct Refused: Error, Sendable, Equatable {
        public let refusals: [Refusal]
    }

    public static let requiredColumns = ["date", "network", "campaign_id", "campaign_name", "spend"]
    public static let optionalColumns = ["adgroup_id", "ad_id", "currency", "impressions", "clicks"]
    /// At most this many rows an upload (a year of 500 campaigns by day is 182,500).
    public static let maximumRows = 500_000
    /// At most this many refusals are told; the count says how many there were.
    public static let toldRefusals = 50

    /// The rows of `bytes`, or every refusal (at most `toldRefusals`) when any cell is wrong.
    /// - Parameter currency: the currency of rows that name none.
    public static func rows(_ bytes: [UInt8], currency: String) -> Result<[CostRow], Refused> {
        let records: [(line: Int, fields: [String])]
        do {
            records = try CSVTable.records(bytes)
        } catch {
            return .failure(Refused(refusals: [Refusal(line: error.line, column: nil, reason: error.reason)]))
        }
        guard let header = records.first else { return .failure(Refused(refusals: [Refusal(line: 0, column: nil, reason: "the file is empty")])) }
        let names = header.fields.map { $0.trimmingWhitespace().lowercased() }
        var refusals: [Refusal] = []
        for (index, name) in names.enumerated() where names.firstIndex(of: name) != index {
            refusals.append(Refusal(line: header.line, column: name, reason: "the column is named twice"))
        }
        for name in names where !requiredColumns.contains(name) && !optionalColumns.contains(name) {
            refusals.append(
                Refusal(
                    line: header.line, column: name,
                    reason: "unknown column; the columns are \((requiredColumns + optionalColumns).joined(separator: ", "))"))
        }
        for name in requiredColumns where !names.contains(name) {
            refusals.append(Refusal(line: header.line, column: name, reason: "the header has no such column, which every upload needs"))
        }
        guard refusals.isEmpty else { return .failure(Refused(refusals: refusals)) }
        guard records.count - 1 <= maximumRows else {
            return .failure(
                Refused(refusals: [Refusal(line: 0, column: nil, reason: "\(records.count - 1) rows; an upload has at most \(maximumRows)")]))
        }
        var rows: [CostRow] = []
        rows.reserveCapacity(records.count - 1)
        var keys: [String: Int] = [:]
        for record in records.dropFirst() {
            guard record.fields.count == names.count else {
                refusals.append(Refusal(line: record.line, column: nil, reason: "\(record.fields.count) fields; the header names \(names.count)"))
                continue
            }
            var cells: [String: String] = [:]
            for (name, value) in zip(names, record.fields) { cells[name] = value.trimmingWhitespace() }
            switch row(cells, line: record.line, currency: currency) {
            case .success(let row):
                let key = [row.day, row.network, row.campaignKey, row.adGroupID, row.adID].joined(separator: "\u{1F}")
                if let earlier = keys[key] {
                    refusals.append(
                        Refusal(line: record.line, column: nil, reason: "the same day, network, campaign, ad group and ad as line \(earlier)"))
                } else {
                    keys[key] = record.line
                    rows.append(row)
                }
            case .failure(let refused): refusals += refused.refusals
            }
            if refusals.count >= toldRefusals { break }
        }
        return refusals.isEmpty ? .success(rows) : .failure(Refused(refusals: Array(refusals.prefix(toldRefusals))))
    }

    private static func row(_ cells: [String: String], line: Int, currency: String) -> Result<CostRow, Refused> {
        var refusals: [Refusal] = []
        func refuse(_ column: String, _ reason: String) { refusals.append(Refusal(line: line, column: column, reason: reason)) }
        let day = cells["date"] ?? ""
        if !isDay(day) { refuse("date", "must be a day as YYYY-MM-DD, not '\(day)'") }
        let network = (cells["network"] ?? "").lowercased()
        if network.isEmpty { refuse("network", "must name the network (google, meta, apple_ads…)") }
        let campaignID = cells["campaign_id"] ?? ""
        let campaignName = cells["campaign_name"] ?? ""
        if campaignID.isEmpty && campaignName.isEmpty { refuse("campaign_id", "a row needs a campaign id or a campaign name") }
        for (column, value) in [("network", network), ("campaign_id", campaignID), ("campaign_name", campaignName)] where value.count > 200 {
            refuse(column, "at most 200 characters")
        }
        let spendText = cells["spend"] ?? ""
        let spend = micros(spendText)
        if spend == nil { refuse("spend", "must be a number such as 12.50, not '\(spendText)'") }
        if let spend, spend < 0 { refuse("spend", "must not be negative") }
        let rowCurrency = (cells["currency"].flatMap { $0.isEmpty ? nil : $0 } ?? currency).uppercased()
        if !MoneyAmount.isCurrencyCode(rowCurrency) {
            refuse("currency", "must be a three-letter ISO 4217 code such as USD, not '\(cells["currency"] ?? "")'")
        }
        func count(_ column: String) -> Int64? {
            guard let text = cells[column], !text.isEmpty else { return nil }
            guard let value = Int64(text), value >= 0 else {
                refuse(column, "must be a whole number, 0 or more, not '\(text)'")
                return nil
            }
            return value
        }
        let impressions = count("impressions")
        let clicks = count("clicks")
        guard refusals.isEmpty, let spend else { return .failure(Refused(refusals: refusals)) }
        return .success(
            CostRow(
                day: day, network: network, campaignID: campaignID, campaignName: campaignName, adGroupID: cells["adgroup_id"] ?? "",
                adID: cells["ad_id"] ?? "", spendMicros: spend, currency: rowCurrency, impressions: impressions, clicks: clicks))
    }

    /// `YYYY-MM-DD` of a real day (1970 to 9999).
    public static func isDay(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy { $0 >= "0" && $0 <= "9" } }),
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            year >= 1970, (1...12).contains(month), day >= 1
        else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return day <= lengths[month - 1]
    }

    /// A decimal number (`12`, `12.5`, `-0.25`, `1e3` is not one) in millionths, exactly; nil when
    /// it is none, has more than six decimals, or does not fit.
    public static func micros(_ text: String) -> Int64? {
        var digits = Substring(text)
        var negative = false
        if digits.first == "-" {
            negative = true
            digits = digits.dropFirst()
        }
        let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty || parts.count == 2 else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard !(whole.isEmpty && fraction.isEmpty), fraction.count <= 6,
            (whole + fraction).allSatisfy({ $0 >= "0" && $0 <= "9" })
        else { return nil }
        guard let units = Int64(whole.isEmpty ? "0" : whole), units <= 9_000_000_000_000 else { return nil }
        let padded = fraction + String(repeating: "0", count: 6 - fraction.count)
        let value = units * 1_000_000 + (Int64(padded) ?? 0)
        return negative ? -value : value
    }
}
