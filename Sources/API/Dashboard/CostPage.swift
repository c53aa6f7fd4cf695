import App
import Attribution
import HTTP
import StoreContracts

/// A project's ad spend over a period, by network and campaign, in the project's currency at
/// each day's reference rates; its admins upload a cost CSV here (docs/cost.md). `CostModel`
/// decides what shows, this renders it.
enum CostPage {
    static func show(_ services: Services) -> PeriodPage {
        let auth = DashboardAuth(services: services)
        return { _, viewer, period in
            let model = try CostModel.load(period, services: services)
            return page(model, viewer: viewer, prefix: auth.prefix)
        }
    }

    /// `POST …/cost`: a cost CSV uploaded (multipart), stored whole or refused naming its cells.
    static func upload(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, form, project in
            let calendar = LocalCalendar(identifier: project.settings.timeZone) ?? .utc
            let range = try DashboardRange.resolve([("range", "30d")], calendar: calendar, now: services.now(for: project))
            let period = DashboardPeriodPage(project: project, query: [("range", "30d")], calendar: calendar, range: range)
            do {
                guard let file = form.files["file"], !file.isEmpty else { throw AppError.invalidField("file", "choose a cost CSV file") }
                let saved = try services.app.costs.importCSV(file, project: project)
                return page(
                    try CostModel.load(period, services: services), viewer: viewer, prefix: auth.prefix,
                    notice: "Stored \(saved.added + saved.replaced) rows: \(saved.added) added, \(saved.replaced) replaced.")
            } catch let error as AppError {
                return page(
                    try CostModel.load(period, services: services), viewer: viewer, prefix: auth.prefix,
                    problem: "Nothing was stored. \(error.message)", status: .unprocessableContent)
            }
        }
    }

    static func page(
        _ model: CostModel, viewer: DashboardViewer, prefix: String, notice: String? = nil, problem: String? = nil, status: HTTPStatus = .ok
    ) -> HTTPResponse {
        DashboardPage.render(
            title: "Cost · \(model.project.name)", prefix: prefix, viewer: viewer, projectNav: (model.project.id, model.project.name, "Cost"),
            body: render(model, base: "\(prefix)/projects/\(model.project.id)", viewer: viewer, notice: notice, problem: problem), status: status)
    }

    static func render(_ model: CostModel, base: String, viewer: DashboardViewer, notice: String? = nil, problem: String? = nil) -> HTML {
        let currency = model.currency
        let rows = model.campaigns.map { campaign -> HTML in
            let name = campaign.campaignName.isEmpty ? campaign.campaignID : campaign.campaignName
            let own = campaign.spend.sorted { $0.key < $1.key }.map { MoneyAmount.text($0.value, currency: $0.key) }.joined(separator: ", ")
            return """
                <tr><td>\(campaign.network)</td><td>\(name)\(if: !campaign.campaignID.isEmpty && !campaign.campaignName.isEmpty, " <span class=\"muted\">\(campaign.campaignID)</span>")</td>\
                <td class="n">\(campaign.converted.map { MoneyAmount.text($0, currency: currency) } ?? "–")</td>\
                <td class="n hide-narrow">\(own)</td><td class="n">\(campaign.impressions)</td><td class="n">\(campaign.clicks)</td>\
                <td class="n">\(campaign.days)</td></tr>
                """
        }
        let none: HTML =
            #"<tr><td colspan="7" class="muted">No cost in this period: upload a cost CSV (below, or <code>attributiond cost import</code>).</td></tr>"#
        var notes: [String] = []
        if model.unconverted > 0 {
            notes.append("\(model.unconverted) rows have no exchange rate to \(currency) on or before their day and are left out of the total")
        }
        if model.stale > 0 { notes.append("\(model.stale) rows were converted at an earlier day's rates (a weekend or holiday)") }
        let form: HTML =
            viewer.canChange(projectID: model.project.id)
            ? """
            <h2>Upload cost</h2><form class="stack" method="post" action="\(base)/cost" enctype="multipart/form-data">\
            \(DashboardPage.csrfField(viewer))<p class="muted">A CSV with a header: <code>date, network, campaign_id, campaign_name, spend</code> \
            and, where you have them, <code>adgroup_id, ad_id, currency, impressions, clicks</code>. A row uploaded again replaces its day's; \
            one wrong cell refuses the file, naming it.</p>\
            <label>Cost CSV<input name="file" type="file" accept=".csv,text/csv" required></label><button>Upload</button></form>
            """ : ""
        return """
            <h1>Cost</h1>\(notice.map { #"<p class="notice" role="status">\#($0)</p>"# as HTML } ?? "")\
            \(problem.map { #"<p class="error" role="alert">\#($0)</p>"# as HTML } ?? "")\
            <div class="ranges">\(model.period.range.picker(base: "\(base)/cost", calendar: model.period.calendar))</div>\
            <p class="muted">\(model.since) to \(model.until), \(model.period.calendar.identifier): \
            \(MoneyAmount.text(model.total, currency: currency)) in all, each day's spend at that day's reference rates.</p>\
            <table><thead><tr><th>Network</th><th>Campaign</th><th class="n">Spend (\(currency))</th><th class="n hide-narrow">As reported</th>\
            <th class="n">Impressions</th><th class="n">Clicks</th><th class="n">Days</th></tr></thead><tbody>\(rows, otherwise: none)</tbody></table>\
            \(HTML(joining: notes.map { note -> HTML in #"<p class="muted">\#(note).</p>"# }))\(form)
            """
    }
}
