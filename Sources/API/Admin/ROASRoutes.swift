import App
import Attribution
import HTTP
import JSON

/// `GET /admin/v1/projects/{id}/roas?since=&until=&by=network|campaign|adgroup[&format=csv]` (docs/cost.md,
/// "ROAS"): days of the project's calendar, both included (the last 30 when absent).
enum ROASRoutes {
    static func report(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let calendar = LocalCalendar(identifier: project.settings.timeZone) ?? .utc
            let now = services.now(for: project)
            let until = request.queryValue("until") ?? calendar.dateText(now)
            let since = request.queryValue("since") ?? calendar.dateText(calendar.addingDays(-29, to: now))
            let byText = request.queryValue("by") ?? ROASReport.Grouping.campaign.rawValue
            guard let grouping = ROASReport.Grouping(rawValue: byText) else {
                throw HTTPError.invalidField("by", "must be network, campaign or adgroup")
            }
            let format = request.queryValue("format") ?? "json"
            guard format == "json" || format == "csv" else { throw HTTPError.invalidField("format", "must be json or csv") }
            let report = try services.app.roas.report(project: project, since: since, until: until, by: grouping)
            if format == "csv" {
                return OverviewRoutes.csvResponse(ROASFields.csv(report), filename: "roas-\(project.id)-\(since)-\(until).csv")
            }
            return .json(bytes: ROASFields.json(report, since: since, until: until, by: grouping).serialized())
        }
    }
}
