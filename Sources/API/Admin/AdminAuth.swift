import Cryptography
import Dispatch
import Foundation
import HTTP
import StoreContracts

/// Admin routes answer only to `Authorization: Bearer <admin key>`. With no admin key configured
/// the admin API does not exist (404), so an unconfigured server exposes nothing.
///
/// Failed authentications spend a per-client budget (`AdminAuth.failureBudget`; an IPv6 client
/// counts by its /64), shared with the dashboard's admin-key sign-in; a client that has spent it
/// gets 429 for every admin request, the right key included, until it refills, so a
/// guesser learns nothing while blocked. Successful requests spend nothing.
struct AdminAuth: Sendable {
    let keyHash: [UInt8]?
    let failures: RateLimiter<SocketAddress.ClientKey>
    let clientIP: ClientIPResolver

    /// 10 failures at once, then one every 6 seconds (10 a minute).
    static let failureBudget = RateLimitSettings(ratePerSecond: 1.0 / 6, burst: 10)

    init(services: Services) {
        keyHash = services.adminKeyHash
        failures = services.adminAuthFailures
        clientIP = services.clientIP
    }

    /// The admin API's guard (`Application`'s `/admin/v1` group): the key, or 404 when there is
    /// none, 401 for a wrong one, 429 once the client's failure budget is spent.
    var check: RouteGuard {
        { [keyHash, failures, clientIP] request in
            guard let keyHash else {
                throw HTTPError.notFound("no route for \(request.method) \(request.path) (the admin API is off: set admin_key)")
            }
            let client = clientIP.clientAddress(of: request)?.clientKey ?? .unknown
            let now = DispatchTime.now().uptimeNanoseconds
            if let wait = failures.retryAfter(client: client, now: now, consume: false) {
                throw Self.tooManyFailures(wait)
            }
            guard let presented = BearerToken.from(request), Secrets.matches(presented, hash: keyHash) else {
                if let wait = failures.retryAfter(client: client, now: now) { throw Self.tooManyFailures(wait) }
                throw HTTPError(
                    .unauthorized, code: "unauthorized", message: "a valid admin key is required (Authorization: Bearer <admin key>)",
                    headers: ["WWW-Authenticate": "Bearer"])
            }
        }
    }

    /// `handler` behind `check`, for a route outside the group that is admin-only in some
    /// configurations (`/metrics`).
    func guarded(_ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) -> @Sendable (HTTPRequest) throws -> HTTPResponse {
        { [check] request in
            try check(request)
            return try handler(request)
        }
    }

    private static func tooManyFailures(_ wait: Double) -> HTTPError {
        let seconds = retryAfterSeconds(wait)
        return HTTPError(
            .tooManyRequests, code: "rate_limited",
            message: "too many failed admin authentications from this address; retry in \(seconds) s",
            headers: ["Retry-After": String(seconds)])
    }
}

enum BearerToken {
    /// The token of `Authorization: Bearer <token>` (scheme case-insensitive, RFC 6750 §2.1).
    static func from(_ request: HTTPRequest) -> String? {
        guard var value = request.headers["Authorization"] else { return nil }
        // Over the bytes: every SDK request carries one, and splitting a String into Substrings
        // and trimming Characters cost ~35,000 instructions an install.
        return value.withUTF8 { bytes -> String? in
            func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
            var index = 0
            while index < bytes.count, bytes[index] == 0x20 { index += 1 }
            let scheme = index
            while index < bytes.count, bytes[index] != 0x20 { index += 1 }
            guard index - scheme == 6,
                zip(bytes[scheme..<index], "bearer".utf8).allSatisfy({ $0 | 0x20 == $1 })
            else { return nil }
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            var end = bytes.count
            while end > index, isSpace(bytes[end - 1]) { end -= 1 }
            guard end > index else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
        }
    }
}
