import Attribution
import Foundation
import JSON

/// The OIDC token a Pub/Sub push subscription with authentication sends as
/// `Authorization: Bearer …` (docs/revenue.md, "Google Play"): a JWT Google signed (RS256, one of
/// its published keys by `kid`) whose audience is the subscription's and whose `email` is the
/// service account the subscription pushes as.
struct PubSubPushToken {
    static let issuers: Set<String> = ["https://accounts.google.com", "accounts.google.com"]
    /// How far the two clocks may disagree about `exp` and `iat`.
    static let skewSeconds: Double = 60

    let keyID: String
    let signingInput: [UInt8]
    let signature: [UInt8]
    let claims: [String: JSONValue]

    /// The token of an `Authorization` header, or why it is none.
    static func parse(authorization: String?) -> Result<PubSubPushToken, Refusal> {
        guard let authorization, authorization.lowercased().hasPrefix("bearer ") else {
            return .failure(Refusal("the push has no Authorization: Bearer token"))
        }
        let parts = authorization.dropFirst(7).trimmingCharacters(in: .whitespaces).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]),
            case .object(let header)? = try? JSONDecoder().decode(JSONValue.self, from: Data(headerBytes)),
            case .object(let claims)? = try? JSONDecoder().decode(JSONValue.self, from: Data(claimBytes))
        else { return .failure(Refusal("the Authorization token is not a JWT")) }
        guard header["alg"] == .string("RS256"), case .string(let keyID)? = header["kid"] else {
            return .failure(Refusal("the token is not signed RS256 with a named key (alg, kid)"))
        }
        return .success(
            PubSubPushToken(keyID: keyID, signingInput: Array("\(parts[0]).\(parts[1])".utf8), signature: signature, claims: claims))
    }

    /// Why the claims do not let this push in (nil when they do): Google's issuer, the source's
    /// audience, not expired, and the source's service account when it names one.
    func refusal(audience: String, email: String?, now: Timestamp) -> Refusal? {
        let seconds = Double(now.milliseconds) / 1000
        guard case .string(let issuer)? = claims["iss"], Self.issuers.contains(issuer) else {
            return Refusal("the token's issuer is not Google (iss)")
        }
        guard claims["aud"] == .string(audience) else { return Refusal("the token's audience (aud) is not this source's push_audience") }
        guard case .number(let expires)? = claims["exp"], expires + Self.skewSeconds > seconds else {
            return Refusal("the token has expired (exp)")
        }
        if case .number(let issued)? = claims["iat"], issued - Self.skewSeconds > seconds {
            return Refusal("the token is issued in the future (iat)")
        }
        if let email, !email.isEmpty {
            guard claims["email"] == .string(email), claims["email_verified"] == .bool(true) else {
                return Refusal("the token's email is not this source's push_service_account")
            }
        }
        return nil
    }

    struct Refusal: Error, Equatable, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
