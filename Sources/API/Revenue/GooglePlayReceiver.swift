import App
import HTTP
import JSON

/// `POST /notifications/google-play/{projectId}?secret=…` (docs/revenue.md): Google Play's
/// Real-time Developer Notifications as a Pub/Sub push subscription delivers them, let in by its
/// OIDC token (`Authorization: Bearer`) or the URL's secret, as the source chooses. 200 once kept; 502 when Google's API could not be asked
/// (Pub/Sub retries); 4xx for what is not this source's.
enum GooglePlayReceiver {
    static func receive(_ services: Services) -> RouteHandler {
        .pooled { request, respond in
            do {
                let project = try StoreNotificationReceiver.project(of: request, services: services)
                let body = try JSONValueParser.parse(request.body)
                services.app.storeRevenue.receiveGooglePlay(
                    body, presentedSecret: request.queryValue("secret"), authorization: request.headers["Authorization"], project: project
                ) { result in
                    respond(
                        result.map(StoreNotificationReceiver.answer).mapError { error -> any Error in
                            switch error {
                            case let refused as Unauthorized: HTTPError(.unauthorized, code: "unauthorized", message: refused.reason)
                            case let upstream as UpstreamFailure: HTTPError(.badGateway, code: "upstream_failed", message: upstream.reason)
                            default: error
                            }
                        })
                }
            } catch {
                respond(.failure(error))
            }
        }
    }
}
