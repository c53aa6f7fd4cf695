import Attribution
import Cryptography
import Foundation
import JSON
import Synchronization

/// Looks a Play purchase up with the Android Publisher API, as a service account: its OAuth token
/// from a JWT it signs (RS256, `urn:ietf:params:oauth:grant-type:jwt-bearer` at its `token_uri`),
/// kept until shortly before it expires; then `purchases.subscriptions` or `purchases.products`
/// (and, for a product's price, `inappproducts`). Asynchronous: nothing waits on Google.
final class GooglePlayLookup: Sendable {
    struct Failure: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    static let scope = "https://www.googleapis.com/auth/androidpublisher"
    static let answerBytes = 262_144
    private let outbound: LateTransport
    private let tokens = AccessTokenCache()
    private let baseURL: String
    private let clock: any Clock

    init(baseURL: String, clock: any Clock, outbound: LateTransport) {
        self.outbound = outbound
        self.baseURL = baseURL
        self.clock = clock
    }

    /// The purchase resource of `notification`'s token, and a product's price where the purchase
    /// has none.
    func purchase(
        of notification: GooglePlayNotification.Decoded, serviceAccount: String,
        completion: @escaping @Sendable (Result<(purchase: JSONValue, price: (micros: Int64, currency: String)?), Failure>) -> Void
    ) {
        let package = Self.segment(notification.packageName)
        let token = Self.segment(notification.purchaseToken)
        let (path, sku): (String, String?)
        switch notification.kind {
        case .subscription(_, let id): (path, sku) = ("applications/\(package)/purchases/subscriptions/\(Self.segment(id))/tokens/\(token)", nil)
        case .oneTimeProduct(_, let product):
            (path, sku) = ("applications/\(package)/purchases/products/\(Self.segment(product))/tokens/\(token)", product)
        case .voided, .test: return completion(.failure(Failure(description: "nothing to look up")))
        }
        withToken(serviceAccount) { [self] result in
            switch result {
            case .failure(let failure): completion(.failure(failure))
            case .success(let bearer):
                get(path, bearer: bearer) { [self] answer in
                    switch answer {
                    case .failure(let failure): completion(.failure(failure))
                    case .success(let purchase):
                        guard let sku else { return completion(.success((purchase, nil))) }
                        get("applications/\(package)/inappproducts/\(Self.segment(sku))", bearer: bearer) { product in
                            completion(product.map { (purchase, Self.price(of: $0, region: purchase)) })
                        }
                    }
                }
            }
        }
    }

    /// A product's price in the buyer's region (`prices[regionCode]`), else its default price.
    static func price(of product: JSONValue, region purchase: JSONValue) -> (micros: Int64, currency: String)? {
        guard case .object(let fields) = product else { return nil }
        var chosen = fields["defaultPrice"]
        if case .object(let purchaseFields) = purchase, let region = purchaseFields["regionCode"]?.stringValue,
            case .object(let prices)? = fields["prices"], let regional = prices[region]
        {
            chosen = regional
        }
        guard case .object(let price)? = chosen, let micros = price["priceMicros"]?.stringValue.flatMap({ Int64($0) }),
            let currency = price["currency"]?.stringValue
        else { return nil }
        return (micros, currency)
    }

    private func get(_ path: String, bearer: String, completion: @escaping @Sendable (Result<JSONValue, Failure>) -> Void) {
        guard let transport = outbound.current else {
            return completion(.failure(Failure(description: "outbound requests are not running on this node")))
        }
        let request = OutboundRequest(
            method: "GET", url: baseURL + "androidpublisher/v3/" + path, headers: [("authorization", "Bearer \(bearer)")], body: [],
            keptResponseBytes: Self.answerBytes)
        transport.send(request) { result in
            switch result {
            case .failure(let error): completion(.failure(Failure(description: "the Android Publisher API could not be reached: \(error)")))
            case .success(let response):
                guard response.statusCode == 200, let json = try? JSONDecoder().decode(JSONValue.self, from: Data(response.bodyPrefix.utf8)) else {
                    return completion(
                        .failure(Failure(description: "the Android Publisher API answered \(response.statusCode): \(response.shownBody.prefix(200))"))
                    )
                }
                completion(.success(json))
            }
        }
    }

    /// An access token of the service account (`{"client_email", "private_key", "token_uri"}`).
    private func withToken(_ serviceAccount: String, _ body: @escaping @Sendable (Result<String, Failure>) -> Void) {
        guard case .object(let account)? = try? JSONDecoder().decode(JSONValue.self, from: Data(serviceAccount.utf8)),
            let email = account["client_email"]?.stringValue, let key = account["private_key"]?.stringValue
        else { return body(.failure(Failure(description: "the service account is not a Google service account key (client_email, private_key)"))) }
        let tokenURI = account["token_uri"]?.stringValue ?? "https://oauth2.googleapis.com/token"
        let now = clock.now().milliseconds / 1000
        if let cached = tokens.token(email, now: now) { return body(.success(cached)) }
        let header = Base64URL.encode(Array(#"{"alg":"RS256","typ":"JWT"}"#.utf8))
        let claims = JSONValue.object([
            "iss": .string(email), "scope": .string(Self.scope), "aud": .string(tokenURI), "iat": .number(Double(now)),
            "exp": .number(Double(now + 3600)),
        ])
        let signed = header + "." + Base64URL.encode(claims.serialized())
        guard let signature = RS256.sign(Array(signed.utf8), privateKeyPEM: key) else {
            return body(.failure(Failure(description: "the service account's private_key is not an RSA key of 2048 bits or more")))
        }
        guard let transport = outbound.current else {
            return body(.failure(Failure(description: "outbound requests are not running on this node")))
        }
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + signed + "." + Base64URL.encode(signature)
        let request = OutboundRequest(
            method: "POST", url: tokenURI, headers: [("content-type", "application/x-www-form-urlencoded")], body: Array(form.utf8),
            keptResponseBytes: 65_536)
        transport.send(request) { [self] result in
            guard case .success(let response) = result else {
                return body(.failure(Failure(description: "Google's token endpoint could not be reached")))
            }
            guard response.statusCode == 200,
                case .object(let answer)? = try? JSONDecoder().decode(JSONValue.self, from: Data(response.bodyPrefix.utf8)),
                let token = answer["access_token"]?.stringValue
            else { return body(.failure(Failure(description: "Google refused the service account's token request (\(response.statusCode))"))) }
            let lifetime: Int64 = if case .number(let seconds)? = answer["expires_in"] { Int64(seconds) } else { 3600 }
            self.tokens.keep(token, email, lifetime: lifetime, now: now)
            body(.success(token))
        }
    }

    /// A path segment: percent-encoded but for unreserved characters.
    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"))
            ?? ""
    }
}

extension JSONValue {
    fileprivate var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}
