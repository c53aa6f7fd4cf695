import Foundation
import HTTP
import Store

/// Admin routes answer only to `Authorization: Bearer <admin key>`. With no admin key configured
/// the admin API does not exist (404), so an unconfigured server exposes nothing.
struct AdminAuth: Sendable {
    let keyHash: [UInt8]?
    /// Cleared after every admin change, so cached projects and keys never outlive an edit.
    var projectCache: ProjectCache? = nil

    func guarded(_ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) -> @Sendable (HTTPRequest) throws -> HTTPResponse {
        { request in
            guard let keyHash else {
                throw HTTPError.notFound("no route for \(request.method) \(request.path) (the admin API is off: set admin_key)")
            }
            guard let presented = BearerToken.from(request), Secrets.matches(presented, hash: keyHash) else {
                throw HTTPError(.unauthorized, code: "unauthorized", message: "a valid admin key is required (Authorization: Bearer <admin key>)",
                                headers: ["WWW-Authenticate": "Bearer"])
            }
            defer { if request.method != .get { projectCache?.invalidateAll() } }
            return try handler(request)
        }
    }
}

enum BearerToken {
    /// The token of `Authorization: Bearer <token>` (scheme case-insensitive, RFC 6750 §2.1).
    static func from(_ request: HTTPRequest) -> String? {
        guard let value = request.headers["Authorization"] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].equalsIgnoringASCIICase("Bearer") else { return nil }
        let token = parts[1].trimmingOWS()
        return token.isEmpty ? nil : String(token)
    }
}
