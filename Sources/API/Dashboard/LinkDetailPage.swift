import App
import Attribution
import HTTP
import Store

/// One link: its URL and QR code, clicks and installs per day over 30 days (daily rollup), and
/// its latest clicks with bots marked.
enum LinkDetailPage {
    /// The link's QR code as SVG, from the dashboard's own origin (its CSP allows no other).
    static func qrCode(_ services: Services) -> RouteHandler {
        let auth = DashboardAuth(services: services)
        return auth.page { request, viewer in
            let project = try DashboardProjects.readable(request, viewer, services)
            let link = try services.app.links.existing(id: request.pathParameters["linkId"] ?? "", projectID: project.id)
            let url = LinkURLs.url(base: LinkURLs.base(for: request, services: services), shortCode: link.shortCode, templateSlug: nil)
            var headers: HTTPHeaders = ["Content-Type": "image/svg+xml", "Cache-Control": "private, max-age=3600",
                                        "X-Content-Type-Options": "nosniff"]
            if request.queryValue("download") != nil {
                headers.add("Content-Disposition", #"attachment; filename="qr-\#(link.shortCode).svg""#)
            }
            return HTTPResponse(status: .ok, headers: headers, body: Array(try QRCode(text: url, correction: .medium).svg(margin: 4).utf8))
        }
    }

    static func show(_ services: Services) -> RouteHandler {
        let auth = DashboardAuth(services: services)
        return auth.page { request, viewer in
            let project = try DashboardProjects.readable(request, viewer, services)
            let link = try services.app.links.existing(id: request.pathParameters["linkId"] ?? "", projectID: project.id)
            let now = services.now(for: project)
            let end = Timestamp(milliseconds: (now.milliseconds / 86_400_000 + 1) * 86_400_000)
            let since = end.adding(seconds: -30 * 86400)
            let days = try services.app.reports.browse.linkDays(projectID: project.id, linkID: link.id, since: since, until: end)
            var byDay: [Int64: LinkDay] = [:]
            for day in days { byDay[day.day.milliseconds] = day }
            var labels: [String] = [], clicks: [Double] = [], installs: [Double] = []
            for index in 0..<30 {
                let day = since.adding(seconds: Int64(index) * 86400)
                labels.append(String(day.iso8601.dropFirst(5).prefix(5)))
                clicks.append(Double(byDay[day.milliseconds]?.clicks ?? 0))
                installs.append(Double(byDay[day.milliseconds]?.installs ?? 0))
            }
            let url = LinkURLs.url(base: LinkURLs.base(for: request, services: services), shortCode: link.shortCode, templateSlug: nil)
            let qrPath = "\(auth.prefix)/projects/\(Escape.html(project.id))/links/\(Escape.html(link.id))/qr.svg"
            let recent = try services.app.reports.browse.recentClicks(linkID: link.id, limit: 50).map { click in
                """
                <tr\(click.isBot ? #" class="bot""# : "")><td>\(click.createdAt.iso8601)</td><td>\(Escape.html(click.platform ?? "–"))\
                \(click.isBot ? " (bot)" : "")</td><td class="hide-narrow">\(Escape.html(click.source))</td>\
                <td>\(click.installID.map { #"<a href="\#(auth.prefix)/projects/\#(Escape.html(project.id))/installs/\#(Escape.html($0))">install</a>"# } ?? "")</td></tr>
                """
            }.joined()
            let body = """
                <h1>\(Escape.html(link.title ?? link.shortCode))</h1><p><a href="\(Escape.html(url))">\(Escape.html(url))</a>\
                \(link.active ? "" : #" <span class="muted">(disabled)</span>"#)</p>\
                <div class="grid2"><div class="chart"><div class="legend"><span><i class="k0"></i>Clicks</span><span><i class="k1"></i>Attributed installs</span></div>\
                \(SVGChart.bars(labels: labels, series: [("Clicks", clicks), ("Attributed installs", installs)]))</div>\
                <div><img src="\(qrPath)" alt="QR code for \(Escape.html(url))" width="180" height="180">\
                <p><a href="\(qrPath)?download=1">Download the QR code (SVG)</a></p></div></div>\
                <h2>Latest clicks</h2><table><thead><tr><th>Time (UTC)</th><th>Platform</th><th class="hide-narrow">Source</th><th></th></tr></thead>\
                <tbody>\(recent.isEmpty ? #"<tr><td colspan="4" class="muted">No clicks yet.</td></tr>"# : recent)</tbody></table>
                """
            return DashboardPage.render(title: "\(link.shortCode) · \(project.name)", prefix: auth.prefix, viewer: viewer,
                                        projectNav: (project.id, project.name, "Links"), body: body)
        }
    }
}
