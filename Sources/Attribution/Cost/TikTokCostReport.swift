public import JSON

/// TikTok's Business API integrated report of an advertiser by campaign and day
/// (`/open_api/v1.3/report/integrated/get/`, `report_type=BASIC`, `data_level=AUCTION_CAMPAIGN`),
/// read as cost rows in the advertiser's currency; `page_info` says whether a next page follows.
public enum TikTokCostReport {
    public static func query(advertiserID: String, since: String, until: String, page: Int) -> [(name: String, value: String)] {
        [
            ("advertiser_id", advertiserID), ("report_type", "BASIC"), ("data_level", "AUCTION_CAMPAIGN"),
            ("dimensions", #"["campaign_id","stat_time_day"]"#), ("metrics", #"["spend","impressions","clicks","campaign_name"]"#),
            ("start_date", since), ("end_date", until), ("page", String(page)), ("page_size", "1000"),
        ]
    }

    /// The page's rows and whether another page follows; `code` other than 0 is TikTok's error.
    public static func page(_ answer: JSONValue, currency: String) -> Result<(rows: [CostRow], more: Bool), ValidationProblem> {
        guard case .object(let root) = answer else { return .failure(ValidationProblem("report", "did not answer a JSON object")) }
        if let code = root["code"]?.integer, code != 0 {
            return .failure(ValidationProblem("code", "\(code): \(root["message"]?.text ?? "")"))
        }
        guard case .object(let data)? = root["data"], case .array(let list)? = data["list"] else {
            return .failure(ValidationProblem("data.list", "is missing"))
        }
        var rows: [CostRow] = []
        for case .object(let item) in list {
            guard case .object(let dimensions)? = item["dimensions"], case .object(let metrics)? = item["metrics"],
                let id = dimensions["campaign_id"]?.text, let time = dimensions["stat_time_day"]?.text, CostCSV.isDay(String(time.prefix(10)))
            else { return .failure(ValidationProblem("data.list", "a row lacks campaign_id or stat_time_day")) }
            guard let micros = CostCSV.micros(metrics["spend"]?.text ?? "0") else {
                return .failure(ValidationProblem("data.list.metrics.spend", "must be a decimal amount, 0 or more"))
            }
            rows.append(
                CostRow(
                    day: String(time.prefix(10)), network: NetworkName.tiktok, campaignID: id, campaignName: metrics["campaign_name"]?.text ?? "",
                    spendMicros: micros, currency: currency, impressions: metrics["impressions"]?.text.flatMap { Int64($0) },
                    clicks: metrics["clicks"]?.text.flatMap { Int64($0) }))
        }
        var more = false
        if case .object(let info)? = data["page_info"], let page = info["page"]?.integer, let total = info["total_page"]?.integer {
            more = page < total
        }
        return .success((rows, more))
    }
}
