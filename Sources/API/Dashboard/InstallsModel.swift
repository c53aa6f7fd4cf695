import App
import Attribution
import HTTP
import StoreContracts

/// What the installs list shows: live or test installs, newest first, a page at a time.
struct InstallsModel {
    static let pageSize = 50

    let test: Bool
    let installs: [InstallSummary]
    /// The time to ask for the next (older) page before, when there is one.
    let olderBefore: Timestamp?

    static func load(_ request: HTTPRequest, project: Project, services: Services) throws -> InstallsModel {
        let before = request.queryValue("before").flatMap(Int64.init).map(Timestamp.init(milliseconds:))
        // Test traffic (a client's test mode) is listed apart, behind the switch.
        let test = request.queryValue("traffic") == "test"
        let installs = try services.app.reports.browse.recentInstalls(projectID: project.id, test: test, before: before, limit: pageSize + 1)
        return InstallsModel(
            test: test, installs: Array(installs.prefix(pageSize)),
            olderBefore: installs.count > pageSize ? installs[pageSize - 1].createdAt : nil)
    }
}
