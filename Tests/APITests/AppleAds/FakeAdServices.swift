import Cryptography
import Dispatch
import Foundation
import HTTP
import Store
import StoreContracts
import TestSupport

/// Apple's AdServices attribution API on 127.0.0.1: `POST /api/v1/` with the token as text, the
/// answers scripted per token (then 200 `{"attribution": false}`), every request recorded.
final class FakeAdServices: @unchecked Sendable {
    struct Answer: Sendable {
        var status: HTTPStatus
        var body: String
        /// Seconds before answering (past the client's timeout: a stall).
        var wait: Double = 0
    }

    private let lock = NSLock()
    private var scripts: [String: [Answer]] = [:]
    private var received: [(token: String, contentType: String?)] = []
    private var server: HTTPServer!
    var url: String { "http://127.0.0.1:\(server.port)/api/v1/" }

    /// Apple's attributed answer for a tap `minutesBefore` the call (minute-precision date).
    static func attributed(
        campaign: Int = 542370539, adGroup: Int = 542317095, keyword: Int? = 87675432, ad: Int = 542317136,
        clickDate: String
    ) -> Answer {
        var body =
            #"{"attribution":true,"orgId":40669820,"campaignId":\#(campaign),"conversionType":"Download","clickDate":"\#(clickDate)","claimType":"Click","adGroupId":\#(adGroup),"countryOrRegion":"US","adId":\#(ad),"supplyPlacement":"APPSTORE_SEARCH_RESULTS""#
        if let keyword { body += #","keywordId":\#(keyword)"# }
        return Answer(status: .ok, body: body + "}")
    }

    static let notAttributed = Answer(status: .ok, body: #"{"attribution":false}"#)

    /// Apple's minute-precision date for `date`.
    static func minuteDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm'Z'"
        return formatter.string(from: date)
    }

    init() throws {
        var router = RouterBuilder()
        let box = Box()
        router.on(
            .post, "/api/v1/",
            RouteHandler.deferred { request, done in
                guard let fake = box.fake else { return done(.success(HTTPResponse(status: .serviceUnavailable))) }
                let answer = fake.answer(request)
                let response = HTTPResponse.json(bytes: Array(answer.body.utf8), status: answer.status)
                if answer.wait > 0 {
                    DispatchQueue.global().asyncAfter(deadline: .now() + answer.wait) { done(.success(response)) }
                } else {
                    done(.success(response))
                }
            })
        // The Campaign Management API: its OAuth token endpoint and the three name lookups.
        router.on(
            .post, "/auth/oauth2/token", RouteHandler.sync { request in try box.fake?.token(request) ?? HTTPResponse(status: .serviceUnavailable) })
        for path in [
            "/api/v5/campaigns/:campaign", "/api/v5/campaigns/:campaign/adgroups/:adGroup",
            "/api/v5/campaigns/:campaign/adgroups/:adGroup/targetingkeywords/:keyword",
        ] {
            router.on(.get, path, RouteHandler.sync { request in try box.fake?.lookup(request) ?? HTTPResponse(status: .serviceUnavailable) })
        }
        router.on(
            .post, "/api/v5/reports/campaigns",
            RouteHandler.sync { request in try box.fake?.report(request) ?? HTTPResponse(status: .serviceUnavailable) })
        var limits = HTTPServerLimits()
        limits.drainTimeout = .milliseconds(50)
        server = HTTPServer(host: "127.0.0.1", port: 0, limits: limits, responder: router.build())
        box.fake = self
        try server.start()
    }

    deinit { server.shutdownAndWait() }

    private final class Box: @unchecked Sendable { weak var fake: FakeAdServices? }

    func script(_ token: String, _ answers: [Answer]) { lock.withLock { scripts[token] = answers } }

    private func answer(_ request: HTTPRequest) -> Answer {
        let token = String(decoding: request.body, as: UTF8.self)
        return lock.withLock {
            received.append((token, request.headers["Content-Type"]))
            guard var answers = scripts[token], !answers.isEmpty else { return Self.notAttributed }
            let next = answers.removeFirst()
            scripts[token] = answers
            return next
        }
    }

    // MARK: Campaign Management API

    /// The private key whose public half checks client secrets, and the names to answer.
    var signingKey = ""
    var campaignNames: [String: String] = [:]
    var adGroupNames: [String: String] = [:]
    var keywordTexts: [String: String] = [:]
    private(set) var tokenRequests = 0
    private(set) var lookups: [String] = []
    static let accessToken = "at-0123456789"
    var oauthURL: String { "http://127.0.0.1:\(server.port)/auth/oauth2/token" }
    var apiURL: String { "http://127.0.0.1:\(server.port)/api/v5/" }

    /// Checks the client-credentials request as Apple does: the form's fields, and a client secret
    /// that is an ES256 JWT of the client, signed with the key.
    private func token(_ request: HTTPRequest) throws -> HTTPResponse {
        let form = Dictionary(HTTPRequest.queryItems(of: Substring(String(decoding: request.body, as: UTF8.self))).map { ($0.name, $0.value) }) {
            a, _ in a
        }
        let key = lock.withLock {
            tokenRequests += 1
            return signingKey
        }
        guard request.headers["Content-Type"] == "application/x-www-form-urlencoded", form["grant_type"] == "client_credentials",
            form["scope"] == "searchadsorg", let clientID = form["client_id"], let secret = form["client_secret"]
        else {
            return HTTPResponse.json(bytes: Array(#"{"error":"invalid_request"}"#.utf8), status: .badRequest)
        }
        let parts = secret.split(separator: ".").map(String.init)
        func decode(_ part: String) -> [UInt8]? {
            var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while base64.count % 4 != 0 { base64 += "=" }
            return Data(base64Encoded: base64).map { Array($0) }
        }
        guard parts.count == 3, let header = decode(parts[0]).flatMap({ try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }),
            let claims = decode(parts[1]).flatMap({ try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }),
            let signature = decode(parts[2]), header["alg"] as? String == "ES256", header["kid"] as? String == "KEY123",
            claims["sub"] as? String == clientID, claims["iss"] as? String == "TEAM123", claims["aud"] as? String == "https://appleid.apple.com",
            let issued = claims["iat"] as? Double, let expires = claims["exp"] as? Double, expires > issued,
            ES256.verify(signature, message: Array("\(parts[0]).\(parts[1])".utf8), privateKeyPEM: key)
        else {
            return HTTPResponse.json(bytes: Array(#"{"error":"invalid_client"}"#.utf8), status: .unauthorized)
        }
        return HTTPResponse.json(bytes: Array(#"{"access_token":"\#(Self.accessToken)","token_type":"Bearer","expires_in":3600}"#.utf8))
    }

    private func lookup(_ request: HTTPRequest) throws -> HTTPResponse {
        lock.withLock { lookups.append(String(request.path)) }
        guard request.headers["Authorization"] == "Bearer \(Self.accessToken)", request.headers["X-AP-Context"] == "orgId=40669820" else {
            return HTTPResponse(status: .unauthorized)
        }
        let parameters = request.pathParameters
        let (field, value): (String, String?) = lock.withLock {
            if let keyword = parameters["keyword"] { return ("text", keywordTexts[keyword]) }
            if let adGroup = parameters["adGroup"] { return ("name", adGroupNames[adGroup]) }
            return ("name", campaignNames[parameters["campaign"] ?? ""])
        }
        guard let value else { return HTTPResponse(status: .notFound) }
        // Apple's documents carry much more than the name: a body well past a kilobyte.
        let padding = String(repeating: "x", count: 3000)
        return HTTPResponse.json(
            bytes: Array(#"{"data":{"id":1,"\#(field)":"\#(value)","budgetOrders":"\#(padding)"},"pagination":null,"error":null}"#.utf8))
    }

    /// The campaign report: one campaign a page (two pages), each with its days' local spend.
    private func report(_ request: HTTPRequest) throws -> HTTPResponse {
        guard request.headers["Authorization"] == "Bearer \(Self.accessToken)", request.headers["X-AP-Context"] == "orgId=40669820" else {
            return HTTPResponse(status: .unauthorized)
        }
        guard let body = try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any], body["granularity"] as? String == "DAILY",
            body["startTime"] is String, body["endTime"] is String, let selector = body["selector"] as? [String: Any],
            let pagination = selector["pagination"] as? [String: Any], let offset = pagination["offset"] as? Int
        else {
            return .json(
                bytes: Array(#"{"data":null,"error":{"errors":[{"messageCode":"INVALID_INPUT","message":"bad report request"}]}}"#.utf8),
                status: .badRequest)
        }
        let (id, name, days) =
            offset == 0
            ? (
                "542370539", "Spring Search",
                #"[{"date":"2031-03-01","impressions":1000,"taps":40,"localSpend":{"amount":"30.50","currency":"USD"}},{"date":"2031-03-02","impressions":900,"taps":35,"localSpend":{"amount":"28","currency":"USD"}}]"#
            )
            : ("542370540", "Brand", #"[{"date":"2031-03-02","impressions":100,"taps":9,"localSpend":{"amount":"4.25","currency":"USD"}}]"#)
        return .json(
            bytes: Array(
                #"{"data":{"reportingDataResponse":{"row":[{"other":false,"metadata":{"campaignId":\#(id),"campaignName":"\#(name)","orgId":40669820,"currency":{"amount":"0","currency":"USD"}},"granularity":\#(days)}]}},"pagination":{"totalResults":2,"startIndex":\#(offset),"itemsPerPage":1},"error":null}"#
                    .utf8))
    }

    /// The tokens received so far, in order.
    var tokens: [String] { lock.withLock { received.map(\.token) } }
    var contentTypes: [String?] { lock.withLock { received.map(\.contentType) } }

    /// Waits (bounded) until `count` exchanges of `token` arrived.
    @discardableResult
    func wait(for count: Int, of token: String, seconds: Double = 10) -> Int {
        _ = eventually(timeout: seconds) { tokens.filter { $0 == token }.count >= count }
        return tokens.filter { $0 == token }.count
    }
}
