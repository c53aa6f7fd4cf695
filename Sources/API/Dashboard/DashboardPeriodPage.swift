import App
import Attribution
import HTTP
import StoreContracts

/// What a project page over a period starts from: the project the viewer may read, its query, its
/// calendar and the range the query names; a range it cannot read is the 422 page naming why.
struct DashboardPeriodPage {
    enum Resolved {
        case page(DashboardPeriodPage)
        case answer(HTTPResponse)
    }

    let project: Project
    let query: [(name: String, value: String)]
    let calendar: LocalCalendar
    let range: DashboardRange

    func item(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// `rangeItems` may change the query items the range is read from (a page without hours).
    static func resolve(
        _ request: HTTPRequest, _ viewer: DashboardViewer, _ services: Services, prefix: String,
        rangeItems: ([(String, String)]) -> [(String, String)] = { $0 }
    ) throws -> Resolved {
        let project = try DashboardProjects.readable(request, viewer, services)
        let query = request.queryItems.map { (name: $0.name, value: $0.value) }
        let calendar = LocalCalendar(identifier: project.settings.timeZone) ?? .utc
        do {
            let range = try DashboardRange.resolve(rangeItems(query.map { ($0.name, $0.value) }), calendar: calendar, now: services.now(for: project))
            return .page(DashboardPeriodPage(project: project, query: query, calendar: calendar, range: range))
        } catch let problem as DashboardRange.Problem {
            return .answer(
                DashboardPage.message(status: .unprocessableContent, title: "Unknown range", text: problem.message, prefix: prefix, viewer: viewer))
        }
    }
}
