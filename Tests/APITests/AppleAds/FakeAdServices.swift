import Dispatch
import Foundation
import HTTP

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
    static func attributed(campaign: Int = 542370539, adGroup: Int = 542317095, keyword: Int? = 87675432, ad: Int = 542317136,
                           clickDate: String) -> Answer {
        var body = #"{"attribution":true,"orgId":40669820,"campaignId":\#(campaign),"conversionType":"Download","clickDate":"\#(clickDate)","claimType":"Click","adGroupId":\#(adGroup),"countryOrRegion":"US","adId":\#(ad),"supplyPlacement":"APPSTORE_SEARCH_RESULTS""#
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
        router.on(.post, "/api/v1/", RouteHandler.deferred { request, done in
            guard let fake = box.fake else { return done(.success(HTTPResponse(status: .serviceUnavailable))) }
            let answer = fake.answer(request)
            let response = HTTPResponse.json(bytes: Array(answer.body.utf8), status: answer.status)
            if answer.wait > 0 {
                DispatchQueue.global().asyncAfter(deadline: .now() + answer.wait) { done(.success(response)) }
            } else {
                done(.success(response))
            }
        })
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

    /// The tokens received so far, in order.
    var tokens: [String] { lock.withLock { received.map(\.token) } }
    var contentTypes: [String?] { lock.withLock { received.map(\.contentType) } }

    /// Waits (bounded) until `count` exchanges of `token` arrived.
    @discardableResult
    func wait(for count: Int, of token: String, seconds: Double = 10) -> Int {
        let deadline = Date().addingTimeInterval(seconds)
        while tokens.filter({ $0 == token }).count < count, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        return tokens.filter { $0 == token }.count
    }
}
