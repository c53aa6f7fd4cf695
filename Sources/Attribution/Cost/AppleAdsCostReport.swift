public import JSON

/// The Apple Ads Campaign Management API's campaign report (`POST reports/campaigns`, daily,
/// in the organisation's time zone), read as cost rows in each campaign's currency
/// (`localSpend`); `pagination` says whether more rows follow.
public enum AppleAdsCostReport {
    public static let pageSize = 1000

    public static func body(since: String, until: String, offset: Int) -> JSONValue {
        .object([
            "startTime": .string(since), "endTime": .string(until), "granularity": .string("DAILY"), "timeZone": .string("ORTZ"),
            "selector": .object([
                "orderBy": .array([.object(["field": .string("campaignId"), "sortOrder": .string("ASCENDING")])]),
                "pagination": .object(["offset": .number(Double(offset)), "limit": .number(Double(pageSize))]),
            ]),
            "returnRecordsWithNoMetrics": .bool(false), "returnRowTotals": .bool(false), "returnGrandTotals": .bool(false),
        ])
    }

    /// The page's rows and the offset of the next page, if any.
    public static func page(_ answer: JSONValue) -> Result<(rows: [CostRow], nextOffset: Int?), ValidationProblem> {
        guard case .object(let root) = answer, case .object(let data)? = root["data"], case .object(let report)? = data["reportingDataResponse"]
        else { return .failure(ValidationProblem("data.reportingDataResponse", "is missing")) }
        var rows: [CostRow] = []
        if case .array(let campaigns)? = report["row"] {
            for case .object(let campaign) in campaigns {
                guard case .object(let metadata)? = campaign["metadata"],
                    let id = metadata["campaignId"]?.integer.map(String.init) ?? metadata["campaignId"]?.text
                else { return .failure(ValidationProblem("row.metadata.campaignId", "is missing")) }
                guard case .array(let days)? = campaign["granularity"] else { continue }
                for case .object(let day) in days {
                    guard let date = day["date"]?.text, CostCSV.isDay(date), case .object(let spend)? = day["localSpend"],
                        let micros = CostCSV.micros(spend["amount"]?.text ?? "0"), let currency = spend["currency"]?.text,
                        MoneyAmount.isCurrencyCode(currency)
                    else { return .failure(ValidationProblem("row.granularity", "a day lacks its date or localSpend")) }
                    rows.append(
                        CostRow(
                            day: date, network: NetworkName.appleAds, campaignID: id, campaignName: metadata["campaignName"]?.text ?? "",
                            spendMicros: micros, currency: currency, impressions: day["impressions"]?.integer, clicks: day["taps"]?.integer))
                }
            }
        }
        var next: Int?
        if case .object(let pagination)? = root["pagination"], let total = pagination["totalResults"]?.integer,
            let start = pagination["startIndex"]?.integer, let count = pagination["itemsPerPage"]?.integer, count > 0, start + count < total
        {
            next = Int(start + count)
        }
        return .success((rows, next))
    }
}
