import Cryptography
import Foundation
import JSON

/// A JWS the App Store signed (a notification's `signedPayload`, its `signedTransactionInfo`):
/// ES256 over `header.payload`, by the leaf of the header's `x5c` chain, which must chain up to
/// the configured roots and carry Apple's marker extensions (the leaf's for App Store receipt
/// signing, the intermediate's for Apple's WWDR CA G6).
enum AppStoreJWS {
    static let leafOID = "1.2.840.113635.100.6.11.1"
    static let intermediateOID = "1.2.840.113635.100.6.2.1"

    enum Refusal: Error, Equatable {
        case malformed(String)
        case untrusted(String)
        case badSignature

        var message: String {
            switch self {
            case .malformed(let why), .untrusted(let why): why
            case .badSignature: "its signature is not its leaf certificate's"
            }
        }
    }

    /// The payload of `compact` when its chain and signature hold at `time` (seconds).
    static func verifiedPayload(_ compact: String, rootsPEM: String, at time: Int64) -> Result<JSONValue, Refusal> {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let payloadBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { return .failure(.malformed("is not a compact JWS (three base64url parts)")) }
        guard case .object(let header)? = try? JSONDecoder().decode(JSONValue.self, from: Data(headerBytes)) else {
            return .failure(.malformed("has a header that is not a JSON object"))
        }
        guard header["alg"] == .string("ES256") else { return .failure(.malformed("is not signed with ES256")) }
        guard case .array(let chain)? = header["x5c"], !chain.isEmpty else { return .failure(.malformed("has no x5c certificate chain")) }
        var certificates: [[UInt8]] = []
        for case .string(let text) in chain {
            guard let der = Data(base64Encoded: text) else { return .failure(.malformed("has an x5c certificate that is not base64")) }
            certificates.append(Array(der))
        }
        guard certificates.count == chain.count else { return .failure(.malformed("has an x5c entry that is not a string")) }
        let key: [UInt8]
        switch CertificateChain.verifiedLeafKey(
            certificates, rootsPEM: rootsPEM, at: time, leafOID: leafOID, intermediateOID: intermediateOID)
        {
        case .success(let verified): key = verified
        case .failure(.unreadable): return .failure(.untrusted("its certificates could not be read"))
        case .failure(.notTheStoresCertificate): return .failure(.untrusted("its certificates are not the App Store's signing certificates"))
        case .failure(.untrusted(_, let reason)): return .failure(.untrusted("its certificate chain does not hold: \(reason)"))
        }
        let signed = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
        guard ES256.verify(signature, isDER: false, message: signed, publicKeyDER: key) else { return .failure(.badSignature) }
        guard let payload = try? JSONDecoder().decode(JSONValue.self, from: Data(payloadBytes)) else {
            return .failure(.malformed("has a payload that is not JSON"))
        }
        return .success(payload)
    }
}
