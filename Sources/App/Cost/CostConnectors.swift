import Attribution
import Foundation
import JSON
import StoreContracts
import Synchronization

/// Why a pull failed, and when to try again.
public struct CostPullFailure: Error, CustomStringConvertible, Sendable {
    public let description: String
    /// Seconds until the next try: an hour, or what a rate limit asked for.
    var retryAfterSeconds: Int64 = 3600
}

/// Spend from the Google Ads API: an access token from the OAuth refresh token (kept until
/// shortly before it expires, fetched again when the API says it no longer holds), then
/// `googleAds:searchStream` with the GAQL query of the days.
final class GoogleAdsConnector: Sendable {
    let settings: AdPlatformSettings
    let tokens = AccessTokenCache()
    let clock: any Clock

    init(settings: AdPlatformSettings, clock: any Clock) {
        self.settings = settings
        self.clock = clock
    }

    func rows(
        _ connection: CostSourceCredentials, since: String, until: String, through transport: any OutboundTransport,
        completion: @escaping @Sendable (Result<[CostRow], CostPullFailure>) -> Void
    ) {
        let customer = connection.settings["customer_id", default: ""].filter(\.isNumber)
        let body = JSONValue.object(["query": .string(GoogleAdsCostReport.query(since: since, until: until))]).serialized()
        @Sendable func search(retrying: Bool) {
            token(connection, transport, fresh: retrying) { result in
                switch result {
                case .failure(let failure): completion(.failure(failure))
                case .success(let token):
                    var headers: [(name: String, value: String)] = [
                        ("authorization", "Bearer \(token)"), ("developer-token", connection.secrets["developer_token", default: ""]),
                        ("content-type", "application/json"),
                    ]
                    if let login = connection.settings["login_customer_id"]?.filter(\.isNumber), !login.isEmpty {
                        headers.append(("login-customer-id", login))
                    }
                    let request = OutboundRequest(
                        method: "POST",
                        url: self.settings.googleAdsAPIURL + "\(AdPlatformSettings.googleAdsAPIVersion)/customers/\(customer)/googleAds:searchStream",
                        headers: headers, body: body, keptResponseBytes: CostPullService.answerBytes)
                    transport.send(request) { answer in
                        switch CostPullService.json(answer, "the Google Ads API") {
                        case .failure(let failure) where failure.unauthenticated && !retrying: search(retrying: true)
                        case .failure(let failure): completion(.failure(failure.failure))
                        case .success(let json):
                            completion(GoogleAdsCostReport.rows(json).mapError { CostPullFailure(description: "the Google Ads API's answer: \($0)") })
                        }
                    }
                }
            }
        }
        search(retrying: false)
    }

    private func token(
        _ connection: CostSourceCredentials, _ transport: any OutboundTransport, fresh: Bool,
        _ completion: @escaping @Sendable (Result<String, CostPullFailure>) -> Void
    ) {
        let key = connection.secrets["client_id", default: ""] + "\n" + connection.secrets["refresh_token", default: ""]
        let now = clock.now().milliseconds / 1000
        if !fresh, let cached = tokens.token(key, now: now) { return completion(.success(cached)) }
        let form = [
            ("grant_type", "refresh_token"), ("client_id", connection.secrets["client_id", default: ""]),
            ("client_secret", connection.secrets["client_secret", default: ""]), ("refresh_token", connection.secrets["refresh_token", default: ""]),
        ].map { "\($0.0)=\(URLQuery.encode($0.1))" }.joined(separator: "&")
        let request = OutboundRequest(
            method: "POST", url: settings.googleOAuthURL, headers: [("content-type", "application/x-www-form-urlencoded")], body: Array(form.utf8),
            keptResponseBytes: 65_536)
        transport.send(request) { [self] answer in
            switch CostPullService.json(answer, "Google's token endpoint") {
            case .failure(let failure): completion(.failure(failure.failure))
            case .success(let json):
                guard case .object(let fields) = json, case .string(let token)? = fields["access_token"] else {
                    return completion(.failure(CostPullFailure(description: "Google's token endpoint answered no access_token")))
                }
                let lifetime: Int64 = if case .number(let seconds)? = fields["expires_in"] { Int64(seconds) } else { 3600 }
                self.tokens.keep(token, key, lifetime: lifetime, now: now)
                completion(.success(token))
            }
        }
    }
}

/// Spend from Meta's Marketing API: the ad account's insights by campaign and day, page after
/// page (each `paging.next`, followed only on Meta's own base URL).
struct MetaConnector: Sendable {
    let settings: AdPlatformSettings
    static let maxPages = 100

    func rows(
        _ connection: CostSourceCredentials, since: String, until: String, through transport: any OutboundTransport,
        completion: @escaping @Sendable (Result<[CostRow], CostPullFailure>) -> Void
    ) {
        let account = connection.settings["ad_account_id", default: ""].filter(\.isNumber)
        let token = connection.secrets["access_token", default: ""]
        var components = URLComponents(string: settings.metaURL + "\(AdPlatformSettings.metaGraphVersion)/act_\(account)/insights")!
        components.queryItems =
            MetaInsightsReport.query(since: since, until: until).map { URLQueryItem(name: $0.name, value: $0.value) }
            + [URLQueryItem(name: "access_token", value: token)]
        // `+` is a space to Meta's query parser: written as %2B like every reserved character.
        let first = components.url!.absoluteString.replacingOccurrences(of: "+", with: "%2B")
        let base = settings.metaURL
        @Sendable func page(_ url: String, _ collected: [CostRow], _ number: Int) {
            transport.send(OutboundRequest(method: "GET", url: url, headers: [], body: [], keptResponseBytes: CostPullService.answerBytes)) {
                answer in
                switch CostPullService.json(answer, "Meta's Marketing API") {
                case .failure(let failure): completion(.failure(failure.failure))
                case .success(let json):
                    switch MetaInsightsReport.page(json) {
                    case .failure(let problem): completion(.failure(CostPullFailure(description: "Meta's insights answer: \(problem)")))
                    case .success(let result):
                        let rows = collected + result.rows
                        guard let next = result.next else { return completion(.success(rows)) }
                        guard next.hasPrefix(base), number < Self.maxPages else {
                            return completion(
                                .failure(CostPullFailure(description: "Meta's next page is not on \(base) or past \(Self.maxPages) pages")))
                        }
                        page(next, rows, number + 1)
                    }
                }
            }
        }
        page(first, [], 1)
    }
}

/// Spend from TikTok's Business API: the advertiser's integrated report, page after page, in
/// the advertiser's currency (a setting: the report does not carry it).
struct TikTokConnector: Sendable {
    let settings: AdPlatformSettings
    static let maxPages = 100

    func rows(
        _ connection: CostSourceCredentials, since: String, until: String, through transport: any OutboundTransport,
        completion: @escaping @Sendable (Result<[CostRow], CostPullFailure>) -> Void
    ) {
        let advertiser = connection.settings["advertiser_id", default: ""].filter(\.isNumber)
        let currency = connection.settings["currency", default: "USD"].uppercased()
        let token = connection.secrets["access_token", default: ""]
        let base = settings.tiktokURL
        @Sendable func page(_ number: Int, _ collected: [CostRow]) {
            var components = URLComponents(string: base + "open_api/v1.3/report/integrated/get/")!
            components.queryItems = TikTokCostReport.query(advertiserID: advertiser, since: since, until: until, page: number)
                .map { URLQueryItem(name: $0.name, value: $0.value) }
            let url = components.url!.absoluteString.replacingOccurrences(of: "+", with: "%2B")
            let request = OutboundRequest(
                method: "GET", url: url, headers: [("access-token", token)], body: [], keptResponseBytes: CostPullService.answerBytes)
            transport.send(request) { answer in
                switch CostPullService.json(answer, "TikTok's Business API") {
                case .failure(let failure): completion(.failure(failure.failure))
                case .success(let json):
                    switch TikTokCostReport.page(json, currency: currency) {
                    case .failure(let problem):
                        // 40100: too many requests; 40105: the access token is no longer valid.
                        let limited = problem.message.hasPrefix("40100")
                        completion(
                            .failure(
                                CostPullFailure(
                                    description: "TikTok's report answered \(problem.message)\(limited ? " (rate limited)" : "")",
                                    retryAfterSeconds: limited ? 600 : 3600)))
                    case .success(let result):
                        let rows = collected + result.rows
                        guard result.more else { return completion(.success(rows)) }
                        guard number < Self.maxPages else {
                            return completion(.failure(CostPullFailure(description: "TikTok's report runs past \(Self.maxPages) pages")))
                        }
                        page(number + 1, rows)
                    }
                }
            }
        }
        page(1, [])
    }
}

/// Spend from the Apple Ads Campaign Management API: the campaign report, daily, with the
/// project's Apple Ads credentials (the ones that fetch campaign names), page after page.
struct AppleAdsConnector: Sendable {
    let settings: AppleAdsSettings
    let tokens: AppleAdsAccessTokens

    func rows(
        _ credentials: AppleAdsCredentials, projectID: String, since: String, until: String, through transport: any OutboundTransport,
        completion: @escaping @Sendable (Result<[CostRow], CostPullFailure>) -> Void
    ) {
        tokens.withToken(projectID: projectID, credentials, transport: transport, userAgent: "attributiond") { [settings] result in
            switch result {
            case .failure(let failure): completion(.failure(failure))
            case .success(let token):
                @Sendable func page(_ offset: Int, _ collected: [CostRow]) {
                    let request = OutboundRequest(
                        method: "POST", url: settings.apiURL + "reports/campaigns",
                        headers: [
                            ("authorization", "Bearer \(token)"), ("x-ap-context", "orgId=\(credentials.orgID)"),
                            ("content-type", "application/json"),
                        ],
                        body: AppleAdsCostReport.body(since: since, until: until, offset: offset).serialized(),
                        keptResponseBytes: CostPullService.answerBytes)
                    transport.send(request) { answer in
                        switch CostPullService.json(answer, "the Apple Ads Campaign Management API") {
                        case .failure(let failure): completion(.failure(failure.failure))
                        case .success(let json):
                            switch AppleAdsCostReport.page(json) {
                            case .failure(let problem): completion(.failure(CostPullFailure(description: "Apple's campaign report: \(problem)")))
                            case .success(let result):
                                let rows = collected + result.rows
                                guard let next = result.nextOffset, next < 100 * AppleAdsCostReport.pageSize else {
                                    return completion(.success(rows))
                                }
                                page(next, rows)
                            }
                        }
                    }
                }
                page(0, [])
            }
        }
    }
}

/// A connection's names and secrets, as the connectors read them.
struct CostSourceCredentials: Sendable {
    let settings: [String: String]
    let secrets: [String: String]
}
