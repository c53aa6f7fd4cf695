import App
import Attribution
import HTTP
import JSON
import StoreContracts

/// Which project a Branch SDK request belongs to: the `branch_key` every SDK puts in its JSON body
/// (in the query of a GET), which must have Branch's shape and be one of a project's active keys.
struct BranchAuth: Sendable {
    let services: Services

    func project(key: String?) throws -> Project {
        guard let key, !key.isEmpty else {
            throw HTTPError.unauthorized("branch_key is required (key_live_… or key_test_…)")
        }
        guard APIKeyFormat.isBranchShaped(key) else {
            throw HTTPError.unauthorized(
                "branch_key does not have Branch's shape (key_live_ or key_test_ and 32 letters or digits); issue one with {\"format\": \"branch\"}"
            )
        }
        guard let project = try services.app.projects.project(forAPIKey: key) else {
            throw HTTPError.unauthorized("branch_key is not a key of this server's projects")
        }
        return project
    }
}

/// Branch's error body, `{"error": {"code": <status>, "message": "<text>"}}`: the SDKs log
/// `error.message` and give up on a 4xx (they retry a 5xx).
enum BranchErrors {
    static func response(_ error: HTTPError) -> HTTPResponse {
        var body = Array(#"{"error":{"code":"#.utf8)
        ByteText.appendDecimal(error.status.code, to: &body)
        body.append(contentsOf: #","message":"#.utf8)
        ByteText.appendJSONString(error.message, to: &body)
        body.append(contentsOf: "}}".utf8)
        var response = HTTPResponse.json(bytes: body, status: error.status)
        for field in error.headers { response.headers.add(field.name, field.value) }
        return response
    }

    /// Any error a handler throws, in Branch's shape.
    static func response(for error: any Error, request: HTTPRequest, services: Services) -> HTTPResponse {
        ClientErrors.response(for: error, request: request, services: services, shape: response)
    }

    /// A handler whose errors answer in Branch's shape.
    static func guarded(_ services: Services, _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse)
        -> @Sendable (HTTPRequest) throws -> HTTPResponse
    { ClientErrors.guarded(services, shape: response, handler) }

    /// A deferred handler's completion that answers errors in Branch's shape.
    static func completing(
        _ request: HTTPRequest, _ services: Services, _ done: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> @Sendable (Result<HTTPResponse, any Error>) -> Void {
        { result in
            switch result {
            case .success(let response): done(.success(response))
            case .failure(let error as MoveToPool): done(.failure(error))
            case .failure(let error): done(.success(response(for: error, request: request, services: services)))
            }
        }
    }
}
