import App
import HTTP
import Store

/// The refusals of the layers below, as the HTTP errors every API answers with (each in its own
/// wire format): the client's to fix, never a 500; a database that is away is a 503 to retry.
enum ClientErrors {
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
                return HTTPError(.serviceUnavailable, code: "database_unavailable", message: "database unavailable; retry in a moment",
                                 headers: ["Retry-After": "1"])
            case .unstorable(let message): return HTTPError(.unprocessableContent, code: "invalid_field", message: message)
            }
        default: return nil
        }
    }
}
