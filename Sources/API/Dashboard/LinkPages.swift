import App
import Attribution
import Foundation
import HTTP
import StoreContracts

/// A project's links: search, pages of 50, a form that creates one (the admin API's fields, read
/// by the admin API's own payload), and disable / enable.
enum LinkPages {
    static func list(_ services: Services) -> ProjectPage {
        let auth = DashboardAuth(services: services)
        return { request, viewer, project in
            return try page(request, viewer, project, services, auth: auth, notice: nil, problem: nil, form: nil)
        }
    }

    static func create(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, form, project in
            do {
                let payload = try LinkForm.payload(form)
                let template = try services.app.links.template(id: nil, slug: payload.template_slug, projectID: project.id, key: "template_slug")
                let link = try payload.link(
                    projectID: project.id, templateID: template?.id, now: services.now(for: project), utmTemplates: project.settings.utmTemplates)
                let created = try services.app.links.create(link, codeIsCustom: payload.short_code != nil)
                let url = LinkURLs.url(
                    base: LinkURLs.base(of: created, otherwise: LinkURLs.base(for: request, services: services)), shortCode: created.shortCode,
                    templateSlug: template?.slug)
                return try page(request, viewer, project, services, auth: auth, notice: "Created \(url)", problem: nil, form: nil, status: .created)
            } catch {
                guard let problem = ClientErrors.httpError(for: error) else { throw error }
                return try page(
                    request, viewer, project, services, auth: auth, notice: nil, problem: problem.message, form: form,
                    status: .unprocessableContent)
            }
        }
    }

    /// `POST …/links/:linkId/active` with `active=0|1`.
    static func setActive(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, form, project in
            var link = try services.app.links.existing(id: try request.parameter("linkId"), projectID: project.id)
            link.active = form["active"] == "1"
            _ = try services.app.links.update(link, previousCode: link.shortCode)
            return DashboardPage.redirect(to: "\(auth.prefix)/projects/\(project.id)/links")
        }
    }

    private static func page(
        _ request: HTTPRequest, _ viewer: DashboardViewer, _ project: Project, _ services: Services, auth: DashboardAuth,
        notice: String?, problem: String?, form: DashboardForm?, status: HTTPStatus = .ok
    ) throws -> HTTPResponse {
        let model = try LinksModel.load(request, project: project, services: services)
        let (search, pageNumber, calendar) = (model.search, model.pageNumber, model.calendar)
        let base = "\(auth.prefix)/projects/\(project.id)"
        let canChange = viewer.canChange(projectID: project.id)
        var rows: HTML = ""
        for row in model.rows {
            let (link, url, counts) = (row.link, row.url, row.counts)
            let toggle: HTML =
                canChange
                ? """
                <form class="inline" method="post" action="\(base)/links/\(link.id)/active">\(DashboardPage.csrfField(viewer))\
                <input type="hidden" name="active" value="\(link.active ? "0" : "1")"><button class="plain">\
                \(link.active ? "Disable" : "Enable")</button></form>
                """ : ""
            rows += """
                <tr><td class="wrap"><a href="\(base)/links/\(link.id)"><span class="muted">\(shortURL(url).host)/</span>\
                \(shortURL(url).path)</a></td><td class="wrap title">\(link.title ?? "")</td>\
                <td class="hide-narrow">\(calendar.dateText(link.createdAt))</td>\
                <td class="hide-narrow">\(link.utm.campaign ?? "")</td>\
                <td class="n">\(counts?.clicks ?? 0)</td><td class="n">\(counts?.attributedInstalls ?? 0)</td>\
                <td class="n">\(revenue(counts))</td>\
                <td class="hide-narrow">\(SVGChart.sparkline(row.dailyClicks.map(Double.init)))</td>\
                <td>\(link.active ? "active" : #"<span class="muted">disabled</span>"# as HTML)</td>\
                <td class="hide-narrow"><a href="\(url)/qr">QR</a> \
                <button type="button" data-copy="\(url)" hidden>Copy</button></td><td>\(toggle)</td></tr>
                """
        }
        if rows.isEmpty {
            rows =
                search.isEmpty
                ? #"<tr><td colspan="11" class="muted">No links yet: make the first with the form below.</td></tr>"#
                : #"<tr><td colspan="11" class="muted">No links match.</td></tr>"#
        }
        let query: HTML = search.isEmpty ? "" : "q=\(Escape.queryValue(search))&amp;"
        var pager: HTML = ""
        if pageNumber > 1 { pager += #"<a href="\#(base)/links?\#(query)page=\#(pageNumber - 1)">Newer</a> "# }
        if model.hasOlder { pager += #"<a href="\#(base)/links?\#(query)page=\#(pageNumber + 1)">Older</a>"# }
        let createForm: HTML =
            canChange
            ? "<h2>New link</h2>"
                + LinkForm.render(
                    action: "\(base)/links", csrf: DashboardPage.csrfField(viewer), values: form.map(LinkForm.values(of:)) ?? ["active": "1"],
                    problem: problem, submit: "Create link", domains: try services.app.domains.list(projectID: project.id).map(\.domain),
                    utmTemplates: project.settings.utmTemplates) : ""
        let noticeText: HTML = notice.map { #"<p class="notice" role="status">\#($0)</p>"# } ?? ""
        let imports: HTML =
            canChange
            ? importForm(
                base: base, csrf: DashboardPage.csrfField(viewer), domains: try services.app.domains.list(projectID: project.id).map(\.domain))
            : ""
        let body: HTML = """
            <h1>Links</h1>\(noticeText)\
            <form method="get" action="\(base)/links"><label>Search<input name="q" type="search" value="\(search)"></label></form>\
            <table class="links"><thead><tr><th>Short URL</th><th>Title</th><th class="hide-narrow">Created</th><th class="hide-narrow">Campaign</th><th class="n">Clicks (30 d)</th>\
            <th class="n">Installs (30 d)</th><th class="n">Revenue (30 d)</th><th class="hide-narrow">Clicks by UTC day</th><th>State</th><th class="hide-narrow">QR · URL</th><th></th></tr></thead>\
            <tbody>\(rows)</tbody></table><p>\(pager)</p>\(createForm)\
            \(imports)
            """
        return DashboardPage.render(
            title: "Links · \(project.name)", prefix: auth.prefix, viewer: viewer,
            projectNav: (project.id, project.name, "Links"), body: body, status: status)
    }

    /// The short URL without its scheme: its host (the link's domain, or this server's name)
    /// and the path after it.
    static func shortURL(_ url: String) -> (host: String, path: String) {
        let rest = url.split(separator: "://", maxSplits: 1).last ?? Substring(url)
        let parts = rest.split(separator: "/", maxSplits: 1)
        return (String(parts.first ?? rest), parts.count > 1 ? String(parts[1]) : "")
    }

    /// A link's 30 days of money: captured payments, and apart from them (never added: an app may
    /// report a purchase both ways) the amounts its installs' events declared.
    static func revenue(_ counts: ProjectStats.Counts?) -> HTML {
        guard let counts, !counts.paymentRevenue.isEmpty || !counts.eventRevenue.isEmpty else { return "–" }
        var text: HTML = counts.paymentRevenue.isEmpty ? "" : "\(OverviewRoutes.money(counts.paymentRevenue))"
        if !counts.eventRevenue.isEmpty {
            if !text.isEmpty { text += "<br>" }
            text += #"<span class="muted">events: \#(OverviewRoutes.money(counts.eventRevenue))</span>"#
        }
        return text
    }

    /// The forms that import links from another service: a Firebase Dynamic Links export onto
    /// one of the project's domains, a CSV of Branch links onto a domain or the server's host.
    static func importForm(base: String, csrf: HTML, domains: [String]) -> HTML {
        let conflict: HTML = """
            <label>A code another link has<select name="on_conflict"><option value="skip">Report it, change nothing</option>\
            <option value="replace">Replace that link</option></select></label>\
            <label><input type="checkbox" name="dry_run" value="1" checked> Dry run: report only, write nothing</label>
            """
        let options = domains.map { domain -> HTML in #"<option value="\#(domain)">\#(domain)</option>"# }
        let fdl: HTML =
            domains.isEmpty
            ? #"<h2>Import from Firebase Dynamic Links</h2><p class="muted">Add the domain the links lived on (Settings → Domains) to import its export.</p>"#
            : """
            <h2>Import from Firebase Dynamic Links</h2><form class="stack" method="post" action="\(base)/links/import-fdl" \
            enctype="multipart/form-data">\(csrf)<label>The export (Google Takeout CSV)<input name="file" type="file" accept=".csv,text/csv" required></label>\
            <label>Domain<select name="domain">\(options)</select></label>\(conflict)<button>Import</button></form>
            """
        return fdl + """
            <h2>Import Branch links</h2><form class="stack" method="post" action="\(base)/links/import-branch" \
            enctype="multipart/form-data">\(csrf)<label>A CSV of the links (url or alias, data, channel, feature, campaign, stage, tags)\
            <input name="file" type="file" accept=".csv,text/csv" required></label>\
            <label>Domain<select name="domain"><option value="">This server's own host</option>\(options)</select></label>\(conflict)\
            <button>Import</button></form>
            """
    }

    /// `POST …/links/import-fdl`: the import, and its report row by row.
    static func importFDL(_ services: Services) -> ProjectForm {
        importPage(services, title: "Import from Firebase Dynamic Links", file: "the export's CSV file") { form, file, project in
            try services.app.links.importFDL(
                projectID: project.id, domain: form["domain"] ?? "", csv: file, dryRun: form["dry_run"] == "1",
                replace: form["on_conflict"] == "replace", now: services.now(for: project))
        }
    }

    /// `POST …/links/import-branch`: the same for a CSV of Branch links.
    static func importBranch(_ services: Services) -> ProjectForm {
        importPage(services, title: "Import Branch links", file: "the links' CSV file") { form, file, project in
            try services.app.links.importBranch(
                projectID: project.id, domain: form["domain"].flatMap { $0.isEmpty ? nil : $0 }, csv: file, dryRun: form["dry_run"] == "1",
                replace: form["on_conflict"] == "replace", now: services.now(for: project))
        }
    }

    /// An import's page: its summary, and the rows that need reading (refused, in conflict, replaced).
    private static func importPage(
        _ services: Services, title: String, file fileName: String,
        _ run: @escaping @Sendable (DashboardForm, [UInt8], Project) throws -> LinkImportReport
    ) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, form, project in
            let base = "\(auth.prefix)/projects/\(project.id)"
            let report: LinkImportReport
            do {
                guard let file = form.files["file"], !file.isEmpty else { throw AppError.invalidField("file", "choose \(fileName)") }
                report = try run(form, file, project)
            } catch let error as AppError {
                return DashboardPage.render(
                    title: "Import · \(project.name)", prefix: auth.prefix, viewer: viewer, projectNav: (project.id, project.name, "Links"),
                    body:
                        #"<h1>Import</h1><p class="error" role="alert">\#(error.message)</p><p><a href="\#(base)/links">Back to the links</a></p>"#
                        as HTML,
                    status: .unprocessableContent)
            }
            let rows = report.rows.filter { $0.outcome != .created && $0.outcome != .skipped }.prefix(500).map { row -> HTML in
                """
                <tr><td>\(row.line)</td><td>\(row.shortLink ?? "")</td><td>\(row.outcome.rawValue)</td>\
                <td>\([row.column, row.reason].compactMap { $0 }.joined(separator: ": "))</td></tr>
                """
            }
            let summary =
                "\(report.dryRun ? "Dry run — would create" : "Created") \(report.count(.created)), skipped \(report.count(.skipped)), "
                + "replaced \(report.count(.replaced)), conflicts \(report.count(.conflict)), refused \(report.count(.refused))."
            let table: HTML =
                rows.isEmpty
                ? "" : "<table><thead><tr><th>Line</th><th>Short link</th><th>Outcome</th><th>Why</th></tr></thead><tbody>\(rows)</tbody></table>"
            let body: HTML = """
                <h1>\(title)</h1><p class="notice" role="status">\(summary)</p>\
                \(table)\
                <p><a href="\(base)/links">Back to the links</a></p>
                """
            return DashboardPage.render(
                title: "Import · \(project.name)", prefix: auth.prefix, viewer: viewer, projectNav: (project.id, project.name, "Links"),
                body: body)
        }
    }
}
