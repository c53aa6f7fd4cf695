public import JSON

/// Meta's Marketing API insights of an ad account by campaign and day (`/act_{id}/insights`,
/// `level=campaign`, `time_increment=1`), read as cost rows in the account's currency; a page's
/// `paging.next` leads to the next.
public enum MetaInsightsReport {
    public static let fields = "campaign_id,campaign_name,spend,impressions,clicks,account_currency"

    /// The query of the first page (days both included).
    public static func query(since: String, until: String) -> [(name: String, value: String)] {
        [
            ("level", "campaign"), ("time_increment", "1"), ("fields", fields), ("time_range", #"{"since":"\#(since)","until":"\#(until)"}"#),
            ("limit", "500"),
        ]
    }

    /// The page's rows and the URL of the next page, if any.
    public static func page(_ answer: JSONValue) -> Result<(rows: [CostRow], next: String?), ValidationProblem> {
        guard case .object(let root) = answer, case .array(let data)? = root["data"] else {
            return .failure(ValidationProblem("data", "the insights answer has no data array"))
        }
        var rows: [CostRow] = []
        for case .object(let item) in data {
            guard let id = item["campaign_id"]?.text, let day = item["date_start"]?.text, CostCSV.isDay(day) else {
                return .failure(ValidationProblem("data", "an insight lacks campaign_id or date_start"))
            }
            // Meta writes amounts and counts as decimal strings ("12.34").
            guard let micros = CostCSV.micros(item["spend"]?.text ?? "0") else {
                return .failure(ValidationProblem("data.spend", "must be a decimal amount, 0 or more"))
            }
            let currency = item["account_currency"]?.text ?? "USD"
            guard MoneyAmount.isCurrencyCode(currency) else { return .failure(ValidationProblem("data.account_currency", "is not a currency code")) }
            rows.append(
                CostRow(
                    day: day, network: NetworkName.meta, campaignID: id, campaignName: item["campaign_name"]?.text ?? "", spendMicros: micros,
                    currency: currency, impressions: item["impressions"]?.text.flatMap { Int64($0) },
                    clicks: item["clicks"]?.text.flatMap { Int64($0) }))
        }
        var next: String?
        if case .object(let paging)? = root["paging"], let link = paging["next"]?.text { next = link }
        return .success((rows, next))
    }
}
