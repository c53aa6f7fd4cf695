import HTTP

/// The dashboard's URL map under its prefix (`dashboard.prefix`, `/dashboard` by default).
enum DashboardRoutes {
    static func register(on router: inout RouterBuilder, _ services: Services) {
        let settings = services.dashboard
        guard settings.enabled else { return }
        let p = settings.prefix
        router.reserve(String(p.dropFirst()))
        router.on(.get, p, OverviewRoutes.projects(services))
        router.on(.get, p + "/", OverviewRoutes.projects(services))
        router.on(.post, p + "/projects", NewProjectPages.create(services))
        router.on(
            .get, p + "/assets/:name",
            .inline { request in
                guard let response = DashboardAssets.serve(request.pathParameters["name"] ?? "") else {
                    throw HTTPError.notFound("no dashboard asset \(request.pathParameters["name"] ?? "")")
                }
                return response
            })
        router.on(.get, p + "/sign-in", SignInRoutes.form(services))
        router.on(.post, p + "/sign-in", SignInRoutes.signIn(services))
        router.on(.post, p + "/sign-out", SignInRoutes.signOut(services))
        router.on(.get, p + "/projects/:id", OverviewRoutes.overview(services))
        router.on(.get, p + "/projects/:id/breakdowns", BreakdownsPage.show(services))
        router.on(.get, p + "/projects/:id/cohorts", CohortsPage.show(services))
        router.on(.get, p + "/projects/:id/links", LinkPages.list(services))
        router.on(.post, p + "/projects/:id/links", LinkPages.create(services))
        router.on(.post, p + "/projects/:id/links/import-fdl", LinkPages.importFDL(services))
        router.on(.post, p + "/projects/:id/links/:linkId/active", LinkPages.setActive(services))
        router.on(.get, p + "/projects/:id/links/:linkId", LinkDetailPage.show(services))
        router.on(.post, p + "/projects/:id/links/:linkId", LinkDetailPage.update(services))
        router.on(.get, p + "/projects/:id/links/:linkId/qr.svg", LinkDetailPage.qrCode(services))
        router.on(.get, p + "/projects/:id/installs", InstallPages.list(services))
        router.on(.get, p + "/projects/:id/installs/:installId", InstallPages.show(services))
        router.on(.post, p + "/projects/:id/installs/:installId/erase", InstallPages.erase(services))
        router.on(.get, p + "/projects/:id/skan", SKANPage.show(services))
        router.on(.get, p + "/projects/:id/outbound", OutboundPage.show(services))
        router.on(.get, p + "/projects/:id/connect", ConnectPage.show(services))
        router.on(.post, p + "/projects/:id/getting-started/hide", GettingStarted.hide(services))
        router.on(.post, p + "/projects/:id/outbound/deliveries/:deliveryId/replay", OutboundPage.replay(services))
        router.on(.post, p + "/projects/:id/outbound/webhooks", OutboundPage.addEndpoint(services))
        router.on(.post, p + "/projects/:id/outbound/webhooks/:webhookId/rotate", OutboundPage.rotateSecret(services))
        router.on(.post, p + "/projects/:id/outbound/webhooks/:webhookId/delete", OutboundPage.removeEndpoint(services))
        router.on(.post, p + "/projects/:id/outbound/webhooks/:webhookId/test", OutboundPage.sendTest(services))
        router.on(.post, p + "/projects/:id/outbound/webhooks/:webhookId/enabled", OutboundPage.setEnabled(services))
        router.on(.get, p + "/projects/:id/outbound/deliveries/:deliveryId", DeliveryPage.show(services))
        router.on(.post, p + "/projects/:id/outbound/postbacks", OutboundPage.addTemplate(services))
        router.on(.post, p + "/projects/:id/outbound/postbacks/:postbackId/delete", OutboundPage.removeTemplate(services))
        router.on(.get, p + "/projects/:id/settings", SettingsPages.show(services))
        router.on(.post, p + "/projects/:id/settings/project", SettingsPages.updateProject(services))
        router.on(.post, p + "/projects/:id/settings/api-keys", SettingsPages.issueKey(services))
        router.on(.post, p + "/projects/:id/settings/api-keys/:keyId/revoke", SettingsPages.revokeKey(services))
        router.on(.post, p + "/projects/:id/settings/users", SettingsPages.addUser(services))
        router.on(.post, p + "/projects/:id/settings/domains", SettingsPages.addDomain(services))
        router.on(.post, p + "/projects/:id/settings/domains/:domainId/remove", SettingsPages.removeDomain(services))
        router.on(.post, p + "/projects/:id/settings/users/:userId/remove", SettingsPages.removeUser(services))
        router.on(.post, p + "/projects/:id/settings/delete", SettingsPages.deleteProject(services))
    }
}
