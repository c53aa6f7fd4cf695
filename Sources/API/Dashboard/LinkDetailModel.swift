import App
import Attribution
import Foundation
import HTTP
import StoreContracts

/// What one link's page shows, loaded without HTML: its URL, its clicks and attributed installs per
/// local day over 30 days, its A/B split and countries over those days, its latest clicks, and
/// what its edit form starts from. `LinkDetailPage` renders it.
struct LinkDetailModel {
    struct Day: Equatable {
        let label: String
        let clicks: Int
        let installs: Int
    }

    let project: Project
    let link: Link
    /// The short URL on the link's own domain, or this server's.
    let url: String
    let days: [Day]
    /// Each variant's counts with the variant as the link has it now (nil: removed since).
    let variants: [(counts: VariantCounts, variant: LinkVariant?)]
    let countries: [CountryCount]
    let recentClicks: [ClickSummary]
    let templateSlug: String?
    /// The project's own domains, for the edit form; empty for a viewer, who gets no form.
    let domains: [String]
    let canEdit: Bool

    static func load(_ request: HTTPRequest, viewer: DashboardViewer, project: Project, link: Link, services: Services) throws
        -> LinkDetailModel
    {
        let calendar = LocalCalendar(identifier: project.settings.timeZone) ?? .utc
        let month = try DashboardRange.resolve([("range", "30d")], calendar: calendar, now: services.now(for: project))
        let browse = services.app.reports.browse
        let days = try browse.linkSeries(projectID: project.id, linkID: link.id, boundaries: month.boundaries).map {
            Day(label: month.label($0.day, calendar: calendar), clicks: $0.clicks, installs: $0.installs)
        }
        let url = LinkURLs.url(
            base: LinkURLs.base(of: link, otherwise: LinkURLs.base(for: request, services: services)), shortCode: link.shortCode, templateSlug: nil)
        var variants: [(VariantCounts, LinkVariant?)] = []
        var countries: [CountryCount] = []
        if let since = month.boundaries.first, let until = month.boundaries.last {
            if !link.variants.isEmpty {
                variants = try services.app.reports.variants(project: project, link: link, since: since, until: until).map { row in
                    (row, link.variants.first { $0.name == row.name })
                }
            }
            countries = try browse.linkCountries(linkID: link.id, since: since, until: until, limit: 30)
        }
        let canEdit = viewer.canChange(projectID: project.id)
        return LinkDetailModel(
            project: project, link: link, url: url, days: days, variants: variants, countries: countries,
            recentClicks: try browse.recentClicks(linkID: link.id, limit: 50), templateSlug: try services.app.links.template(of: link)?.slug,
            domains: canEdit ? try services.app.domains.list(projectID: project.id).map(\.domain) : [], canEdit: canEdit)
    }

    /// Installs per click of a variant, as shown ("12.5%", "–" without clicks).
    static func rate(_ row: VariantCounts) -> String {
        row.clicks > 0 ? String(format: "%.1f%%", Double(row.installs) * 100 / Double(row.clicks)) : "–"
    }

    /// A variant's revenue per currency, as shown ("–" without any).
    static func revenue(_ row: VariantCounts) -> String {
        let text = row.revenue.sorted { $0.key < $1.key }.map { String(format: "%.2f %@", $0.value, $0.key) }.joined(separator: ", ")
        return text.isEmpty ? "–" : text
    }

    /// A country's share of the link's clicks with a country, as shown ("40%").
    func share(_ row: CountryCount) -> String {
        String(format: "%.0f%%", Double(row.clicks) * 100 / Double(max(1, countries.reduce(0) { $0 + $1.clicks })))
    }
}
