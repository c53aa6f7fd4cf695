import App
import Attribution
import HTTP
import StoreContracts

/// What a project page over a period starts from: the project the viewer may read, its query, its
/// calendar and the range the query names.
struct DashboardPeriodPage {
    let project: Project
    let query: [(name: String, value: String)]
    let calendar: LocalCalendar
    let range: DashboardRange

    func item(_ name: String) -> String? { query.first { $0.name == name }?.value }
}

extension DashboardAuth {
    /// A signed-in page over a period: `handler` gets it resolved; a range the query cannot name is
    /// the 422 page saying why. `rangeItems` may change the query items the range is read from (a
    /// page without hours).
    func periodPage(
        rangeItems: @escaping @Sendable ([(String, String)]) -> [(String, String)] = { $0 },
        _ handler: @escaping @Sendable (HTTPRequest, DashboardViewer, DashboardPeriodPage) throws -> HTTPResponse
    ) -> RouteHandler {
        page { [services, prefix] request, viewer in
            let project = try DashboardProjects.readable(request, viewer, services)
            let query = request.queryItems.map { (name: $0.name, value: $0.value) }
            let calendar = LocalCalendar(identifier: project.settings.timeZone) ?? .utc
            let range: DashboardRange
            do {
                range = try DashboardRange.resolve(rangeItems(query.map { ($0.name, $0.value) }), calendar: calendar, now: services.now(for: project))
            } catch let problem as DashboardRange.Problem {
                return DashboardPage.message(
                    status: .unprocessableContent, title: "Unknown range", text: problem.message, prefix: prefix, viewer: viewer)
            }
            return try handler(request, viewer, DashboardPeriodPage(project: project, query: query, calendar: calendar, range: range))
        }
    }
}
