import Foundation
import HTTP
import TestSupport

/// Google's OAuth token endpoint, the Google Ads API's `googleAds:searchStream` and Meta's
/// Marketing API insights on 127.0.0.1. Each request is checked as the network checks it (the
/// refresh grant and its client, the bearer token and developer token, the GAQL query; Meta's
/// access token and insights parameters) and answered in the network's shape: Google's batches
/// of results, Meta's pages with `paging.next`, their errors (an expired token, a rate limit).
final class FakeCostNetworks: @unchecked Sendable {
    static let clientID = "1234-abc.apps.googleusercontent.com"
    static let clientSecret = "google-client-secret"
    static let refreshToken = "1//google-refresh-token"
    static let developerToken = "google-developer-token"
    static let metaToken = "EAAmeta-reporting-token"
    static let tiktokToken = "tiktok-reporting-token"

    private let lock = NSLock()
    private var issued = 0
    private var validToken = ""
    private var metaRateLimitsLeft = 0
    private(set) var googleQueries: [String] = []
    private(set) var tokenGrants = 0
    private var server: HTTPServer!
    var url: String { "http://127.0.0.1:\(server.port)/" }

    init() throws {
        var router = RouterBuilder()
        let box = Box()
        router.on(.post, "/token", RouteHandler.sync { box.fake?.token($0) ?? HTTPResponse(status: .serviceUnavailable) })
        router.on(.post, "/v18/customers/:customer/:method", RouteHandler.sync { box.fake?.search($0) ?? HTTPResponse(status: .serviceUnavailable) })
        router.on(.get, "/v21.0/:account/insights", RouteHandler.sync { box.fake?.insights($0) ?? HTTPResponse(status: .serviceUnavailable) })
        router.on(
            .get, "/open_api/v1.3/report/integrated/get/", RouteHandler.sync { box.fake?.tiktok($0) ?? HTTPResponse(status: .serviceUnavailable) })
        box.fake = self
        server = try HTTPServer.loopback(router)
    }

    deinit { server.shutdownAndWait() }

    private final class Box: @unchecked Sendable { weak var fake: FakeCostNetworks? }

    /// Google forgets the access token it issued: the next API call is 401.
    func expireGoogleToken() {
        lock.lock()
        validToken = ""
        lock.unlock()
    }

    /// Meta answers the next `count` insights calls with its throttling error.
    func rateLimitMeta(_ count: Int) {
        lock.lock()
        metaRateLimitsLeft = count
        lock.unlock()
    }

    private func token(_ request: HTTPRequest) -> HTTPResponse {
        let form = Self.form(String(decoding: request.body, as: UTF8.self))
        guard form["grant_type"] == "refresh_token", form["client_id"] == Self.clientID, form["client_secret"] == Self.clientSecret,
            form["refresh_token"] == Self.refreshToken
        else { return .json(bytes: Array(#"{"error":"invalid_grant","error_description":"Bad Request"}"#.utf8), status: .badRequest) }
        lock.lock()
        issued += 1
        tokenGrants += 1
        validToken = "ya29.google-ads-\(issued)"
        let token = validToken
        lock.unlock()
        return .json(
            bytes: Array(
                #"{"access_token":"\#(token)","expires_in":3599,"scope":"https://www.googleapis.com/auth/adwords","token_type":"Bearer"}"#.utf8))
    }

    private func search(_ request: HTTPRequest) -> HTTPResponse {
        lock.lock()
        let valid = validToken
        lock.unlock()
        guard request.path.hasSuffix("/customers/1234567890/googleAds:searchStream") else { return HTTPResponse(status: .notFound) }
        guard !valid.isEmpty, request.headers["Authorization"] == "Bearer \(valid)" else {
            return .json(
                bytes: Array(
                    #"[{"error":{"code":401,"message":"Request is missing required authentication credential.","status":"UNAUTHENTICATED"}}]"#.utf8),
                status: .unauthorized)
        }
        guard request.headers["developer-token"] == Self.developerToken, request.headers["login-customer-id"] == "9876543210" else {
            return .json(
                bytes: Array(#"[{"error":{"code":403,"message":"The developer token is not valid.","status":"PERMISSION_DENIED"}}]"#.utf8),
                status: .forbidden)
        }
        guard let body = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any], let query = body["query"] as? String,
            query.contains("metrics.cost_micros"), query.contains("segments.date BETWEEN '"), query.contains("FROM campaign")
        else {
            return .json(bytes: Array(#"[{"error":{"code":400,"message":"Invalid GAQL","status":"INVALID_ARGUMENT"}}]"#.utf8), status: .badRequest)
        }
        lock.lock()
        googleQueries.append(query)
        lock.unlock()
        func result(_ day: String, _ id: String, _ name: String, _ micros: String) -> String {
            #"{"customer":{"resourceName":"customers/1234567890","currencyCode":"EUR"},"campaign":{"resourceName":"customers/1234567890/campaigns/\#(id)","name":"\#(name)","id":"\#(id)"},"metrics":{"clicks":"90","costMicros":"\#(micros)","impressions":"4000"},"segments":{"date":"\#(day)"}}"#
        }
        let answer = """
            [{"results":[\(result("2031-03-01", "111", "Winter sale", "80000000")),\(result("2031-03-02", "111", "Winter sale", "85500000"))],\
            "fieldMask":"segments.date,campaign.id,campaign.name,customer.currencyCode,metrics.costMicros,metrics.impressions,metrics.clicks","requestId":"r1"},\
            {"results":[\(result("2031-03-02", "222", "Brand", "1230000"))],"requestId":"r1"}]
            """
        return .json(bytes: Array(answer.utf8))
    }

    private func insights(_ request: HTTPRequest) -> HTTPResponse {
        var query: [String: String] = [:]
        for item in request.queryItems { query[item.name] = item.value }
        guard query["access_token"] == Self.metaToken else {
            return .json(
                bytes: Array(
                    #"{"error":{"message":"Error validating access token: Session has expired","type":"OAuthException","code":190,"error_subcode":463}}"#
                        .utf8),
                status: .badRequest)
        }
        lock.lock()
        let limited = metaRateLimitsLeft > 0
        if limited { metaRateLimitsLeft -= 1 }
        lock.unlock()
        if limited {
            return .json(
                bytes: Array(#"{"error":{"message":"(#17) User request limit reached","type":"OAuthException","code":17}}"#.utf8), status: .badRequest
            )
        }
        guard request.path.hasSuffix("/act_777/insights") else { return HTTPResponse(status: .notFound) }
        if query["after"] == "CURSOR2" {
            return .json(
                bytes: Array(
                    #"{"data":[{"campaign_id":"m-7","campaign_name":"Retarget","spend":"12.35","impressions":"500","clicks":"12","account_currency":"EUR","date_start":"2031-03-02","date_stop":"2031-03-02"}],"paging":{"cursors":{"before":"CURSOR2","after":"CURSOR3"}}}"#
                        .utf8))
        }
        guard query["level"] == "campaign", query["time_increment"] == "1", query["fields"]?.contains("spend") == true,
            let range = query["time_range"], range.hasPrefix(#"{"since":""#)
        else {
            return .json(bytes: Array(#"{"error":{"message":"Invalid parameter","type":"OAuthException","code":100}}"#.utf8), status: .badRequest)
        }
        let next = "\(url)v21.0/act_777/insights?access_token=\(Self.metaToken)&after=CURSOR2"
        return .json(
            bytes: Array(
                #"{"data":[{"campaign_id":"m-7","campaign_name":"Retarget","spend":"10","impressions":"400","clicks":"10","account_currency":"EUR","date_start":"2031-03-01","date_stop":"2031-03-01"}],"paging":{"cursors":{"before":"CURSOR1","after":"CURSOR2"},"next":"\#(next)"}}"#
                    .utf8))
    }

    private func tiktok(_ request: HTTPRequest) -> HTTPResponse {
        var query: [String: String] = [:]
        for item in request.queryItems { query[item.name] = item.value }
        guard request.headers["Access-Token"] == Self.tiktokToken else {
            return .json(bytes: Array(#"{"code":40105,"message":"Access token is incorrect or has been revoked.","data":{}}"#.utf8))
        }
        guard query["advertiser_id"] == "555", query["report_type"] == "BASIC", query["data_level"] == "AUCTION_CAMPAIGN",
            query["dimensions"] == #"["campaign_id","stat_time_day"]"#, query["metrics"]?.contains("spend") == true,
            query["start_date"] != nil, query["end_date"] != nil
        else { return .json(bytes: Array(#"{"code":40002,"message":"Invalid parameter","data":{}}"#.utf8)) }
        let page = Int(query["page"] ?? "1") ?? 1
        let (day, spend) = page == 1 ? ("2031-03-01", "20.5") : ("2031-03-02", "7")
        return .json(
            bytes: Array(
                #"{"code":0,"message":"OK","request_id":"r","data":{"list":[{"dimensions":{"campaign_id":"17000","stat_time_day":"\#(day) 00:00:00"},"metrics":{"spend":"\#(spend)","impressions":"300","clicks":"9","campaign_name":"Spring"}}],"page_info":{"page":\#(page),"page_size":1000,"total_number":2,"total_page":2}}}"#
                    .utf8))
    }

    private static func form(_ text: String) -> [String: String] {
        Dictionary(
            text.split(separator: "&").map { pair -> (String, String) in
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
                return (parts[0], parts.count > 1 ? parts[1] : "")
            }, uniquingKeysWith: { first, _ in first })
    }
}
