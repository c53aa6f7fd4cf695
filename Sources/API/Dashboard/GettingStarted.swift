import App
import Attribution
import HTTP
import StoreContracts

/// The overview's "Get started" list until every step has happened once, or until the viewer
/// hides it: each step ticks itself when the project's first click, install, event and revenue
/// arrive, and links to what to do next. Revenue is a captured payment (Linkrunner's call) or an
/// event with an amount (LinkForty's and WarpLink's only way), so no SDK family waits on a call
/// it does not have.
enum GettingStarted {
    /// Hidden per browser and project: a cookie scoped to the project's pages.
    static let hiddenCookie = "attributiond_get_started"

    /// - Parameter shown: the counts of the period on screen: when they have every step, the
    ///   project's whole history need not be summed to know the list is done.
    static func checklist(
        _ project: Project, _ services: Services, request: HTTPRequest, viewer: DashboardViewer, prefix: String, shown: ProjectStats.Counts
    ) throws -> HTML {
        if DashboardAuth.cookie(hiddenCookie, in: request) == "hidden" { return "" }
        if shown.clicks > 0, shown.installs > 0, shown.events > 0, hasRevenue(shown) { return "" }
        let allTime = try services.app.reports.dashboardStats(
            project: project, since: project.createdAt.adding(seconds: -86_400), until: services.now(for: project)
        ).totals
        let base = "\(prefix)/projects/\(project.id)"
        let steps: [(done: Bool, text: HTML)] = [
            (true, "Project created"),
            (allTime.clicks > 0, #"A first click: <a href="\#(base)/links">create a link</a> and open it on a phone"#),
            (allTime.installs > 0, #"A first install: <a href="\#(base)/connect">connect your app</a> and launch it"#),
            (allTime.events > 0, "A first event: send one from the app (a signup, a purchase…)"),
            (
                hasRevenue(allTime),
                "A first revenue: a captured payment (Linkrunner SDKs), or an event with an amount (LinkForty and WarpLink SDKs)"
            ),
        ]
        guard steps.contains(where: { !$0.done }) else { return "" }
        let items = steps.map { step -> HTML in
            #"<li class="\#(step.done ? "done" : "todo")">\#(step.done ? "✓" : "○") \#(step.text)</li>"#
        }
        return """
            <div class="card getting-started"><b>Get started</b><ol>\(items)</ol>\
            <form class="inline" method="post" action="\(base)/getting-started/hide">\(DashboardPage.csrfField(viewer))\
            <button class="plain">Hide this list</button></form></div>
            """
    }

    static func hasRevenue(_ counts: ProjectStats.Counts) -> Bool {
        counts.paymentRevenue.values.contains { $0 != 0 } || counts.eventRevenue.values.contains { $0 != 0 }
    }

    /// `POST …/projects/:id/getting-started/hide`: back to the overview, without the list.
    static func hide(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, _, _, project in
            let path = "\(auth.prefix)/projects/\(project.id)"
            return DashboardPage.redirect(
                to: path, cookie: "\(hiddenCookie)=hidden; Path=\(path); Max-Age=31536000; HttpOnly; SameSite=Lax" + auth.secure(request))
        }
    }
}
