public import Attribution

/// A message for another server, written as a job row in the transaction of the fact that
/// causes it (outbound.md, "The outbox").
public struct OutboxMessage: Sendable, Equatable {
    public var id: String
    public var projectID: String
    /// `webhook`, `postback`, `apple_ads`.
    public var kind: String
    public var targetID: String?
    public var targetURL: String
    /// Stable across retries and replays (`webhook-id`).
    public var eventID: String
    public var eventType: String
    public var payload: String
    public var createdAt: Timestamp
    /// The install the job is about (its page lists the job); set by the store from the fact.
    public var installID: String?

    public init(
        id: String, projectID: String, kind: String, targetID: String?, targetURL: String, eventID: String,
        eventType: String, payload: String, createdAt: Timestamp, installID: String? = nil
    ) {
        self.installID = installID
        self.id = id
        self.projectID = projectID
        self.kind = kind
        self.targetID = targetID
        self.targetURL = targetURL
        self.eventID = eventID
        self.eventType = eventType
        self.payload = payload
        self.createdAt = createdAt
    }
}

/// A job as the delivery worker holds it, and as the deliveries list shows it.
public struct OutboxJob: Sendable, Equatable {
    public enum Status: String, Sendable { case pending, delivered, failed }

    public var message: OutboxMessage
    public var status: Status
    public var attempts: Int
    public var nextAttemptAt: Timestamp
    public var lastStatusCode: Int?
    public var lastError: String?
    public var lastResponse: String?
    public var deliveredAt: Timestamp?
    /// The last attempt's request as the deliveries list shows it (secrets redacted), where the
    /// request is made when the job is sent (ad platforms); nil for the others, whose payload is it.
    public var lastRequest: String? = nil

    public init(
        message: OutboxMessage, status: Status, attempts: Int, nextAttemptAt: Timestamp, lastStatusCode: Int?, lastError: String?,
        lastResponse: String?, deliveredAt: Timestamp?, lastRequest: String? = nil
    ) {
        self.lastRequest = lastRequest
        self.message = message
        self.status = status
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastStatusCode = lastStatusCode
        self.lastError = lastError
        self.lastResponse = lastResponse
        self.deliveredAt = deliveredAt
    }
}

/// Jobs of one kind and status that are not delivered.
public struct OutboxBacklog: Sendable, Equatable {
    public var kind: String
    public var status: OutboxJob.Status
    public var count: Int
    public var oldest: Timestamp

    public init(kind: String, status: OutboxJob.Status, count: Int, oldest: Timestamp) {
        self.kind = kind
        self.status = status
        self.count = count
        self.oldest = oldest
    }
}

/// What one attempt came to.
public enum DeliveryOutcome: Sendable, Equatable {
    case delivered(statusCode: Int, response: String?)
    /// Another attempt at `at`.
    case retry(at: Timestamp, statusCode: Int?, error: String?, response: String?)
    /// No more attempts.
    case failed(statusCode: Int?, error: String?, response: String?)
}

/// A project's webhook endpoint.
public struct WebhookEndpoint: Sendable, Equatable {
    public var id: String
    public var projectID: String
    public var url: String
    /// nil: every event type.
    public var events: [String]?
    public var enabled: Bool
    public var secret: String
    public var previousSecret: String?
    public var previousSecretUntil: Timestamp?
    public var disabledReason: String?
    public var createdAt: Timestamp
    public var updatedAt: Timestamp

    public init(
        id: String, projectID: String, url: String, events: [String]?, enabled: Bool, secret: String,
        previousSecret: String? = nil, previousSecretUntil: Timestamp? = nil, disabledReason: String? = nil,
        createdAt: Timestamp, updatedAt: Timestamp
    ) {
        self.id = id
        self.projectID = projectID
        self.url = url
        self.events = events
        self.enabled = enabled
        self.secret = secret
        self.previousSecret = previousSecret
        self.previousSecretUntil = previousSecretUntil
        self.disabledReason = disabledReason
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Whether deliveries of `eventType` go to this endpoint.
    public func wants(_ eventType: String) -> Bool { enabled && (events?.contains(eventType) ?? true) }
}

/// Webhook endpoints and the outbox's jobs.
public protocol OutboxStore: Sendable {
    func createEndpoint(_ endpoint: WebhookEndpoint) throws
    func endpoints(projectID: String) throws -> [WebhookEndpoint]
    /// Every endpoint of every project (the cache in front of the hot paths loads them at once).
    func allEndpoints() throws -> [WebhookEndpoint]
    func endpoint(id: String, projectID: String) throws -> WebhookEndpoint?
    /// Saves url, events, enabled, secrets and disabled reason; false when there is no such endpoint.
    func updateEndpoint(_ endpoint: WebhookEndpoint) throws -> Bool
    func deleteEndpoint(id: String, projectID: String) throws -> Bool
    /// Turns an endpoint off because its receiver said so (410 Gone).
    func disableEndpoint(id: String, reason: String, now: Timestamp) throws

    /// Jobs written outside any other fact's transaction (a test event).
    func enqueue(_ messages: [OutboxMessage]) throws
    /// Due pending jobs, each leased to the caller until `leaseUntil`: no other worker takes a
    /// leased job; one whose lease expired (its worker died) is taken again.
    func claimDue(now: Timestamp, leaseUntil: Timestamp, limit: Int) throws -> [OutboxJob]
    /// Lets go of leases without an attempt (jobs claimed but not sent when the worker stops).
    func release(jobIDs: [String]) throws
    /// Records an attempt (and the request it sent, when given) and lets go of the lease.
    /// `completion` runs once it is committed (queued writes commit together).
    func record(
        _ outcome: DeliveryOutcome, request: String?, jobID: String, now: Timestamp,
        completion: @escaping @Sendable (Result<Void, any Error>) -> Void)
    func jobs(projectID: String, status: OutboxJob.Status?, kind: String?, since: Timestamp?, limit: Int) throws -> [OutboxJob]
    /// One job of the project, written or still waiting to be moved (nil: none by that id).
    func job(id: String, projectID: String) throws -> OutboxJob?
    /// The newest jobs about one install (webhooks, postbacks, its Apple Ads exchange).
    func jobs(projectID: String, installID: String, limit: Int) throws -> [OutboxJob]
    /// Makes a job due again now (attempts start over); false when there is no such job.
    func replay(jobID: String, projectID: String, now: Timestamp) throws -> Bool
    /// Makes every job of `status` created since `since` due again; how many.
    func replay(projectID: String, status: OutboxJob.Status, since: Timestamp, now: Timestamp) throws -> Int
    /// Deletes delivered jobs older than `cutoff`; how many.
    func pruneDelivered(before cutoff: Timestamp) throws -> Int
    /// Jobs not delivered, by kind and status, with the creation time of the oldest (for /metrics).
    func backlog() throws -> [OutboxBacklog]

    /// Whether `event.created` and `install.created` webhooks are made from the stored events
    /// and installs (`loggedEvents`, `loggedInstalls`, then `enqueue(_:movingLog:)`) rather than
    /// written in each fact's transaction.
    var factsAreALog: Bool { get }
    /// The events stored after the events log's cursor, oldest first, of projects with an
    /// enabled endpoint; at most `limit`.
    func loggedEvents(limit: Int) throws -> OutboxLogBatch<LoggedEvent>
    /// The same for new installs, each with its link, template and network click id as stored.
    func loggedInstalls(limit: Int) throws -> OutboxLogBatch<LoggedInstall>
    /// Writes `messages` (a batch's jobs) and moves the log's cursor past the batch, in one
    /// transaction. False, and nothing written, when the cursor moved since the batch was read
    /// (another move, or the newest fact deleted, whose rowid a new fact will take).
    func enqueue(_ messages: [OutboxMessage], movingLog position: OutboxLogPosition) throws -> Bool
}

/// The tables read as the outbox's log, named as their cursors are.
public enum OutboxLog: String, Sendable {
    case events, installs
}

/// Facts read after a log's cursor, and where the cursor goes once their jobs are written.
public struct OutboxLogBatch<Fact: Sendable>: Sendable {
    public var position: OutboxLogPosition
    public var facts: [Fact]

    public init(position: OutboxLogPosition, facts: [Fact]) {
        self.position = position
        self.facts = facts
    }
}

/// A log's cursor as a batch read it (the last fact whose jobs were made, and how many times
/// the newest fact was deleted: a move that read the log before either changed must not move
/// it), and the position the batch moves it to.
public struct OutboxLogPosition: Sendable, Equatable {
    public var log: OutboxLog
    public var cursor: Int64
    public var generation: Int64
    public var through: Int64

    /// Whether writing the batch moves the cursor (a batch may have no facts and still move it
    /// past facts nobody wants).
    public var movesCursor: Bool { through != cursor }

    /// A log no fact of which has been read (where facts are not a log at all).
    package static func unread(_ log: OutboxLog) -> OutboxLogPosition { OutboxLogPosition(log: log, cursor: 0, generation: 0, through: 0) }

    public init(log: OutboxLog, cursor: Int64, generation: Int64, through: Int64) {
        self.log = log
        self.cursor = cursor
        self.generation = generation
        self.through = through
    }
}

/// A new install read back from its row, as its `install.created` webhook tells it.
public struct LoggedInstall: Sendable {
    public var outcome: InstallOutcome
    public var networkClickID: NetworkClickID?

    public init(outcome: InstallOutcome, networkClickID: NetworkClickID?) {
        self.outcome = outcome
        self.networkClickID = networkClickID
    }
}

/// An event read back from its row, for its `event.created` webhooks.
public struct LoggedEvent: Sendable, Equatable {
    public var id: String
    public var projectID: String
    public var installID: String
    public var userID: String?
    public var name: String
    /// JSON object text, serialised as the request's `JSONValue` was when the event was stored.
    public var data: String?
    public var revenue: Double?
    public var currency: String?
    public var occurredAt: Timestamp
    public var receivedAt: Timestamp

    public init(
        id: String, projectID: String, installID: String, userID: String?, name: String, data: String?, revenue: Double?,
        currency: String?, occurredAt: Timestamp, receivedAt: Timestamp
    ) {
        self.id = id
        self.projectID = projectID
        self.installID = installID
        self.userID = userID
        self.name = name
        self.data = data
        self.revenue = revenue
        self.currency = currency
        self.occurredAt = occurredAt
        self.receivedAt = receivedAt
    }
}

/// Builds the outbox jobs a fact causes, called inside the fact's transaction (on the writer: it
/// must be quick) with what it wrote and its install, whose facts are read only if asked for.
public typealias Notifier<Fact> = @Sendable (Fact, InstallFactsSource) -> [OutboxMessage]

/// An install's facts, read in the fact's transaction the first time they are asked for: webhooks
/// about events and payments need the install's id only; postbacks and attributed installs need
/// its click.
public final class InstallFactsSource {
    public let installID: String
    private let read: () throws -> InstallFacts?
    private var cached: InstallFacts??

    public init(installID: String, read: @escaping () throws -> InstallFacts?) {
        self.installID = installID
        self.read = read
    }

    public func facts() throws -> InstallFacts? {
        if let cached { return cached }
        let facts = try read()
        cached = .some(facts)
        return facts
    }
}

/// What outbound messages say about an install: its own fields, and the click it was attributed to.
public struct InstallFacts: Sendable, Equatable {
    public var installID: String
    public var platform: String?
    public var appVersion: String?
    public var ip: String?
    public var userAgent: String?
    public var idfv: String?
    public var advertisingID: String?
    /// ISO 3166-1 alpha-2, when the SDK told it.
    public var country: String?
    public var click: AttributedClick?

    public init(
        installID: String, platform: String? = nil, appVersion: String? = nil, ip: String? = nil, userAgent: String? = nil,
        idfv: String? = nil, advertisingID: String? = nil, country: String? = nil, click: AttributedClick? = nil
    ) {
        self.installID = installID
        self.platform = platform
        self.appVersion = appVersion
        self.ip = ip
        self.userAgent = userAgent
        self.idfv = idfv
        self.advertisingID = advertisingID
        self.country = country
        self.click = click
    }
}

/// The click an install was attributed to, as postbacks need it.
public struct AttributedClick: Sendable, Equatable {
    public var clickID: String
    public var linkID: String?
    public var utm: UTM
    public var networkClickID: NetworkClickID?
    /// The click's country (`country_header`, `geoip_database`), when the server knew it.
    public var country: String?

    public init(clickID: String, linkID: String?, utm: UTM, networkClickID: NetworkClickID?, country: String? = nil) {
        self.clickID = clickID
        self.linkID = linkID
        self.utm = utm
        self.networkClickID = networkClickID
        self.country = country
    }
}

/// An event as its transaction stored it.
public struct StoredEvent: Sendable {
    public let eventID: String
    public let installID: String
    public let userID: String?

    public init(eventID: String, installID: String, userID: String?) {
        self.eventID = eventID
        self.installID = installID
        self.userID = userID
    }
}
