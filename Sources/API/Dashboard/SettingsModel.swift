import App
import Attribution
import StoreContracts

/// What a project's settings page shows, loaded without HTML: each setting's value (the form's
/// as sent when it comes back with problems), the API keys, users and domains with their
/// certificates and link counts, the `.well-known` files the project serves, and whether the
/// viewer may delete the project. `SettingsPages` renders it.
struct SettingsModel {
    struct Domain: Equatable {
        let domain: ProjectDomain
        let links: Int
        /// Its certificate in words (`SettingsModel.certificateText`).
        let certificate: String
    }

    let project: Project
    let keys: [APIKeyInfo]
    let users: [DashboardUser]
    let domains: [Domain]
    /// The files' bodies, nil when the project has no app for them yet.
    let appleAppSiteAssociation: String?
    let assetLinks: String?
    /// Only the server admin (signed in with the admin key) deletes projects.
    let canDeleteProject: Bool
    let form: DashboardForm?

    static func load(_ viewer: DashboardViewer, project: Project, form: DashboardForm?, services: Services) throws -> SettingsModel {
        let certificates = try services.app.domains.certificates()
        let now = services.clock.now()
        let domains = try services.app.domains.list(projectID: project.id).map { domain in
            Domain(
                domain: domain, links: try services.app.domains.linkCount(on: domain),
                certificate: certificateText(certificates[domain.domain], now: now))
        }
        return SettingsModel(
            project: project, keys: try services.app.projects.apiKeys(projectID: project.id),
            users: try services.app.dashboard.users(projectID: project.id), domains: domains,
            appleAppSiteAssociation: try WellKnownRoutes.appleAppSiteAssociation(for: [project]).map { String(decoding: $0, as: UTF8.self) },
            assetLinks: try WellKnownRoutes.assetLinks(for: [project]).map { String(decoding: $0, as: UTF8.self) },
            canDeleteProject: viewer.session.user == nil, form: form)
    }

    /// The value a settings field shows: what the form sent, else the project's.
    func value(of name: String) -> String {
        if let form, let value = form[name] { return value }
        let settings = project.settings
        switch name {
        case "ios_store_url": return settings.iosStoreURL ?? ""
        case "ios_app_store_id": return settings.iosAppStoreID.map(String.init) ?? ""
        case "android_store_url": return settings.androidStoreURL ?? ""
        case "web_url": return settings.webURL ?? ""
        case "attribution_window_hours": return String(settings.attributionWindowHours)
        case "min_confidence": return String(settings.minConfidence)
        case "currency": return settings.currency
        case "reporting_currency": return settings.reportingCurrency
        case "time_zone": return settings.timeZone
        case "skan": return settings.skanSchema ?? ""
        case "ios_team_id": return settings.iosTeamID ?? ""
        case "ios_bundle_id": return settings.iosBundleID ?? ""
        case "android_package": return settings.androidPackage ?? ""
        case "android_sha256": return settings.androidSHA256.joined(separator: "\n")
        default: return ""
        }
    }

    /// Whether taps in social apps' browsers are led out: the form's last checkbox value, else the project's.
    var escapesInAppBrowsers: Bool {
        form.map { $0.fields.last { $0.name == "in_app_escape" }?.value == "1" } ?? project.settings.inAppEscape
    }

    /// A domain's certificate as the settings page says it (`acme`; a proxy's are not known here).
    static func certificateText(_ record: DomainCertificateRecord?, now: Timestamp) -> String {
        guard let record else { return "none (from the proxy, or not asked for yet)" }
        if let notAfter = record.notAfter, notAfter * 1000 > now.milliseconds {
            return "valid until \(Timestamp(milliseconds: notAfter * 1000).iso8601)"
                + (record.failures > 0 ? "; renewal failing: \(record.lastError ?? "")" : "")
        }
        if record.failures > 0 { return "failing (\(record.failures)×): \(record.lastError ?? ""); next try \(record.nextAttemptAt.iso8601)" }
        return "being requested"
    }
}
