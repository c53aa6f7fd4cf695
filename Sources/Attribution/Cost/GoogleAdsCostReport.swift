public import JSON

/// The Google Ads API's spend by campaign and day: the GAQL query `googleAds:searchStream` is
/// sent, and its answer (an array of batches of `results`) read as cost rows in the account's
/// currency.
public enum GoogleAdsCostReport {
    /// Days `YYYY-MM-DD`, both included.
    public static func query(since: String, until: String) -> String {
        """
        SELECT segments.date, campaign.id, campaign.name, customer.currency_code, metrics.cost_micros, metrics.impressions, \
        metrics.clicks FROM campaign WHERE segments.date BETWEEN '\(since)' AND '\(until)'
        """
    }

    public static func rows(_ answer: JSONValue) -> Result<[CostRow], ValidationProblem> {
        guard case .array(let batches) = answer else { return .failure(ValidationProblem("searchStream", "did not answer an array of batches")) }
        var rows: [CostRow] = []
        for case .object(let batch) in batches {
            guard case .array(let results)? = batch["results"] else { continue }
            for case .object(let result) in results {
                guard case .object(let campaign)? = result["campaign"], case .object(let metrics)? = result["metrics"],
                    case .object(let segments)? = result["segments"], let day = segments["date"]?.text, CostCSV.isDay(day),
                    let id = campaign["id"]?.text ?? campaign["id"]?.integer.map(String.init)
                else { return .failure(ValidationProblem("results", "a result lacks its campaign, metrics or date")) }
                var currency = "USD"
                if case .object(let customer)? = result["customer"], let code = customer["currencyCode"]?.text { currency = code }
                // The API writes int64 fields as strings.
                func count(_ key: String) -> Int64? { metrics[key]?.text.flatMap { Int64($0) } ?? metrics[key]?.integer }
                guard let micros = count("costMicros") ?? (metrics["costMicros"] == nil ? 0 : nil), micros >= 0, MoneyAmount.isCurrencyCode(currency)
                else { return .failure(ValidationProblem("results.metrics.costMicros", "must be a whole number of micros, 0 or more")) }
                rows.append(
                    CostRow(
                        day: day, network: NetworkName.google, campaignID: id, campaignName: campaign["name"]?.text ?? "", spendMicros: micros,
                        currency: currency, impressions: count("impressions"), clicks: count("clicks")))
            }
        }
        return .success(rows)
    }
}
