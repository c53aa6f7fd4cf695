import Attribution
import Cryptography
import Foundation
import JSON
import Synchronization

/// Google's published OIDC signing keys (a JWK set, `ATTRIBUTIOND_GOOGLE_CERTS_URL`), fetched
/// when a token names a key not held or the set's `Cache-Control: max-age` has run out. Google
/// rotates them every few days; a key unknown right after a fetch is refused without another
/// fetch for a minute, so that made-up key ids cannot make the server ask Google at each push.
final class GoogleSigningKeys: Sendable {
    /// How long a set is kept when Google's answer says nothing of it, and the shortest time
    /// between two fetches.
    static let defaultLifetimeSeconds: Int64 = 3600
    static let refetchSeconds: Int64 = 60

    struct Key: Sendable, Equatable {
        let modulus: [UInt8]
        let exponent: [UInt8]
    }

    private struct State {
        var keys: [String: Key] = [:]
        var until: Int64 = 0
        var fetchedAt: Int64?
        /// Callers waiting on the fetch under way; nil when none is.
        var waiting: [@Sendable (Result<[String: Key], PubSubPushToken.Refusal>) -> Void]?
    }

    private let state = Mutex(State())
    private let url: String
    private let clock: any Clock
    private let outbound: LateTransport

    init(url: String, clock: any Clock, outbound: LateTransport) {
        self.url = url
        self.clock = clock
        self.outbound = outbound
    }

    /// Whether `token` carries the signature of the Google key it names.
    func verify(_ token: PubSubPushToken, completion: @escaping @Sendable (PubSubPushToken.Refusal?) -> Void) {
        keys(including: token.keyID) { result in
            switch result {
            case .failure(let refusal): completion(refusal)
            case .success(let keys):
                guard let key = keys[token.keyID] else { return completion(.init("the token's key (kid) is not one Google publishes")) }
                let holds = RS256.verify(token.signature, message: token.signingInput, modulus: key.modulus, exponent: key.exponent)
                completion(holds ? nil : .init("the token's signature does not hold"))
            }
        }
    }

    private func keys(including keyID: String, _ completion: @escaping @Sendable (Result<[String: Key], PubSubPushToken.Refusal>) -> Void) {
        let now = clock.now().milliseconds / 1000
        enum Next {
            case answer([String: Key])
            case wait, fetch
        }
        let next = state.withLock { state -> Next in
            let fresh = state.until > now
            if fresh, state.keys[keyID] != nil { return .answer(state.keys) }
            if fresh, let fetched = state.fetchedAt, now - fetched < Self.refetchSeconds { return .answer(state.keys) }
            if state.waiting != nil {
                state.waiting!.append(completion)
                return .wait
            }
            state.waiting = [completion]
            return .fetch
        }
        switch next {
        case .answer(let keys): completion(.success(keys))
        case .wait: break
        case .fetch: fetch(now: now)
        }
    }

    private func fetch(now: Int64) {
        let finish: @Sendable (Result<[String: Key], PubSubPushToken.Refusal>, Int64?) -> Void = { [self] result, lifetime in
            let waiting = state.withLock { state in
                if case .success(let keys) = result, let lifetime {
                    state.keys = keys
                    state.until = now + lifetime
                    state.fetchedAt = now
                }
                defer { state.waiting = nil }
                return state.waiting ?? []
            }
            for caller in waiting { caller(result) }
        }
        guard let transport = outbound.current else { return finish(.failure(.init("outbound requests are not running on this node")), nil) }
        transport.send(OutboundRequest(method: "GET", url: url, headers: [], body: [], keptResponseBytes: 65_536)) { result in
            guard case .success(let response) = result else { return finish(.failure(.init("Google's signing keys could not be fetched")), nil) }
            guard response.statusCode == 200, let keys = Self.keys(ofJWKSet: Array(response.bodyPrefix.utf8)) else {
                return finish(.failure(.init("Google's signing keys answered \(response.statusCode), not a JWK set")), nil)
            }
            let cacheControl = response.headers.first { $0.key.lowercased() == "cache-control" }?.value ?? ""
            finish(.success(keys), Self.maxAge(cacheControl) ?? Self.defaultLifetimeSeconds)
        }
    }

    /// The RSA keys of a JWK set (`{"keys": [{"kid", "kty": "RSA", "n", "e"}…]}`) by key id; nil
    /// when it is not one.
    static func keys(ofJWKSet body: [UInt8]) -> [String: Key]? {
        guard case .object(let set)? = try? JSONDecoder().decode(JSONValue.self, from: Data(body)), case .array(let entries)? = set["keys"]
        else { return nil }
        var keys: [String: Key] = [:]
        for case .object(let entry) in entries where entry["kty"] == .string("RSA") {
            guard case .string(let id)? = entry["kid"], case .string(let n)? = entry["n"], case .string(let e)? = entry["e"],
                let modulus = Base64URL.decode(n), let exponent = Base64URL.decode(e)
            else { continue }
            keys[id] = Key(modulus: modulus, exponent: exponent)
        }
        return keys
    }

    /// `max-age` of a Cache-Control header, in seconds.
    static func maxAge(_ header: String) -> Int64? {
        for directive in header.split(separator: ",") {
            let parts = directive.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "max-age", let seconds = Int64(parts[1]), seconds >= 0 { return seconds }
        }
        return nil
    }
}
