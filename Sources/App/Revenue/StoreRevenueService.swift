public import Attribution
import Cryptography
import Dispatch
public import JSON
public import StoreContracts

/// Store-verified revenue (docs/revenue.md): each project's sources, and the notifications that
/// reach their receivers, applied to the payments of the installs they name.
public struct StoreRevenueService: Sendable {
    let store: any StoreBackend
    let clocks: ProjectClocks
    let settings: RevenueSettings
    let googlePlay: GooglePlayLookup
    let googleKeys: GoogleSigningKeys

    init(store: any StoreBackend, clocks: ProjectClocks, settings: RevenueSettings, outbound: LateTransport) {
        self.store = store
        self.clocks = clocks
        self.settings = settings
        googlePlay = GooglePlayLookup(baseURL: settings.googlePlayURL, clock: clocks.server, outbound: outbound)
        googleKeys = GoogleSigningKeys(url: settings.googleCertsURL, clock: clocks.server, outbound: outbound)
    }

    /// What each source needs: settings and secrets, by name, and whether each is required.
    static let requiredSettings: [RevenueSource: [String]] = [.appStore: ["bundle_id"], .googlePlay: ["package_name"], .revenueCat: []]
    static let requiredSecrets: [RevenueSource: [String]] = [
        .appStore: [], .googlePlay: ["service_account"], .revenueCat: ["authorization"],
    ]
    static let optionalSecrets: [RevenueSource: [String]] = [.googlePlay: ["push_secret"]]
    /// A Play push is let in by its OIDC token (`push_audience`, and `push_service_account` when
    /// given), by the URL's `push_secret`, or by both when both are set; one of them is required.
    static let optionalSettings: [RevenueSource: [String]] = [.googlePlay: ["push_audience", "push_service_account"]]

    /// Creates or replaces the project's connection to `source`; each problem names its field.
    public func save(project: Project, source: RevenueSource, settings: [String: String], secrets: [String: String]) throws
        -> RevenueSourceConnection
    {
        var problems: [ValidationProblem] = []
        let allowedSettings = Set((Self.requiredSettings[source] ?? []) + (Self.optionalSettings[source] ?? []))
        let allowedSecrets = Set((Self.requiredSecrets[source] ?? []) + (Self.optionalSecrets[source] ?? []))
        for key in settings.keys.sorted() where !allowedSettings.contains(key) && !allowedSecrets.contains(key) {
            problems.append(ValidationProblem(key, "is not a setting of \(source.rawValue)"))
        }
        for key in secrets.keys.sorted() where !allowedSecrets.contains(key) {
            problems.append(ValidationProblem(key, "is not a secret of \(source.rawValue)"))
        }
        for key in Self.requiredSettings[source] ?? [] where (settings[key] ?? "").isEmpty {
            problems.append(ValidationProblem(key, "is required"))
        }
        for key in Self.requiredSecrets[source] ?? [] where (secrets[key] ?? "").isEmpty {
            problems.append(ValidationProblem(key, "is required"))
        }
        for key in ["bundle_id", "package_name"] {
            if let value = settings[key], !value.isEmpty, !ProjectSettings.isReverseDNS(value) {
                problems.append(ValidationProblem(key, "must be a reverse-DNS identifier such as com.example.app"))
            }
        }
        for key in ["authorization", "push_secret"] {
            if let value = secrets[key], !value.isEmpty, value.count < 16 {
                problems.append(ValidationProblem(key, "must be at least 16 characters: anyone who guesses it can send revenue"))
            }
        }
        if source == .googlePlay, (secrets["push_secret"] ?? "").isEmpty, (settings["push_audience"] ?? "").isEmpty {
            problems.append(ValidationProblem("push_audience", "or push_secret is required: without either anyone could send revenue"))
        }
        if let email = settings["push_service_account"], !email.isEmpty, (settings["push_audience"] ?? "").isEmpty {
            problems.append(ValidationProblem("push_audience", "is required with push_service_account (it is the token's audience)"))
        }
        try AppError.throwIfAny(problems)
        let connection = RevenueSourceConnection(
            projectID: project.id, source: source, settings: settings, secrets: secrets, updatedAt: clocks.clock(for: project).now())
        try store.revenue.save(connection)
        return connection
    }

    public func connection(project: Project, source: RevenueSource) throws -> RevenueSourceConnection? {
        try store.revenue.connection(projectID: project.id, source: source)
    }

    public func connections(project: Project) throws -> [RevenueSourceConnection] { try store.revenue.connections(projectID: project.id) }

    public func delete(project: Project, source: RevenueSource) throws -> Bool { try store.revenue.delete(projectID: project.id, source: source) }

    /// Applies one verified notification of the project.
    public func record(_ transaction: StoreTransaction, project: Project) throws -> StoreRevenueOutcome {
        try store.revenue.record(transaction, projectID: project.id, at: clocks.clock(for: project).now())
    }

    /// An App Store Server Notification V2 (`{"signedPayload": JWS}`) of the project: its chain
    /// and signatures checked against the configured roots, its bundle id the source's, then applied.
    public func receiveAppStore(_ body: JSONValue, project: Project) throws -> StoreRevenueOutcome {
        guard let connection = try connection(project: project, source: .appStore) else {
            throw AppError.notFound("this project has no App Store source")
        }
        guard case .object(let fields) = body, case .string(let signed)? = fields["signedPayload"] else {
            throw AppError.invalidField("signedPayload", "is required: the body the App Store sends is {\"signedPayload\": JWS}")
        }
        let now = clocks.server.now().milliseconds / 1000
        let notification: AppStoreNotification.Decoded
        switch AppStoreJWS.verifiedPayload(signed, rootsPEM: settings.appleRootCertificatesPEM, at: now).map(AppStoreNotification.decode) {
        case .failure(let refusal): throw AppError.invalidField("signedPayload", refusal.message)
        case .success(.failure(let problem)): throw AppError.invalid([problem])
        case .success(.success(let decoded)): notification = decoded
        }
        if let bundle = notification.bundleID, bundle != connection.settings["bundle_id"] {
            throw AppError.invalidField("data.bundleId", "is \(bundle.prefix(128)), not this source's \(connection.settings["bundle_id"] ?? "")")
        }
        var info: JSONValue?
        if let signedInfo = notification.signedTransactionInfo {
            switch AppStoreJWS.verifiedPayload(signedInfo, rootsPEM: settings.appleRootCertificatesPEM, at: now) {
            case .failure(let refusal): throw AppError.invalidField("data.signedTransactionInfo", refusal.message)
            case .success(let payload): info = payload
            }
            if case .object(let transaction)? = info, case .string(let bundle)? = transaction["bundleId"], bundle != connection.settings["bundle_id"]
            {
                throw AppError.invalidField("signedTransactionInfo.bundleId", "is \(bundle.prefix(128)), not this source's")
            }
        }
        switch AppStoreNotification.transaction(notification, transaction: info) {
        case .failure(let problem): throw AppError.invalid([problem])
        case .success(let transaction): return try record(transaction, project: project)
        }
    }

    /// A Play Real-time Developer Notification as Pub/Sub pushes it, let in by the checks its
    /// source sets (the URL's `presentedSecret` against `push_secret`; `authorization`'s OIDC token
    /// against `push_audience`): decoded, its package the source's, the purchase looked up with
    /// the Android Publisher API where its money is needed, then applied. Answers through
    /// `completion` (nothing waits on Google): `Unauthorized` for a failed check, `AppError` for
    /// what the request got wrong, `UpstreamFailure` when Google could not be asked (Pub/Sub then
    /// retries).
    public func receiveGooglePlay(
        _ body: JSONValue, presentedSecret: String?, authorization: String?, project: Project,
        completion: @escaping @Sendable (Result<StoreRevenueOutcome, any Error>) -> Void
    ) {
        do {
            guard let connection = try connection(project: project, source: .googlePlay) else {
                throw AppError.notFound("this project has no Google Play source")
            }
            if let secret = connection.secrets["push_secret"], !secret.isEmpty, !Self.matches(presentedSecret, secret: secret) {
                throw Unauthorized(reason: "the URL's secret is not this source's push_secret")
            }
            guard let audience = connection.settings["push_audience"], !audience.isEmpty else {
                return receiveGooglePlay(body, connection: connection, project: project, completion: completion)
            }
            let token: PubSubPushToken
            switch PubSubPushToken.parse(authorization: authorization) {
            case .failure(let refusal): throw Unauthorized(reason: refusal.description)
            case .success(let parsed): token = parsed
            }
            if let refusal = token.refusal(audience: audience, email: connection.settings["push_service_account"], now: clocks.server.now()) {
                throw Unauthorized(reason: refusal.description)
            }
            googleKeys.verify(token) { [self] refusal in
                if let refusal { return completion(.failure(Unauthorized(reason: refusal.description))) }
                DispatchQueue.global().async { receiveGooglePlay(body, connection: connection, project: project, completion: completion) }
            }
        } catch {
            completion(.failure(error))
        }
    }

    private func receiveGooglePlay(
        _ body: JSONValue, connection: RevenueSourceConnection, project: Project,
        completion: @escaping @Sendable (Result<StoreRevenueOutcome, any Error>) -> Void
    ) {
        do {
            let notification: GooglePlayNotification.Decoded
            switch GooglePlayNotification.decode(body) {
            case .failure(let problem): throw AppError.invalid([problem])
            case .success(let decoded): notification = decoded
            }
            guard notification.packageName == connection.settings["package_name"] else {
                throw AppError.invalidField(
                    "message.data.packageName",
                    "is \(notification.packageName.prefix(128)), not this source's \(connection.settings["package_name"] ?? "")")
            }
            let apply: @Sendable (JSONValue?, (micros: Int64, currency: String)?) -> Void = { [self] purchase, price in
                completion(
                    Result {
                        switch GooglePlayNotification.transaction(notification, purchase: purchase, price: price) {
                        case .failure(let problem): throw UpstreamFailure(reason: "the purchase as Google answered it: \(problem)")
                        case .success(let transaction): return try record(transaction, project: project)
                        }
                    })
            }
            guard notification.bringsMoney || notification.kind.isRevocation else { return apply(nil, nil) }
            googlePlay.purchase(of: notification, serviceAccount: connection.secrets["service_account"] ?? "") { result in
                switch result {
                case .failure(let failure): completion(.failure(UpstreamFailure(reason: failure.description)))
                case .success(let found): DispatchQueue.global().async { apply(found.purchase, found.price) }
                }
            }
        } catch {
            completion(.failure(error))
        }
    }

    /// Whether a presented secret is the stored one (compared in constant time).
    public static func matches(_ presented: String?, secret: String?) -> Bool {
        guard let presented, let secret, !secret.isEmpty else { return false }
        return Secrets.constantTimeEquals(Secrets.sha256(presented), Secrets.sha256(secret))
    }
}

/// A request without the source's secret or token: `reason` says which check it failed.
public struct Unauthorized: Error, Sendable {
    public let reason: String
}

/// A store's own API could not answer what a notification needs (unreachable, refusing the
/// credentials, a purchase it does not know): the notification is not kept, so its sender retries.
public struct UpstreamFailure: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}
