public import Attribution
import Foundation
import HTTP
public import StoreContracts

typealias ProjectStatsCounts = ProjectStats.Counts

struct TemplatePayload: Decodable {
    var slug: String
    var name: String?
    var ios_url: String?
    var android_url: String?
    var web_url: String?
    var app_scheme: String?
    var deep_link_path: String?
    var deep_link_parameters: [String: String]?
    var utm: [String: String]?
    var attribution_window_hours: Int?

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case slug, name, ios_url, android_url, web_url, app_scheme, deep_link_path, deep_link_parameters, utm, attribution_window_hours
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(Set(CodingKeys.allCases.map(\.rawValue)))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        slug = try c.decode(String.self, forKey: .slug)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        ios_url = try c.decodeIfPresent(String.self, forKey: .ios_url)
        android_url = try c.decodeIfPresent(String.self, forKey: .android_url)
        web_url = try c.decodeIfPresent(String.self, forKey: .web_url)
        app_scheme = try c.decodeIfPresent(String.self, forKey: .app_scheme)
        deep_link_path = try c.decodeIfPresent(String.self, forKey: .deep_link_path)
        deep_link_parameters = try c.decodeIfPresent([String: String].self, forKey: .deep_link_parameters)
        utm = try c.decodeIfPresent([String: String].self, forKey: .utm)
        attribution_window_hours = try c.decodeIfPresent(Int.self, forKey: .attribution_window_hours)
    }

    func template(projectID: String, now: Timestamp) -> LinkTemplate {
        LinkTemplate(
            id: UUID().uuidString.lowercased(), projectID: projectID, slug: slug, name: name ?? slug,
            iosURL: ios_url, androidURL: android_url, webURL: web_url, appScheme: app_scheme,
            deepLinkPath: deep_link_path, deepLinkParameters: deep_link_parameters ?? [:], utm: utm ?? [:],
            attributionWindowHours: attribution_window_hours, createdAt: now)
    }
}

struct TemplateBody: Encodable {
    let id: String
    let project_id: String
    let slug: String
    let name: String
    let ios_url: String?
    let android_url: String?
    let web_url: String?
    let app_scheme: String?
    let deep_link_path: String?
    let deep_link_parameters: [String: String]
    let utm: [String: String]
    let attribution_window_hours: Int?
    let created_at: String

    init(_ template: LinkTemplate) {
        id = template.id
        project_id = template.projectID
        slug = template.slug
        name = template.name
        ios_url = template.iosURL
        android_url = template.androidURL
        web_url = template.webURL
        app_scheme = template.appScheme
        deep_link_path = template.deepLinkPath
        deep_link_parameters = template.deepLinkParameters
        utm = template.utm
        attribution_window_hours = template.attributionWindowHours
        created_at = template.createdAt.iso8601
    }
}

/// A project's stats as JSON, for `GET /admin/v1/projects/{id}/stats` and `attributiond stats --json`.
public struct StatsBody: Encodable {
    public struct Counts: Encodable {
        let clicks: Int
        let bot_clicks: Int
        let installs: Int
        let attributed_installs: Int
        let organic_installs: Int
        let installs_by_match_type: [String: Int]
        /// Attributed installs by what attributed them: a link, or Apple Ads.
        let installs_by_source: [String: Int]
        let events: Int
        /// Of the period's installs, those that have a user (signed up) and those with a payment
        /// that was not removed: the funnel's last two steps.
        let signups: Int
        let paying_installs: Int
        /// Captured payments, by currency (never summed across currencies).
        let payment_revenue: [String: Double]
        /// Amounts declared by events, by currency: a separate figure, as an app may report one
        /// purchase both as an event with an amount and as a payment.
        let event_revenue: [String: Double]

        init(_ counts: ProjectStatsCounts, adPlatforms: [String: Int] = [:]) {
            clicks = counts.clicks
            bot_clicks = counts.botClicks
            installs = counts.installs
            attributed_installs = counts.attributedInstalls
            organic_installs = counts.organicInstalls
            installs_by_match_type = [
                "deterministic": counts.deterministicInstalls, "probabilistic": counts.probabilisticInstalls,
                "none": counts.organicInstalls,
            ]
            var sources = [
                "link": counts.attributedInstalls - counts.appleAdsInstalls - adPlatforms.values.reduce(0, +),
                "apple_ads": counts.appleAdsInstalls, "organic": counts.organicInstalls,
            ]
            sources.merge(adPlatforms) { _, claimed in claimed }
            installs_by_source = sources
            events = counts.events
            signups = counts.signups
            paying_installs = counts.payingInstalls
            payment_revenue = counts.paymentRevenue.reduce(into: [:]) { $0[$1.key] = MoneyAmount.rounded($1.value, currency: $1.key) }
            event_revenue = counts.eventRevenue.reduce(into: [:]) { $0[$1.key] = MoneyAmount.rounded($1.value, currency: $1.key) }
        }
    }

    public struct Link: Encodable {
        let link_id: String
        let short_code: String
        let counts: Counts
    }

    let project_id: String
    let since: String
    let until: String
    public struct AppleAds: Encodable {
        let campaign_id: String?
        let ad_group_id: String?
        let keyword_id: String?
        let campaign_name: String?
        let ad_group_name: String?
        let keyword: String?
        let test: Bool
        let counts: Counts
    }

    let totals: Counts
    let links: [Link]
    /// Apple Ads installs and what they did, by campaign, ad group and keyword.
    let apple_ads: [AppleAds]
    public struct AdPlatform: Encodable {
        let source: String
        let campaign_id: String?
        let campaign_name: String?
        let ad_group_id: String?
        let ad_group_name: String?
        let installs: Int
        let events: Int
    }
    /// Installs the ad platforms' claims hold, by source, campaign and ad group.
    let ad_platforms: [AdPlatform]
    /// Of `totals.payment_revenue`, what a store verified (docs/revenue.md), by currency.
    let verified_payment_revenue: [String: Double]

    public init(projectID: String, since: Timestamp, until: Timestamp, stats: ProjectStats) {
        project_id = projectID
        self.since = since.iso8601
        self.until = until.iso8601
        totals = Counts(stats.totals, adPlatforms: stats.adPlatformInstallsBySource)
        verified_payment_revenue = stats.verifiedPaymentRevenue.reduce(into: [:]) { $0[$1.key] = MoneyAmount.rounded($1.value, currency: $1.key) }
        ad_platforms = stats.adPlatforms.map {
            AdPlatform(
                source: $0.source, campaign_id: $0.campaignID, campaign_name: $0.campaignName, ad_group_id: $0.adGroupID,
                ad_group_name: $0.adGroupName, installs: $0.installs, events: $0.events)
        }
        links = stats.links.map { Link(link_id: $0.linkID, short_code: $0.shortCode, counts: Counts($0.counts)) }
        apple_ads = stats.appleAds.map {
            AppleAds(
                campaign_id: $0.campaignID, ad_group_id: $0.adGroupID, keyword_id: $0.keywordID, campaign_name: $0.campaignName,
                ad_group_name: $0.adGroupName, keyword: $0.keyword, test: $0.test, counts: Counts($0.counts))
        }
    }
}
