import App
import HTTP
import StoreContracts

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
