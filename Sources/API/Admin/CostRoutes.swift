import App
import Attribution
import HTTP
import JSON

/// `/admin/v1/projects/{id}/cost` (docs/cost.md): ad spend uploaded as CSV, and read back by day.
enum CostRoutes {
    /// `POST /admin/v1/projects/:id/cost` with `Content-Type: text/csv`: every row stored, or none.
    static func importCSV(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let type = request.headers["Content-Type"]?.lowercased() ?? ""
            guard type.hasPrefix("text/csv") || type.hasPrefix("text/plain") else {
                throw HTTPError(.unsupportedMediaType, code: "unsupported_media_type", message: "send the cost table as Content-Type: text/csv")
            }
            let saved = try services.app.costs.importCSV(request.body, project: project)
            return .json(
                bytes: JSONValue.object([
                    "rows": .number(Double(saved.added + saved.replaced)), "added": .number(Double(saved.added)),
                    "replaced": .number(Double(saved.replaced)),
                ]).serialized())
        }
    }

    /// `GET /admin/v1/projects/:id/cost?since=YYYY-MM-DD&until=YYYY-MM-DD` (both days included;
    /// the last 30 days of the project's calendar when absent).
    static func list(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let calendar = LocalCalendar(identifier: project.settings.timeZone) ?? .utc
            let today = calendar.dateText(services.now(for: project))
            let until = request.queryValue("until") ?? today
            let since = request.queryValue("since") ?? calendar.dateText(calendar.addingDays(-29, to: services.now(for: project)))
            let rows = try services.app.costs.rows(project: project, since: since, until: until)
            return .json(bytes: JSONValue.object(["since": .string(since), "until": .string(until), "cost": .array(rows.map(body))]).serialized())
        }
    }

    static func body(_ row: CostRow) -> JSONValue {
        var fields: [String: JSONValue] = [
            "date": .string(row.day), "network": .string(row.network), "campaign_id": .string(row.campaignID),
            "campaign_name": .string(row.campaignName), "adgroup_id": .string(row.adGroupID), "ad_id": .string(row.adID),
            "spend": .number(row.spend), "spend_micros": .number(Double(row.spendMicros)), "currency": .string(row.currency),
        ]
        fields["impressions"] = row.impressions.map { .number(Double($0)) } ?? .null
        fields["clicks"] = row.clicks.map { .number(Double($0)) } ?? .null
        return .object(fields)
    }
}
