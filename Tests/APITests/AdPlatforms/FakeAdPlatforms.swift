import Dispatch
import Foundation
import HTTP
import TestSupport

/// Google Ads' app conversion API, Meta's Conversions API, TikTok's Events API and Snap's
/// Conversions API on 127.0.0.1, one server for the four. Each request is checked against the
/// platform's published format (path, query, headers, JSON fields and types) and answered as the
/// platform answers, its errors included; every request is recorded. Answers can be scripted per
/// platform (a 503, then the normal answer).
final class FakeAdPlatforms: @unchecked Sendable {
    struct Received: @unchecked Sendable {
        var platform: String
        var path: String
        var query: [String: String]
        var headers: [String: String]
        var json: [String: Any]?
        /// The one event of a JSON platform's `data` array.
        var event: [String: Any]? { (json?["data"] as? [[String: Any]])?.first }
    }

    struct Answer: Sendable {
        var status: HTTPStatus
        var body: String
    }

    static let developerToken = "google-dev-token-0123"
    static let metaToken = "EAAmetaaccesstoken0123"
    static let tiktokToken = "tiktok-access-token-0123"
    static let snapToken = "snap-access-token-0123"

    private let lock = NSLock()
    private var received: [Received] = []
    private var scripted: [String: [Answer]] = [:]
    /// Google's answer to first_open; `{"attributed": false}` unless set.
    private var googleAnswer = #"{"ad_events":[],"errors":[],"attributed":false}"#
    private var server: HTTPServer!
    var url: String { "http://127.0.0.1:\(server.port)/" }

    init() throws {
        var router = RouterBuilder()
        let box = Box()
        func route(_ path: String, _ platform: String) {
            router.on(
                .post, path,
                RouteHandler.sync { request in
                    guard let fake = box.fake else { return HTTPResponse(status: .serviceUnavailable) }
                    return fake.answer(platform, request)
                })
        }
        route("/pagead/conversion/app/1.0", "google")
        route("/pagead/conversion/app/1.0/cross_network", "google")
        route("/v21.0/:dataset/events", "meta")
        route("/open_api/v1.3/event/track/", "tiktok")
        route("/v3/:app/events", "snap")
        route("/v3/:app/events/validate", "snap")
        var limits = HTTPServerLimits()
        limits.drainTimeout = .milliseconds(50)
        server = HTTPServer(host: "127.0.0.1", port: 0, limits: limits, responder: router.build())
        box.fake = self
        try server.start()
    }

    deinit { server.shutdownAndWait() }

    private final class Box: @unchecked Sendable { weak var fake: FakeAdPlatforms? }

    /// The next answers to `platform` (then its normal ones).
    func script(_ platform: String, _ answers: [Answer]) {
        lock.lock()
        scripted[platform, default: []] += answers
        lock.unlock()
    }

    /// Google attributes first_open to an ad click `minutesAgo` ago.
    func googleAttributes(minutesAgo: Double = 30, adEventID: String = "Q2xpY2tFdmVudA") {
        let timestamp = Date().timeIntervalSince1970 - minutesAgo * 60
        lock.lock()
        googleAnswer =
            #"{"ad_events":[{"ad_event_id":"\#(adEventID)","conversion_metric":"conversion","interaction_type":"engagement","campaign_type":"UAC","campaign_id":123456789,"campaign_name":"Spring UAC","ad_type":"ClickToDownload","external_customer_id":987654321,"location":21156,"network_type":"Search","network_subtype":"GoogleSearch","video_id":null,"keyword":"","match_type":"","placement":"","ad_group_id":555,"ad_group_name":"Ad group 1","creative_id":777,"timestamp":\#(String(format: "%.6f", timestamp))}],"errors":[],"attributed":true}"#
        lock.unlock()
    }

    func requests(_ platform: String) -> [Received] {
        lock.lock()
        defer { lock.unlock() }
        return received.filter { $0.platform == platform }
    }

    private func answer(_ platform: String, _ request: HTTPRequest) -> HTTPResponse {
        var query: [String: String] = [:]
        for item in request.queryItems { query[item.name] = item.value }
        var headers: [String: String] = [:]
        for (name, value) in request.headers { headers[name.lowercased()] = value }
        let json = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any]
        let record = Received(platform: platform, path: String(request.path), query: query, headers: headers, json: json)
        lock.lock()
        received.append(record)
        let next = scripted[platform]?.isEmpty == false ? scripted[platform]!.removeFirst() : nil
        let google = googleAnswer
        lock.unlock()
        if let next { return .json(bytes: Array(next.body.utf8), status: next.status) }
        let problem: String?
        switch platform {
        case "google":
            problem = Self.googleProblem(record)
            if let problem { return .json(bytes: Array(#"{"errors":["\#(problem)"]}"#.utf8), status: .badRequest) }
            return .json(bytes: Array((record.path.hasSuffix("cross_network") ? #"{"errors":[]}"# : google).utf8))
        case "meta":
            if query["access_token"] != Self.metaToken {
                return .json(
                    bytes: Array(
                        #"{"error":{"message":"Invalid OAuth access token - Cannot parse access token","type":"OAuthException","code":190,"fbtrace_id":"AbC"}}"#
                            .utf8), status: .badRequest)
            }
            problem = Self.appEventProblem(record, platform: "meta")
            if let problem {
                return .json(
                    bytes: Array(
                        (#"{"error":{"message":"Invalid parameter","type":"OAuthException","code":100,"#
                            + #""error_user_msg":"\#(problem)","fbtrace_id":"AbC"}}"#).utf8),
                    status: .badRequest)
            }
            return .json(bytes: Array(#"{"events_received":1,"messages":[],"fbtrace_id":"AbC"}"#.utf8))
        case "tiktok":
            // TikTok answers 200 with its own code.
            if headers["access-token"] != Self.tiktokToken {
                let invalid = #"{"code":40001,"message":"Authentication error: access token is invalid","request_id":"r1","data":{}}"#
                return .json(bytes: Array(invalid.utf8))
            }
            if let problem = Self.tiktokProblem(record) {
                return .json(bytes: Array(#"{"code":40002,"message":"\#(problem)","request_id":"r1","data":{}}"#.utf8))
            }
            return .json(bytes: Array(#"{"code":0,"message":"OK","request_id":"r1","data":{}}"#.utf8))
        default:
            if query["access_token"] != Self.snapToken {
                return .json(bytes: Array(#"{"status":"INVALID","reason":"Unauthorized: invalid access token"}"#.utf8), status: .unauthorized)
            }
            if let problem = Self.appEventProblem(record, platform: "snap") {
                return .json(bytes: Array(#"{"status":"INVALID","reason":"\#(problem)"}"#.utf8), status: .badRequest)
            }
            return .json(bytes: Array(#"{"status":"VALID","reason":"","events_received":1}"#.utf8))
        }
    }

    /// Google's required parameters and headers (request-response specs).
    static func googleProblem(_ request: Received) -> String? {
        for name in ["dev_token", "link_id", "app_event_type", "rdid", "id_type", "lat", "app_version", "os_version", "sdk_version", "timestamp"]
        where request.query[name]?.isEmpty != false {
            return "missing \(name)"
        }
        if request.query["dev_token"] != developerToken { return "invalid dev_token" }
        if !["advertisingid", "idfa", "idfv"].contains(request.query["id_type"] ?? "") { return "invalid id_type" }
        if !["0", "1"].contains(request.query["lat"] ?? "") { return "invalid lat" }
        if Double(request.query["timestamp"] ?? "") == nil { return "invalid timestamp" }
        if request.query["app_event_type"] == "custom", request.query["app_event_name"] == nil { return "missing app_event_name" }
        if request.headers["user-agent"] == nil { return "missing User-Agent" }
        if request.path.hasSuffix("cross_network"), request.query["ad_event_id"] == nil || request.query["attributed"] == nil {
            return "missing ad_event_id or attributed"
        }
        for name in ["eea", "ad_user_data", "ad_personalization"] where request.query[name] != nil && !["0", "1"].contains(request.query[name]!) {
            return "invalid \(name)"
        }
        return nil
    }

    /// Meta's and Snap's app event: `data` of one event with its required fields and types.
    static func appEventProblem(_ request: Received, platform: String) -> String? {
        guard let data = request.json?["data"] as? [[String: Any]], data.count == 1, let event = data.first else {
            return "data must be an array of events"
        }
        guard event["event_name"] is String else { return "event_name is required" }
        guard event["event_time"] is NSNumber else { return "event_time must be a number" }
        guard event["action_source"] as? String == "app" else { return "action_source must be app" }
        guard event["event_id"] is String else { return "event_id is required for deduplication" }
        guard event["user_data"] is [String: Any] else { return "user_data is required" }
        guard let app = event["app_data"] as? [String: Any] else { return "app_data is required for app events" }
        guard app["advertiser_tracking_enabled"] is NSNumber else { return "advertiser_tracking_enabled is required" }
        if platform == "meta", !(app["application_tracking_enabled"] is NSNumber) { return "application_tracking_enabled is required" }
        guard let extinfo = app["extinfo"] as? [Any], extinfo.count == 16, extinfo.allSatisfy({ $0 is String }) else {
            return "extinfo must be 16 strings"
        }
        guard ["a2", "i2"].contains(extinfo[0] as? String ?? "") else { return "extinfo version must be a2 or i2" }
        if let custom = event["custom_data"] as? [String: Any] {
            guard custom["value"] is NSNumber, custom["currency"] is String else { return "custom_data needs value and currency" }
        }
        if platform == "snap", let time = event["event_time"] as? Double, Date().timeIntervalSince1970 - time > 37 * 86_400 {
            return "event older than 37 days"
        }
        return nil
    }

    static func tiktokProblem(_ request: Received) -> String? {
        guard let body = request.json else { return "body must be JSON" }
        guard body["event_source"] as? String == "app" else { return "event_source must be app" }
        guard body["event_source_id"] is String else { return "event_source_id is required" }
        guard let data = body["data"] as? [[String: Any]], let event = data.first else { return "data is required" }
        guard event["event"] is String, event["event_time"] is NSNumber, event["event_id"] is String else {
            return "event, event_time and event_id are required"
        }
        guard event["user"] is [String: Any] else { return "user is required" }
        return nil
    }
}
