import Cryptography
import Foundation
import HTTP
import TestSupport

/// Google's OAuth token endpoint, the Android Publisher API's purchase reads and Google's OIDC
/// signing keys on 127.0.0.1. The token request is checked as Google checks it (the JWT bearer
/// grant, an RS256 signature of the service account's key, its issuer, scope, audience and
/// lifetime); the API wants that token and answers purchases the test put in, Google's 404
/// otherwise. The signing keys are a JWK set with Google's cache header; `pushToken` signs what
/// Pub/Sub would send with them.
final class FakeGooglePlay: @unchecked Sendable {
    static let email = "play-reader@shop-project.iam.gserviceaccount.com"
    static let accessToken = "ya29.fake-play-token"
    static let signingKeyID = "fake-google-key-1"
    let privateKeyPEM: String
    /// Google's OIDC signing key (its public half is the JWK set), distinct from the account's.
    let signingKeyPEM: String
    private let signingModulus: [UInt8]
    private(set) var keyRequests = 0
    private let lock = NSLock()
    private var purchases: [String: String] = [:]
    private var products: [String: String] = [:]
    private(set) var tokenRequests = 0
    private var server: HTTPServer!
    var url: String { "http://127.0.0.1:\(server.port)/" }

    /// The service account's key file, as the Play Console hands it out.
    var serviceAccountJSON: String {
        let key = privateKeyPEM.replacingOccurrences(of: "\n", with: "\\n")
        return
            #"{"type":"service_account","project_id":"shop-project","client_email":"\#(Self.email)","private_key":"\#(key)","token_uri":"\#(url)token"}"#
    }

    init() throws {
        (privateKeyPEM, _) = try Self.newRSAKey()
        (signingKeyPEM, signingModulus) = try Self.newRSAKey()
        var router = RouterBuilder()
        let box = Box()
        router.on(.post, "/token", RouteHandler.sync { request in box.fake?.token(request) ?? HTTPResponse(status: .serviceUnavailable) })
        for path in [
            "/androidpublisher/v3/applications/:package/purchases/subscriptions/:product/tokens/:token",
            "/androidpublisher/v3/applications/:package/purchases/products/:product/tokens/:token",
            "/androidpublisher/v3/applications/:package/inappproducts/:product",
        ] {
            router.on(.get, path, RouteHandler.sync { request in box.fake?.read(request) ?? HTTPResponse(status: .serviceUnavailable) })
        }
        router.on(.get, "/oauth2/v3/certs", RouteHandler.sync { _ in box.fake?.keys() ?? HTTPResponse(status: .serviceUnavailable) })
        box.fake = self
        server = try HTTPServer.loopback(router)
    }

    deinit { server.shutdownAndWait() }

    private final class Box: @unchecked Sendable { weak var fake: FakeGooglePlay? }

    /// What the API answers for a purchase path's end (`subscriptions/pro.monthly/tokens/tok-1`).
    func put(_ pathEnd: String, _ json: String) {
        lock.lock()
        purchases[pathEnd] = json
        lock.unlock()
    }

    private func token(_ request: HTTPRequest) -> HTTPResponse {
        lock.lock()
        tokenRequests += 1
        lock.unlock()
        let form = Dictionary(
            String(decoding: request.body, as: UTF8.self).split(separator: "&").map { pair -> (String, String) in
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
                return (parts[0], parts.count > 1 ? parts[1] : "")
            }, uniquingKeysWith: { first, _ in first })
        func refuse(_ why: String) -> HTTPResponse {
            .json(bytes: Array(#"{"error":"invalid_grant","error_description":"\#(why)"}"#.utf8), status: .badRequest)
        }
        guard request.headers["Content-Type"] == "application/x-www-form-urlencoded" else { return refuse("content type") }
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer", let assertion = form["assertion"] else {
            return refuse("grant_type")
        }
        let parts = assertion.split(separator: ".").map(String.init)
        guard parts.count == 3, let header = Self.json(parts[0]), let claims = Self.json(parts[1]), let signature = Self.bytes(parts[2]) else {
            return refuse("not a JWT")
        }
        guard header["alg"] as? String == "RS256",
            RS256.verify(signature, message: Array("\(parts[0]).\(parts[1])".utf8), privateKeyPEM: privateKeyPEM)
        else { return refuse("Invalid JWT Signature.") }
        guard claims["iss"] as? String == Self.email, claims["scope"] as? String == "https://www.googleapis.com/auth/androidpublisher",
            claims["aud"] as? String == url + "token", let iat = claims["iat"] as? Double, let exp = claims["exp"] as? Double, exp - iat <= 3600,
            abs(iat - Date().timeIntervalSince1970) < 300
        else { return refuse("Invalid JWT: claims") }
        return .json(bytes: Array(#"{"access_token":"\#(Self.accessToken)","expires_in":3599,"token_type":"Bearer"}"#.utf8))
    }

    private func read(_ request: HTTPRequest) -> HTTPResponse {
        guard request.headers["Authorization"] == "Bearer \(Self.accessToken)" else {
            return .json(
                bytes: Array(#"{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}"#.utf8),
                status: .unauthorized)
        }
        let path = String(request.path)
        lock.lock()
        let found = purchases.first { path.hasSuffix("/" + $0.key) }?.value
        lock.unlock()
        guard let found else {
            return .json(
                bytes: Array(#"{"error":{"code":404,"message":"The purchase token was not found.","status":"NOT_FOUND"}}"#.utf8), status: .notFound)
        }
        return .json(bytes: Array(found.utf8))
    }

    /// A 2048-bit RSA key made by openssl, as PEM, with its modulus.
    private static func newRSAKey() throws -> (pem: String, modulus: [UInt8]) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-rsa-\(UUID().uuidString).pem").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        _ = try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", file])
        let modulus = try openssl(["rsa", "-in", file, "-noout", "-modulus"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let hex = Array(modulus.dropFirst("Modulus=".count))
        let bytes = stride(from: 0, to: hex.count - 1, by: 2).compactMap { UInt8(String(hex[$0...$0 + 1]), radix: 16) }
        return (try String(contentsOfFile: file, encoding: .utf8), bytes)
    }

    private static func openssl(_ arguments: [String]) throws -> String {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }

    /// Google's JWK set: the signing key and one other, as `googleapis.com/oauth2/v3/certs` answers.
    private func keys() -> HTTPResponse {
        lock.lock()
        keyRequests += 1
        lock.unlock()
        let set = """
            {"keys":[{"kty":"RSA","alg":"RS256","use":"sig","kid":"\(Self.signingKeyID)","n":"\(Self.base64URL(signingModulus))","e":"AQAB"},\
            {"kty":"RSA","alg":"RS256","use":"sig","kid":"other-key","n":"\(Self.base64URL(Array(signingModulus.reversed())))","e":"AQAB"}]}
            """
        var response = HTTPResponse.json(bytes: Array(set.utf8))
        response.headers.set("Cache-Control", "public, max-age=21600, must-revalidate, no-transform")
        return response
    }

    /// The `Authorization` header Pub/Sub sends with a push as `email` to `audience`, signed with
    /// `signingKey` (Google's own unless a test says otherwise) and named `keyID`.
    func pushAuthorization(
        audience: String, email: String = FakeGooglePlay.pushEmail, expiresIn: Double = 3600, keyID: String = FakeGooglePlay.signingKeyID,
        signingKey: String? = nil, issuer: String = "https://accounts.google.com"
    ) -> String {
        let now = Date().timeIntervalSince1970.rounded(.down)
        let header = #"{"alg":"RS256","kid":"\#(keyID)","typ":"JWT"}"#
        let claims = """
            {"aud":"\(audience)","azp":"1234567890","email":"\(email)","email_verified":true,"exp":\(Int(now + expiresIn)),\
            "iat":\(Int(now + expiresIn - 3600)),"iss":"\(issuer)","sub":"1234567890"}
            """
        let input = Self.base64URL(Array(header.utf8)) + "." + Self.base64URL(Array(claims.utf8))
        let signature = RS256.sign(Array(input.utf8), privateKeyPEM: signingKey ?? signingKeyPEM) ?? []
        return "Bearer \(input).\(Self.base64URL(signature))"
    }

    static let pushEmail = "play-push@shop-project.iam.gserviceaccount.com"

    private static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func bytes(_ part: String) -> [UInt8]? {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return Data(base64Encoded: text).map(Array.init)
    }

    private static func json(_ part: String) -> [String: Any]? {
        bytes(part).flatMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
    }
}
