import Attribution
import Cryptography
import Foundation
import JSON
import StoreContracts

/// The OAuth client secret of Apple's Search Ads API: a JWT signed ES256 with the client's key
/// (header `alg`, `kid`; claims `sub` = client id, `aud` = appleid.apple.com, `iat`, `exp`, `iss`
/// = team id).
enum AppleAdsClientSecret {
    static let audience = "https://appleid.apple.com"
    /// Apple accepts up to 180 days; a day is enough between our token requests.
    static let lifetimeSeconds: Int64 = 86_400

    static func make(_ credentials: AppleAdsCredentials, at time: Timestamp) -> String? {
        let issuedAt = time.milliseconds / 1000
        let header = JSONValue.object(["alg": .string("ES256"), "kid": .string(credentials.keyID)]).serialized()
        let claims = JSONValue.object([
            "sub": .string(credentials.clientID), "aud": .string(audience), "iat": .number(Double(issuedAt)),
            "exp": .number(Double(issuedAt + lifetimeSeconds)), "iss": .string(credentials.teamID),
        ]).serialized()
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(claims)
        guard let signature = ES256.sign(Array(signingInput.utf8), privateKeyPEM: credentials.privateKey) else { return nil }
        return signingInput + "." + Base64URL.encode(signature)
    }
}
