import App
import Attribution
import HTTP
import JSON

/// Apple's postback copies (docs/skan-postbacks.md): the two receivers every Host answers, since
/// Apple posts to the app's registrable domain and the postback's app id names the project.
enum ApplePostbackRoutes {
    /// `POST /.well-known/skadnetwork/report-attribution/` and
    /// `POST /.well-known/appattribution/report-attribution/`
    static func receive(_ services: Services, framework: ApplePostback.Framework) -> RouteHandler {
        .sync { request in
            let outcome = try services.app.applePostbacks.receive(request.body, framework: framework)
            switch outcome {
            case .success(.stored(let stored)):
                services.metrics.recordApplePostback(framework: framework, result: "stored")
                return .json(bytes: JSONValue.object(["status": .string("stored"), "id": .string(stored.id)]).serialized())
            case .success(.duplicate):
                services.metrics.recordApplePostback(framework: framework, result: "duplicate")
                return .json(bytes: JSONValue.object(["status": .string("duplicate")]).serialized())
            case .failure(.rejected(let rejection)):
                services.metrics.recordApplePostback(framework: framework, result: rejection.code)
                throw HTTPError(.unprocessableContent, code: rejection.code, message: rejection.message)
            case .failure(.unknownApp(let appID)):
                services.metrics.recordApplePostback(framework: framework, result: "unknown_app")
                throw HTTPError(
                    .notFound, code: "unknown_app",
                    message: "no project has App Store id \(appID) (set ios_app_store_id or ios_store_url on the project)")
            }
        }
    }
}
