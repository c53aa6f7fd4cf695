public import Attribution
public import JSON

/// A ROAS report's row as the admin API, its CSV and the dashboard name its columns: the one
/// list of them, in order. Money is rounded to the reporting currency's digits, ratios to four
/// places; a figure that cannot be (CPI without installs, ROAS without spend) is null.
public enum ROASFields {
    public static let columns = [
        "network", "campaign_id", "campaign_name", "adgroup_id", "adgroup_name", "spend", "impressions", "clicks", "installs", "cpi", "paying_users",
        "revenue_d0",
        "revenue_d7", "revenue_d30", "refunds", "roas_d0", "roas_d7", "roas_d30", "has_cost", "has_installs",
    ]

    public static func values(_ row: ROASReport.Row, currency: String) -> [JSONValue] {
        func money(_ amount: Double?) -> JSONValue { amount.map { .number(MoneyAmount.rounded($0, currency: currency)) } ?? .null }
        func ratio(_ value: Double?) -> JSONValue { value.map { .number(($0 * 10_000).rounded() / 10_000) } ?? .null }
        return [
            .string(row.network), .string(row.campaignID), .string(row.campaignName), .string(row.adGroupID), .string(row.adGroupName),
            row.hasCost ? money(row.spend) : .null,
            .number(Double(row.impressions)), .number(Double(row.clicks)), .number(Double(row.installs)), money(row.cpi),
            .number(Double(row.payingInstalls)), money(row.revenue[0] ?? 0), money(row.revenue[7] ?? 0), money(row.revenue[30] ?? 0),
            money(row.refunds),
            ratio(row.roas(0)), ratio(row.roas(7)), ratio(row.roas(30)), .bool(row.hasCost), .bool(row.hasInstalls),
        ]
    }

    static func object(_ row: ROASReport.Row, currency: String) -> JSONValue {
        .object(Dictionary(uniqueKeysWithValues: zip(columns, values(row, currency: currency))))
    }

    /// The report as JSON: its rows, their totals, and what its conversion could not do exactly.
    public static func json(_ report: ROASReport, since: String, until: String, by grouping: ROASReport.Grouping) -> JSONValue {
        .object([
            "since": .string(since), "until": .string(until), "by": .string(grouping.rawValue), "currency": .string(report.currency),
            "rows": .array(report.rows.map { object($0, currency: report.currency) }), "totals": object(report.totals, currency: report.currency),
            "stale_rate_days": .array(report.staleRateDays.map(JSONValue.string)),
            "unconverted": .object(report.unconverted.mapValues { .number($0) }),
        ])
    }

    /// The rows as RFC 4180 CSV, the totals last (network `total`).
    public static func csv(_ report: ROASReport) -> String {
        func line(_ values: [JSONValue]) -> String {
            values.map { value -> String in
                switch value {
                case .string(let text): return OverviewRoutes.csvField(text)
                case .null: return ""
                default: return String(decoding: value.serialized(), as: UTF8.self)
                }
            }.joined(separator: ",") + "\r\n"
        }
        var totals = report.totals
        totals.network = "total"
        return columns.joined(separator: ",") + "\r\n" + report.rows.map { line(values($0, currency: report.currency)) }.joined()
            + line(values(totals, currency: report.currency))
    }
}
