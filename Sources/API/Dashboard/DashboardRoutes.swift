import HTTP

/// The dashboard's URL map under its prefix (`dashboard.prefix`, `/dashboard` by default), each
/// route with the access it needs (`DashboardAccess`): the route table, not the handler, decides
/// who may reach a page.
enum DashboardRoutes {
    static func register(on router: inout RouterBuilder, _ services: Services) {
        let settings = services.dashboard
        guard settings.enabled else { return }
        router.reserve(String(settings.prefix.dropFirst()))
        for route in routes(services) { router.on(route.method, settings.prefix + route.path, route.handler) }
    }

    /// Every dashboard route, its path under the prefix (tests walk them all).
    static func routes(_ services: Services) -> [DashboardRoute] {
        var d = DashboardRouteGroup(services: services)
        d.open(.get, "/assets/:name", DashboardAssets.route)
        d.open(.get, "/sign-in", SignInRoutes.form(services))
        d.open(.post, "/sign-in", SignInRoutes.signIn(services))
        d.form("/sign-out", SignInRoutes.signOut(services))
        d.page("", OverviewRoutes.projects(services))
        d.page("/", OverviewRoutes.projects(services))
        d.form("/projects", NewProjectPages.create(services))

        let project = "/projects/:id"
        d.periodPage(project, OverviewRoutes.overview(services))
        d.periodPage(project + "/breakdowns", BreakdownsPage.show(services))
        d.periodPage(project + "/cohorts", rangeItems: CohortsPage.days, CohortsPage.show(services))
        d.projectPage(project + "/links", LinkPages.list(services))
        d.projectPage(project + "/links/:linkId", LinkDetailPage.show(services))
        d.projectPage(project + "/links/:linkId/qr.svg", LinkDetailPage.qrCode(services))
        d.projectPage(project + "/installs", InstallPages.list(services))
        d.projectPage(project + "/installs/:installId", InstallPages.show(services))
        d.projectPage(project + "/skan", SKANPage.show(services))
        d.periodPage(project + "/cost", CostPage.show(services))
        d.periodPage(project + "/roas", ROASPage.show(services))
        d.periodPage(project + "/traffic-quality", TrafficQualityPage.show(services))
        d.projectPage(project + "/connect", ConnectPage.show(services))
        d.projectPage(project + "/outbound/deliveries/:deliveryId", DeliveryPage.show(services))
        d.projectForm(project + "/getting-started/hide", GettingStarted.hide(services))

        d.adminForm(project + "/links", LinkPages.create(services))
        d.adminForm(project + "/links/import-fdl", LinkPages.importFDL(services))
        d.adminForm(project + "/links/import-branch", LinkPages.importBranch(services))
        d.adminForm(project + "/links/:linkId/active", LinkPages.setActive(services))
        d.adminForm(project + "/links/:linkId", LinkDetailPage.update(services))
        d.adminForm(project + "/installs/:installId/erase", InstallPages.erase(services))
        d.adminForm(project + "/cost", CostPage.upload(services))

        d.adminPage(project + "/outbound", OutboundPage.show(services))
        d.adminForm(project + "/outbound/deliveries/:deliveryId/replay", OutboundPage.replay(services))
        d.adminForm(project + "/outbound/webhooks", OutboundPage.addEndpoint(services))
        d.adminForm(project + "/outbound/webhooks/:webhookId/rotate", OutboundPage.rotateSecret(services))
        d.adminForm(project + "/outbound/webhooks/:webhookId/delete", OutboundPage.removeEndpoint(services))
        d.adminForm(project + "/outbound/webhooks/:webhookId/test", OutboundPage.sendTest(services))
        d.adminForm(project + "/outbound/webhooks/:webhookId/enabled", OutboundPage.setEnabled(services))
        d.adminForm(project + "/outbound/postbacks", OutboundPage.addTemplate(services))
        d.adminForm(project + "/outbound/postbacks/:postbackId/delete", OutboundPage.removeTemplate(services))

        d.adminPage(project + "/ad-platforms", AdPlatformsPage.show(services))
        d.adminForm(project + "/ad-platforms/:platform", AdPlatformsPage.save(services))
        d.adminForm(project + "/ad-platforms/:platform/test", AdPlatformsPage.sendTest(services))
        d.adminForm(project + "/ad-platforms/:platform/delete", AdPlatformsPage.remove(services))

        d.adminPage(project + "/settings", SettingsPages.show(services))
        d.adminForm(project + "/settings/project", SettingsPages.updateProject(services))
        d.adminForm(project + "/settings/api-keys", SettingsPages.issueKey(services))
        d.adminForm(project + "/settings/api-keys/:keyId/revoke", SettingsPages.revokeKey(services))
        d.adminForm(project + "/settings/users", SettingsPages.addUser(services))
        d.adminForm(project + "/settings/users/:userId/remove", SettingsPages.removeUser(services))
        d.adminForm(project + "/settings/domains", SettingsPages.addDomain(services))
        d.adminForm(project + "/settings/domains/:domainId/remove", SettingsPages.removeDomain(services))
        d.adminForm(project + "/settings/delete", SettingsPages.deleteProject(services))
        return d.routes
    }
}
