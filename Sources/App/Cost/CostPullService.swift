public import Attribution
import Foundation
import JSON
public import StoreContracts
import Synchronization

/// Spend pulled from the networks' reporting APIs (docs/cost.md, "Pulled from the networks"):
/// each connection's pull, due daily, asks for the last `backfill_days` days again (networks
/// restate spend) and stores them as cost rows a CSV would make, under a lease so that one node
/// pulls a source at a time and a node that dies mid-pull leaves it to another.
public final class CostPullService: Sendable {
    static let answerBytes = 8_388_608
    /// How long a node holds a pull; past it, another node may take it.
    static let leaseSeconds: Int64 = 900
    static let pullEverySeconds: Int64 = 86_400

    let store: any StoreBackend
    let clocks: ProjectClocks
    let node: String
    private let outbound: LateTransport
    private let google: GoogleAdsConnector
    private let meta: MetaConnector
    private let tiktok: TikTokConnector
    private let appleAds: AppleAdsConnector

    init(
        store: any StoreBackend, clocks: ProjectClocks, settings: AdPlatformSettings, appleAds: AppleAdsSettings,
        appleAdsTokens: AppleAdsAccessTokens,
        node: String, outbound: LateTransport
    ) {
        self.outbound = outbound
        self.appleAds = AppleAdsConnector(settings: appleAds, tokens: appleAdsTokens)
        self.store = store
        self.clocks = clocks
        self.node = node
        google = GoogleAdsConnector(settings: settings, clock: clocks.server)
        meta = MetaConnector(settings: settings)
        tiktok = TikTokConnector(settings: settings)
    }

    /// Creates or replaces a connection, due at once; each problem names its field.
    public func save(project: Project, network: CostNetwork, settings: [String: String], secrets: [String: String], backfillDays: Int?) throws
        -> CostSourceConnection
    {
        var problems: [ValidationProblem] = []
        for key in network.requiredSettingKeys where (settings[key] ?? "").isEmpty { problems.append(ValidationProblem(key, "is required")) }
        for key in network.secretKeys where (secrets[key] ?? "").isEmpty { problems.append(ValidationProblem(key, "is required")) }
        if let currency = settings["currency"], !MoneyAmount.isCurrencyCode(currency.uppercased()) {
            problems.append(ValidationProblem("currency", "must be a three-letter ISO 4217 code such as USD"))
        }
        for key in ["customer_id", "login_customer_id", "ad_account_id", "advertiser_id"] {
            if let value = settings[key], !value.isEmpty, value.filter(\.isNumber).isEmpty || !value.allSatisfy({ $0.isNumber || $0 == "-" }) {
                problems.append(ValidationProblem(key, "must be the account's number (1234567890, or 123-456-7890)"))
            }
        }
        if network == .appleAds, (try store.appleAdsNames.credentials(projectID: project.id)) == nil {
            problems.append(ValidationProblem("apple_ads", "set the project's Apple Ads credentials first (PUT /admin/v1/projects/{id}/apple-ads)"))
        }
        let days = backfillDays ?? 7
        if !(0...90).contains(days) { problems.append(ValidationProblem("backfill_days", "must be between 0 and 90")) }
        try AppError.throwIfAny(problems)
        let now = clocks.server.now()
        let connection = CostSourceConnection(
            projectID: project.id, network: network, settings: settings, secrets: secrets, backfillDays: days, nextPullAt: now, updatedAt: now)
        try store.costSources.save(connection)
        return connection
    }

    public func connection(project: Project, network: CostNetwork) throws -> CostSourceConnection? {
        try store.costSources.connection(projectID: project.id, network: network)
    }

    public func connections(project: Project) throws -> [CostSourceConnection] { try store.costSources.connections(projectID: project.id) }

    public func delete(project: Project, network: CostNetwork) throws -> Bool {
        try store.costSources.delete(projectID: project.id, network: network)
    }

    /// Pulls the source now when no other node holds it: the result as the connection notes it
    /// (`ok: 14 rows, 3 new`), or why it failed; nil when another node holds its lease.
    public func pull(project: Project, network: CostNetwork, completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
        do {
            let now = clocks.server.now()
            guard
                try store.costSources.claim(
                    projectID: project.id, network: network, node: node, until: now.adding(seconds: Self.leaseSeconds), at: now)
            else { return completion(.success("another node is pulling this source")) }
            guard let connection = try store.costSources.connection(projectID: project.id, network: network) else {
                throw AppError.notFound("no such cost source for this project")
            }
            run(connection, project: project, completion: completion)
        } catch {
            completion(.failure(error))
        }
    }

    /// One pass over the sources due now (the background job's, every few minutes).
    public func pullDue() {
        guard let due = try? store.costSources.due(at: clocks.server.now(), limit: 20) else { return }
        for connection in due {
            guard let project = try? store.projects.find(id: connection.projectID) else { continue }
            pull(project: project, network: connection.network) { _ in }
        }
    }

    private func run(_ connection: CostSourceConnection, project: Project, completion: @escaping @Sendable (Result<String, any Error>) -> Void) {
        let calendar = LocalCalendar(identifier: project.settings.timeZone) ?? .utc
        let today = clocks.server.now()
        let until = calendar.dateText(today)
        let since = calendar.dateText(calendar.addingDays(-connection.backfillDays, to: calendar.startOfDay(today)))
        let finish: @Sendable (Result<[CostRow], CostPullFailure>) -> Void = { [self] result in
            let now = clocks.server.now()
            do {
                switch result {
                case .success(let rows):
                    let saved =
                        rows.isEmpty
                        ? (added: 0, replaced: 0) : try store.costs.save(rows, projectID: project.id, source: connection.network.rawValue, at: now)
                    let note = "ok: \(rows.count) rows of \(since) to \(until), \(saved.added) new"
                    try store.costSources.finish(
                        projectID: project.id, network: connection.network, node: node, nextPullAt: now.adding(seconds: Self.pullEverySeconds),
                        result: note,
                        at: now)
                    completion(.success(note))
                case .failure(let failure):
                    try store.costSources.finish(
                        projectID: project.id, network: connection.network, node: node, nextPullAt: now.adding(seconds: failure.retryAfterSeconds),
                        result: "failed: \(failure.description)", at: now)
                    completion(.success("failed: \(failure.description)"))
                }
            } catch {
                completion(.failure(error))
            }
        }
        guard let transport = outbound.current else {
            return finish(.failure(CostPullFailure(description: "outbound requests are not running on this node", retryAfterSeconds: 300)))
        }
        let credentials = CostSourceCredentials(settings: connection.settings, secrets: connection.secrets)
        switch connection.network {
        case .googleAds: google.rows(credentials, since: since, until: until, through: transport, completion: finish)
        case .meta: meta.rows(credentials, since: since, until: until, through: transport, completion: finish)
        case .tiktok: tiktok.rows(credentials, since: since, until: until, through: transport, completion: finish)
        case .appleAds:
            guard let apple = try? store.appleAdsNames.credentials(projectID: project.id) else {
                return finish(.failure(CostPullFailure(description: "the project has no Apple Ads credentials (PUT …/apple-ads)")))
            }
            appleAds.rows(apple, projectID: project.id, since: since, until: until, through: transport, completion: finish)
        }
    }

    struct AnswerFailure: Error {
        let failure: CostPullFailure
        /// The API refused the access token (fetch another once).
        let unauthenticated: Bool
    }

    /// A network's answer as JSON, or what its error says: a refused token, a rate limit (tried
    /// again when it says, else in an hour), anything else.
    static func json(_ answer: Result<OutboundResponse, any Error>, _ name: String) -> Result<JSONValue, AnswerFailure> {
        switch answer {
        case .failure(let error):
            return .failure(AnswerFailure(failure: CostPullFailure(description: "\(name) could not be reached: \(error)"), unauthenticated: false))
        case .success(let response):
            let json = try? JSONDecoder().decode(JSONValue.self, from: Data(response.bodyPrefix.utf8))
            if response.statusCode == 200, let json { return .success(json) }
            var message = response.shownBody.prefix(300)
            var code: Double?
            if case .object(let root)? = json, case .object(let error)? = root["error"] {
                if case .string(let text)? = error["message"] { message = Substring(text.prefix(300)) }
                if case .number(let number)? = error["code"] { code = number }
            } else if case .array(let batches)? = json, case .object(let first)? = batches.first, case .object(let error)? = first["error"],
                case .string(let text)? = error["message"]
            {
                message = Substring(text.prefix(300))
            }
            // Meta's throttling codes (4, 17, 613, 80004) and HTTP's 429.
            let rateLimited = response.statusCode == 429 || [4, 17, 613, 80004].contains(code ?? -1)
            let retry = response.headers.first { $0.key.lowercased() == "retry-after" }.flatMap { Int64($0.value) } ?? 3600
            let failure = CostPullFailure(
                description: "\(name) answered \(response.statusCode)\(rateLimited ? " (rate limited)" : ""): \(message)",
                retryAfterSeconds: rateLimited ? max(60, retry) : 3600)
            return .failure(AnswerFailure(failure: failure, unauthenticated: response.statusCode == 401 || code == 190))
        }
    }
}
