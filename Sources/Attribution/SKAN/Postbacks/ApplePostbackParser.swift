import Foundation
import JSON

/// Reads Apple's postback copies strictly (docs/skan-postbacks.md): every known field with its
/// type and range, the bytes the signature covers, and the signature. Fields Apple may add later
/// are left in the raw body rather than refused, so a new OS version does not lose postbacks.
public enum ApplePostbackParser {
    /// SKAdNetwork's key for versions 2.1 and later, and AdAttributionKit's production `kid`.
    public static let productionKeyID = "apple-cas-identifier/0"
    static let developmentKeyPrefix = "apple-development-identifier/"
    /// U+2063 INVISIBLE SEPARATOR, which SKAdNetwork joins the signed fields with.
    static let separator: [UInt8] = Array("\u{2063}".utf8)

    public static func parse(_ body: [UInt8], framework: ApplePostback.Framework) -> Result<
        (postback: ApplePostback, signature: PostbackSignature), PostbackRejection
    > {
        do {
            guard case .object(let fields) = try JSONDecoder().decode(JSONValue.self, from: Data(body)) else {
                return .failure(.malformed("the body must be a JSON object"))
            }
            let reader = FieldReader(fields: fields)
            switch framework {
            case .skadnetwork: return .success(try skadnetwork(reader))
            case .adattributionkit: return .success(try adAttributionKit(reader))
            }
        } catch let rejection as PostbackRejection {
            return .failure(rejection)
        } catch {
            return .failure(.malformed("the body is not JSON"))
        }
    }

    // MARK: SKAdNetwork

    /// Which fields each version signs, in order (Apple's "Combining parameters" pages).
    enum SignedField { case version, adNetwork, campaign, source, app, transaction, redownload, sourceApp, fidelity, didWin, sequence }
    static let signedFields: [String: [SignedField]] = [
        "2.1": [.version, .adNetwork, .campaign, .app, .transaction, .redownload, .sourceApp],
        "2.2": [.version, .adNetwork, .campaign, .app, .transaction, .redownload, .sourceApp, .fidelity],
        "3.0": [.version, .adNetwork, .campaign, .app, .transaction, .redownload, .sourceApp, .fidelity, .didWin],
        "4.0": [.version, .adNetwork, .source, .app, .transaction, .redownload, .sourceApp, .fidelity, .didWin, .sequence],
    ]

    static func skadnetwork(_ fields: FieldReader) throws -> (postback: ApplePostback, signature: PostbackSignature) {
        let version = try fields.string("version")
        guard let signed = signedFields[version] else {
            throw PostbackRejection.unsupportedVersion(
                "SKAdNetwork version '\(version)' is not accepted (2.1, 2.2, 3.0 and 4.0 are; 1.0 and 2.0 predate developer copies)")
        }
        let isV4 = version == "4.0"
        let signature = try fields.base64("attribution-signature")
        let sourceAppID = try fields.optionalInteger("source-app-id", in: 1...Int64.max)
        let sourceDomain = isV4 ? try fields.optionalString("source-domain", maxLength: 253) : nil
        if sourceAppID != nil && sourceDomain != nil {
            throw PostbackRejection.malformed("'source-app-id' and 'source-domain' cannot both be present")
        }
        let redownload = try fields.bool("redownload")
        let postback = ApplePostback(
            framework: .skadnetwork, version: version, keyID: productionKeyID, isDevelopment: false,
            dedupeKey: try fields.string("transaction-id", maxLength: 200),
            adNetworkID: try fields.string("ad-network-id", maxLength: 255),
            sourceIdentifier: isV4 ? try fields.sourceIdentifier("source-identifier") : nil,
            campaignID: isV4 ? nil : try fields.integer("campaign-id", in: 0...Int64.max),
            appID: try fields.integer("app-id", in: 1...Int64.max), sourceAppID: sourceAppID, sourceDomain: sourceDomain,
            fidelityType: version == "2.1" ? nil : Int(try fields.integer("fidelity-type", in: 0...1)),
            interactionType: nil, impressionType: nil, conversionType: redownload ? "redownload" : "download", redownload: redownload,
            didWin: signed.contains(.didWin) ? try fields.bool("did-win") : nil,
            sequenceIndex: isV4 ? Int(try fields.integer("postback-sequence-index", in: 0...2)) : 0,
            fineValue: try fields.optionalInteger("conversion-value", in: 0...63).map(Int.init),
            coarseValue: isV4 ? try fields.coarse("coarse-conversion-value") : nil,
            country: nil, marketplace: nil, publisherItemID: nil)
        var message: [UInt8] = []
        for field in signed {
            let text: String?
            switch field {
            case .version: text = version
            case .adNetwork: text = postback.adNetworkID
            case .campaign: text = postback.campaignID.map(String.init)
            case .source: text = postback.sourceIdentifier
            case .app: text = String(postback.appID)
            case .transaction: text = postback.dedupeKey
            case .redownload: text = String(postback.redownload)
            case .sourceApp: text = sourceAppID.map(String.init) ?? sourceDomain
            case .fidelity: text = postback.fidelityType.map(String.init)
            case .didWin: text = postback.didWin.map(String.init)
            case .sequence: text = String(postback.sequenceIndex)
            }
            guard let text else { continue }
            if !message.isEmpty { message += separator }
            message += text.utf8
        }
        return (postback, PostbackSignature(keyID: productionKeyID, message: message, signature: signature, encoding: .der))
    }

    // MARK: AdAttributionKit

    static func adAttributionKit(_ fields: FieldReader) throws -> (postback: ApplePostback, signature: PostbackSignature) {
        let jws = try fields.string("jws-string", maxLength: 8192)
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = base64URL(parts[0]), let payloadBytes = base64URL(parts[1]),
            let signature = base64URL(parts[2])
        else {
            throw PostbackRejection.malformed("'jws-string' must be a compact JWS: three base64url parts joined by '.'")
        }
        guard case .object(let headerFields)? = try? JSONDecoder().decode(JSONValue.self, from: Data(headerBytes)),
            case .object(let payloadFields)? = try? JSONDecoder().decode(JSONValue.self, from: Data(payloadBytes))
        else {
            throw PostbackRejection.malformed("the JWS header and payload must be JSON objects")
        }
        let header = FieldReader(fields: headerFields, context: "the JWS header's ")
        guard try header.string("alg") == "ES256" else { throw PostbackRejection.malformed("the JWS header's 'alg' must be ES256") }
        let keyID = try header.string("kid", maxLength: 100)
        let payload = FieldReader(fields: payloadFields, context: "the JWS payload's ")
        let conversionType = try payload.string("conversion-type")
        guard ["download", "redownload", "re-engagement"].contains(conversionType) else {
            throw PostbackRejection.malformed("the JWS payload's 'conversion-type' must be download, redownload or re-engagement")
        }
        let interaction = try fields.optionalString("ad-interaction-type", maxLength: 16)
        if let interaction, interaction != "view" && interaction != "click" {
            throw PostbackRejection.malformed("'ad-interaction-type' must be view or click")
        }
        let country = try fields.optionalString("country-code", maxLength: 2)
        if let country, country.utf8.count != 2 || !country.utf8.allSatisfy({ (65...90).contains($0) }) {
            throw PostbackRejection.malformed("'country-code' must be two upper-case letters (ISO 3166)")
        }
        let postback = ApplePostback(
            framework: .adattributionkit, version: nil, keyID: keyID, isDevelopment: keyID.hasPrefix(developmentKeyPrefix),
            dedupeKey: try payload.string("postback-identifier", maxLength: 200),
            adNetworkID: try payload.string("ad-network-identifier", maxLength: 255),
            sourceIdentifier: try payload.sourceIdentifier("source-identifier"), campaignID: nil,
            appID: try payload.integer("advertised-item-identifier", in: 1...Int64.max), sourceAppID: nil, sourceDomain: nil,
            fidelityType: nil, interactionType: interaction, impressionType: try payload.optionalString("impression-type", maxLength: 64),
            conversionType: conversionType, redownload: conversionType == "redownload", didWin: try payload.bool("did-win"),
            sequenceIndex: Int(try payload.integer("postback-sequence-index", in: 0...2)),
            fineValue: try fields.optionalInteger("conversion-value", in: 0...63).map(Int.init),
            coarseValue: try fields.coarse("coarse-conversion-value"), country: country,
            marketplace: try payload.optionalString("marketplace-identifier", maxLength: 255),
            publisherItemID: try payload.optionalInteger("publisher-item-identifier", in: 0...Int64.max))
        // RFC 7515 §5.2: the signing input is the first two parts exactly as sent.
        let signingInput = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
        guard signature.count == 64 else { throw PostbackRejection.badSignature }
        return (postback, PostbackSignature(keyID: keyID, message: signingInput, signature: signature, encoding: .raw))
    }

    static func base64URL(_ text: Substring) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.allSatisfy({ byte in byte.isBase64URL }) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard).map { Array($0) }
    }
}

extension UInt8 {
    fileprivate var isBase64URL: Bool {
        (65...90).contains(self) || (97...122).contains(self) || (48...57).contains(self) || self == UInt8(ascii: "-")
            || self == UInt8(ascii: "_")
    }
}
