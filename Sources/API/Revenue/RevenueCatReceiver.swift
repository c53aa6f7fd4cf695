import App
import Attribution
import HTTP
import JSON
import StoreContracts

/// `POST /notifications/revenuecat/{projectId}` (docs/revenue.md): RevenueCat's webhook, its
/// `Authorization` header the secret the project's source was given. Every event answers 200 once
/// it is kept (RevenueCat retries anything else); a body that is not RevenueCat's is 4xx.
enum RevenueCatReceiver {
    static func receive(_ services: Services) -> RouteHandler {
        .sync { request in
            let project = try StoreNotificationReceiver.project(of: request, services: services)
            let connection = try services.app.storeRevenue.connection(project: project, source: .revenueCat)
            guard let connection else { throw HTTPError.notFound("this project has no RevenueCat source") }
            guard StoreRevenueService.matches(request.headers["Authorization"], secret: connection.secrets["authorization"]) else {
                throw HTTPError(.unauthorized, code: "unauthorized", message: "the Authorization header is not this source's secret")
            }
            let transaction: StoreTransaction
            switch RevenueCatEvent.transaction(try JSONValueParser.parse(request.body)) {
            case .success(let parsed): transaction = parsed
            case .failure(let problem): throw HTTPError.invalidField(problem.key, problem.message)
            }
            return try StoreNotificationReceiver.record(transaction, project: project, services: services)
        }
    }
}

/// What every store's receiver shares: the project of the path, and the answer.
enum StoreNotificationReceiver {
    static func project(of request: HTTPRequest, services: Services) throws -> Project {
        try services.app.projects.existing(id: try request.parameter("projectId"))
    }

    static func record(_ transaction: StoreTransaction, project: Project, services: Services) throws -> HTTPResponse {
        answer(try services.app.storeRevenue.record(transaction, project: project))
    }

    static func answer(_ outcome: StoreRevenueOutcome) -> HTTPResponse {
        .json(
            bytes: JSONValue.object([
                "outcome": .string(outcome.result.rawValue), "install_id": outcome.installID.map(JSONValue.string) ?? .null,
                "duplicate": .bool(outcome.duplicate),
            ]).serialized())
    }
}
