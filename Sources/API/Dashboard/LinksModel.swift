import App
import Attribution
import Foundation
import HTTP
import StoreContracts

/// What a project's links page shows, loaded without HTML: the page of links the search and page
/// number name, whether an older page follows, and each link's last 30 days (counts, money, clicks
/// by UTC day). `LinkPages` renders it.
struct LinksModel {
    struct Row {
        let link: Link
        /// The link's short URL on its own domain, or this server's.
        let url: String
        let counts: ProjectStats.Counts?
        /// Clicks of each of the last 30 UTC days, oldest first.
        let dailyClicks: [Int]
    }

    let search: String
    let pageNumber: Int
    let rows: [Row]
    let hasOlder: Bool
    let calendar: LocalCalendar

    static let pageSize = 50

    static func load(_ request: HTTPRequest, project: Project, services: Services) throws -> LinksModel {
        let search = request.queryValue("q")?.trimmingCharacters(in: .whitespaces) ?? ""
        let pageNumber = max(1, min(Int(request.queryValue("page") ?? "") ?? 1, 100_000))
        let offset = (pageNumber - 1) * pageSize
        let links =
            search.isEmpty
            ? try services.app.links.list(projectID: project.id, limit: pageSize + 1, offset: offset)
            : try services.app.links.search(projectID: project.id, text: search, limit: pageSize + 1, offset: offset)
        // Each link's last 30 days from the dashboard's stats: the overview's 30 local days, whose
        // past is summed ahead and cached (30 days back from this millisecond were a new period,
        // summed again, at every view: 75 ms at 1,000 links and 10 million clicks).
        let calendar = LocalCalendar(identifier: project.settings.timeZone) ?? .utc
        let month = try DashboardRange.resolve([("range", "30d")], calendar: calendar, now: services.now(for: project))
        DashboardWarmup.watch(month.key, projectID: project.id, services)
        let counts = Dictionary(
            try services.app.reports.dashboardStats(project: project, since: month.since, until: month.until).links.map {
                ($0.linkID, $0.counts)
            }, uniquingKeysWith: { first, _ in first })
        let daily = try services.app.reports.linkDailyClicks(project: project)
        let urlBase = LinkURLs.base(for: request, services: services)
        let rows = links.prefix(pageSize).map { link in
            Row(
                link: link, url: LinkURLs.url(base: LinkURLs.base(of: link, otherwise: urlBase), shortCode: link.shortCode, templateSlug: nil),
                counts: counts[link.id], dailyClicks: daily[link.id] ?? Array(repeating: 0, count: 30))
        }
        return LinksModel(search: search, pageNumber: pageNumber, rows: rows, hasOlder: links.count > pageSize, calendar: calendar)
    }
}
