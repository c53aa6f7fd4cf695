import App
import HTTP
import JSON

/// `POST /notifications/app-store/{projectId}` (docs/revenue.md): App Store Server Notifications
/// V2. The signed payload proves itself (its chain up to Apple's root), so the URL needs no secret.
enum AppStoreReceiver {
    static func receive(_ services: Services) -> RouteHandler {
        .sync { request in
            let project = try StoreNotificationReceiver.project(of: request, services: services)
            let outcome = try services.app.storeRevenue.receiveAppStore(try JSONValueParser.parse(request.body), project: project)
            return StoreNotificationReceiver.answer(outcome)
        }
    }
}
