import App
import Attribution
import HTTP
import StoreContracts

/// Which project a WarpLink request belongs to: its `Authorization: Bearer` key, which must have
/// WarpLink's shape (the SDKs send no other) and be one of a project's active keys.
struct WarpLinkAuth: Sendable {
    let services: Services

    func project(_ request: HTTPRequest) throws -> Project {
        guard let key = BearerToken.from(request) else {
            throw HTTPError.unauthorized("an API key is required (Authorization: Bearer wl_live_… or wl_test_…)")
        }
        guard APIKeyFormat.isWarpLinkShaped(key) else {
            throw HTTPError.unauthorized(
                "the API key does not have WarpLink's shape (wl_live_ or wl_test_ and 32 letters or digits); "
                    + "issue one with {\"format\": \"warplink\"}")
        }
        guard let project = try services.app.projects.project(forAPIKey: key) else {
            throw HTTPError.unauthorized("the API key is not valid")
        }
        return project
    }
}

/// WarpLink's error body, `{"error": {"code": "<CODE>", "message": "<text>"}}`, for every refusal
/// on `/v1` (the SDKs map 401/403 to "invalid API key" and 404 to "link not found").
enum WarpLinkErrors {
    static func response(_ error: HTTPError) -> HTTPResponse {
        var body = Array(#"{"error":{"code":"#.utf8)
        ByteText.appendJSONString(code(for: error), to: &body)
        body.append(contentsOf: #","message":"#.utf8)
        ByteText.appendJSONString(error.message, to: &body)
        body.append(contentsOf: "}}".utf8)
        var response = HTTPResponse.json(bytes: body, status: error.status)
        for field in error.headers { response.headers.add(field.name, field.value) }
        return response
    }

    /// Any error a handler throws, in WarpLink's shape.
    static func response(for error: any Error, request: HTTPRequest, services: Services) -> HTTPResponse {
        ClientErrors.response(for: error, request: request, services: services, shape: response)
    }

    static func code(for error: HTTPError) -> String {
        switch error.status.code {
        case 400: "INVALID_REQUEST"
        case 401: "UNAUTHORIZED"
        case 403: "FORBIDDEN"
        case 404: "NOT_FOUND"
        case 409: "CONFLICT"
        case 413: "PAYLOAD_TOO_LARGE"
        case 422: "VALIDATION_ERROR"
        case 429: "RATE_LIMITED"
        default: "INTERNAL_ERROR"
        }
    }

    /// A handler whose errors answer in WarpLink's shape.
    static func guarded(_ services: Services, _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse)
        -> @Sendable (HTTPRequest) throws -> HTTPResponse
    { ClientErrors.guarded(services, shape: response, handler) }
}
