import Cryptography
import Foundation
import HTTP
import TestSupport

/// Google's OAuth token endpoint and the Android Publisher API's purchase reads on 127.0.0.1.
/// The token request is checked as Google checks it (the JWT bearer grant, an RS256 signature of
/// the service account's key, its issuer, scope, audience and lifetime); the API wants that token
/// and answers purchases the test put in, Google's 404 otherwise.
final class FakeGooglePlay: @unchecked Sendable {
    static let email = "play-reader@shop-project.iam.gserviceaccount.com"
    static let accessToken = "ya29.fake-play-token"
    let privateKeyPEM: String
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
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-rsa-\(UUID().uuidString).pem").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", file]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        privateKeyPEM = try String(contentsOfFile: file, encoding: .utf8)
        try? FileManager.default.removeItem(atPath: file)
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

    private static func bytes(_ part: String) -> [UInt8]? {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return Data(base64Encoded: text).map(Array.init)
    }

    private static func json(_ part: String) -> [String: Any]? {
        bytes(part).flatMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
    }
}
