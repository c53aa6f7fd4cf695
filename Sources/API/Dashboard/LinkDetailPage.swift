import App
import Attribution
import Foundation
import HTTP
import StoreContracts

/// One link: its URL and QR code, clicks and installs per local day over 30 days (hourly rollup), and
/// its latest clicks with bots marked.
enum LinkDetailPage {
    /// The link's QR code as SVG, from the dashboard's own origin (its CSP allows no other).
    static func qrCode(_ services: Services) -> ProjectPage {
        { request, viewer, project in
            let link = try services.app.links.existing(id: try request.parameter("linkId"), projectID: project.id)
            let url = LinkURLs.url(
                base: LinkURLs.base(of: link, otherwise: LinkURLs.base(for: request, services: services)), shortCode: link.shortCode,
                templateSlug: nil)
            var headers: HTTPHeaders = [
                "Content-Type": "image/svg+xml", "Cache-Control": "private, max-age=3600",
                "X-Content-Type-Options": "nosniff",
            ]
            if request.queryValue("download") != nil {
                headers.add("Content-Disposition", #"attachment; filename="qr-\#(link.shortCode).svg""#)
            }
            return HTTPResponse(status: .ok, headers: headers, body: Array(try QRCode(text: url, correction: .medium).svg(margin: 4).utf8))
        }
    }

    static func show(_ services: Services) -> ProjectPage {
        let auth = DashboardAuth(services: services)
        return { request, viewer, project in
            let link = try services.app.links.existing(id: try request.parameter("linkId"), projectID: project.id)
            return try page(request, viewer, project, link, services, auth: auth)
        }
    }

    /// `POST …/links/:linkId`: the edit form, every field as the admin API takes it.
    static func update(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, form, project in
            let existing = try services.app.links.existing(id: try request.parameter("linkId"), projectID: project.id)
            do {
                let payload = try LinkForm.payload(form)
                let template = try services.app.links.template(id: nil, slug: payload.template_slug, projectID: project.id, key: "template_slug")
                var link = try payload.replacing(
                    existing, templateID: template?.id, now: services.now(for: project), utmTemplates: project.settings.utmTemplates)
                if form["remove_password"] == "1" { link.passwordHash = nil }
                link.fdl = existing.fdl
                let updated = try services.app.links.update(link, previousCode: existing.shortCode)
                return try page(request, viewer, project, updated, services, auth: auth, notice: "Saved.")
            } catch {
                guard let problem = ClientErrors.httpError(for: error) else { throw error }
                return try page(
                    request, viewer, project, existing, services, auth: auth, form: form, problem: problem.message,
                    status: .unprocessableContent)
            }
        }
    }

    /// The A/B split over the chart's 30 days: each variant's weight, clicks, installs, events
    /// and revenue, with installs per click.
    private static func variantTable(_ model: LinkDetailModel) -> HTML {
        guard !model.variants.isEmpty else { return "" }
        let rows = model.variants.map { row, variant -> HTML in
            """
            <tr><td>\(row.name)</td><td class="hide-narrow">\(variant?.url ?? "(removed)")</td>\
            <td class="n">\(variant.map { String($0.weight) } ?? "–")</td><td class="n">\(row.clicks)</td><td class="n">\(row.installs)</td>\
            <td class="n">\(LinkDetailModel.rate(row))</td><td class="n">\(row.events)</td><td class="n">\(LinkDetailModel.revenue(row))</td></tr>
            """
        }
        return """
            <h2>A/B split (30 days)</h2><table><thead><tr><th>Variant</th><th class="hide-narrow">URL</th><th class="n">Weight</th>\
            <th class="n">Clicks</th><th class="n">Installs</th><th class="n">Installs per click</th><th class="n">Events</th>\
            <th class="n">Revenue</th></tr></thead><tbody>\(rows)</tbody></table>
            """
    }

    /// The link's clicks by country over the chart's 30 days, when the server knows countries.
    private static func countryTable(_ model: LinkDetailModel) -> HTML {
        guard !model.countries.isEmpty else { return "" }
        let body = model.countries.map { row -> HTML in
            """
            <tr><td>\(row.country)</td><td class="n">\(row.clicks)</td><td class="n">\(model.share(row))</td><td class="n">\(row.installs)</td></tr>
            """
        }
        return """
            <h2>By country (30 days)</h2><table><thead><tr><th>Country</th><th class="n">Clicks</th><th class="n">Share</th>\
            <th class="n">Installs</th></tr></thead><tbody>\(body)</tbody></table>
            """
    }

    private static func page(
        _ request: HTTPRequest, _ viewer: DashboardViewer, _ project: Project, _ link: Link, _ services: Services,
        auth: DashboardAuth, form: DashboardForm? = nil, problem: String? = nil, notice: String? = nil,
        status: HTTPStatus = .ok
    ) throws -> HTTPResponse {
        let model = try LinkDetailModel.load(request, viewer: viewer, project: project, link: link, services: services)
        return DashboardPage.render(
            title: "\(link.shortCode) · \(project.name)", prefix: auth.prefix, viewer: viewer,
            projectNav: (project.id, project.name, "Links"),
            body: render(model, prefix: auth.prefix, viewer: viewer, form: form, problem: problem, notice: notice), status: status)
    }

    static func render(
        _ model: LinkDetailModel, prefix: String, viewer: DashboardViewer, form: DashboardForm? = nil, problem: String? = nil,
        notice: String? = nil
    ) -> HTML {
        let (project, link, url) = (model.project, model.link, model.url)
        let qrPath = "\(prefix)/projects/\(project.id)/links/\(link.id)/qr.svg"
        let recent = model.recentClicks.map { click -> HTML in
            let bot: HTML = click.isBot ? #" class="bot""# : ""
            let install: HTML = click.installID.map { #"<a href="\#(prefix)/projects/\#(project.id)/installs/\#($0)">install</a>"# } ?? ""
            return """
                <tr\(bot)><td>\(click.createdAt.iso8601)</td><td>\(click.platform ?? "–")\
                \(click.isBot ? " (bot)" : "")</td><td class="hide-narrow">\(click.source)</td><td>\(install)</td></tr>
                """
        }
        let editForm: HTML =
            model.canEdit
            ? "<h2 id=\"edit\">Edit</h2>"
                + LinkForm.render(
                    action: "\(prefix)/projects/\(project.id)/links/\(link.id)", csrf: DashboardPage.csrfField(viewer),
                    values: form.map(LinkForm.values(of:)) ?? LinkForm.values(of: link, templateSlug: model.templateSlug), problem: problem,
                    submit: "Save", domains: model.domains)
            : ""
        let noticeText: HTML = notice.map { #"<p class="notice" role="status">\#($0)</p>"# } ?? ""
        let disabled: HTML = link.active ? "" : #" <span class="muted">(disabled)</span>"#
        let latest: HTML = recent.isEmpty ? #"<tr><td colspan="4" class="muted">No clicks yet.</td></tr>"# : HTML(joining: recent)
        let series = [("Clicks", model.days.map { Double($0.clicks) }), ("Attributed installs", model.days.map { Double($0.installs) })]
        return """
            \(noticeText)\
            <h1>\(link.title ?? link.shortCode)</h1><p><a href="\(url)">\(url)</a> \
            <button type="button" data-copy="\(url)" hidden>Copy</button>\
            \(disabled)</p>\
            <div class="grid2"><div class="chart"><div class="legend"><span><i class="k0"></i>Clicks</span><span><i class="k1"></i>Attributed installs</span></div>\
            \(SVGChart.bars(labels: model.days.map(\.label), series: series))</div>\
            <div><img src="\(qrPath)" alt="QR code for \(url)" width="180" height="180">\
            <p><a href="\(qrPath)?download=1">Download the QR code (SVG)</a></p></div></div>\
            \(variantTable(model))\(countryTable(model))<h2>Latest clicks</h2><table><thead><tr><th>Time (UTC)</th><th>Platform</th><th class="hide-narrow">Source</th><th></th></tr></thead>\
            <tbody>\(latest)</tbody></table>\
            \(editForm)
            """
    }
}
