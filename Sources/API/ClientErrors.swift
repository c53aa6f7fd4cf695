import App
import HTTP
import StoreContracts

/// The refusals of the layers below, as the HTTP errors every API answers with (each in its own
/// wire format): the client's to fix, never a 500; a database that is away is a 503 to retry.
enum ClientErrors {
    /// A family's answer to any error a handler throws, in its `shape`: a client's mistake keeps
    /// its 4xx, the rest is a 500 without details (the cause is logged).
    static func response(
        for error: any Error, request: HTTPRequest, services: Services, shape: (HTTPError) -> HTTPResponse
    ) -> HTTPResponse {
        let known = httpError(for: error)
        let response = shape(
            known ?? HTTPError(.internalServerError, code: "internal_error", message: "the server could not complete the request"))
        return services.reported(response, for: error, to: request)
    }

    /// A handler whose errors answer in a family's `shape` (a cache miss on an event loop still
    /// moves the request to the pool).
    static func guarded(
        _ services: Services, shape: @escaping @Sendable (HTTPError) -> HTTPResponse,
        _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse
    ) -> @Sendable (HTTPRequest) throws -> HTTPResponse {
        { request in
            do { return try handler(request) } catch let error as MoveToPool { throw error } catch {
                return response(for: error, request: request, services: services, shape: shape)
            }
        }
    }

    static func httpError(for error: any Error) -> HTTPError? {
        switch error {
        case let error as HTTPError: return error
        case let error as AppError:
            switch error {
            case .notFound(let message): return .notFound(message)
            case .invalid: return HTTPError(.unprocessableContent, code: "invalid_field", message: error.message)
            }
        case let error as StoreError:
            switch error {
            case .conflict(let message): return .conflict(message)
            case .notFound(let message): return .notFound(message)
            case .unavailable:
                // The cause (a host, a port, a driver's words) is the operator's, logged; not the client's.
                return HTTPError(
                    .serviceUnavailable, code: "database_unavailable", message: "database unavailable; retry in a moment",
                    headers: ["Retry-After": "1"])
            case .unstorable(let message): return HTTPError(.unprocessableContent, code: "invalid_field", message: message)
            case .storageFull: return storageFull
            }
        case let error as any DatabaseLibraryError where error.isStorageFull: return storageFull
        default: return nil
        }
    }

    /// Nothing the client did: the server's disk is full. Retried later, the write goes through
    /// once space is freed.
    static let storageFull = HTTPError(
        .serviceUnavailable, code: "storage_full",
        message: "the server's disk is full; writes resume once space is freed", headers: ["Retry-After": "30"])
}
