import Attribution
import Foundation
import SQLValues
public import StoreContracts

/// Webhook endpoints and outbox jobs on either backend (`SessionSource`). Facts write their jobs
/// with `OutboxRepository.insert` inside their own transaction; the worker claims and records
/// through the writer.
struct Outbox<Source: SessionSource>: OutboxStore {
    let source: Source

    // MARK: Endpoints

    public func createEndpoint(_ endpoint: WebhookEndpoint) throws {
        try source.writeSession { connection in
            try connection.run(
                """
                INSERT INTO webhook_endpoints (id, project_id, url, events, enabled, secret, previous_secret, previous_secret_until,
                    disabled_reason, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, endpoint.id, endpoint.projectID, endpoint.url, endpoint.events.map(JSONText.encode), endpoint.enabled,
                endpoint.secret, endpoint.previousSecret, endpoint.previousSecretUntil?.milliseconds, endpoint.disabledReason,
                endpoint.createdAt.milliseconds, endpoint.updatedAt.milliseconds)
        }
    }

    public func endpoints(projectID: String) throws -> [WebhookEndpoint] {
        try source.read { connection in
            try connection.query(
                "SELECT \(OutboxRepository.endpointColumns) FROM webhook_endpoints WHERE project_id = ? ORDER BY created_at, id",
                projectID, map: OutboxRepository.endpoint)
        }
    }

    public func allEndpoints() throws -> [WebhookEndpoint] {
        try source.read { connection in
            try connection.query(
                "SELECT \(OutboxRepository.endpointColumns) FROM webhook_endpoints ORDER BY project_id, created_at", map: OutboxRepository.endpoint)
        }
    }

    public func endpoint(id: String, projectID: String) throws -> WebhookEndpoint? {
        try source.read { connection in
            try connection.queryOne(
                "SELECT \(OutboxRepository.endpointColumns) FROM webhook_endpoints WHERE id = ? AND project_id = ?",
                id, projectID, map: OutboxRepository.endpoint)
        }
    }

    public func updateEndpoint(_ endpoint: WebhookEndpoint) throws -> Bool {
        try source.writeSession { connection in
            try connection.run(
                """
                UPDATE webhook_endpoints SET url = ?, events = ?, enabled = ?, secret = ?, previous_secret = ?, previous_secret_until = ?,
                    disabled_reason = ?, updated_at = ?
                WHERE id = ? AND project_id = ?
                """, endpoint.url, endpoint.events.map(JSONText.encode), endpoint.enabled, endpoint.secret, endpoint.previousSecret,
                endpoint.previousSecretUntil?.milliseconds, endpoint.disabledReason, endpoint.updatedAt.milliseconds,
                endpoint.id, endpoint.projectID) > 0
        }
    }

    public func deleteEndpoint(id: String, projectID: String) throws -> Bool {
        try source.writeSession { connection in
            try connection.run("DELETE FROM webhook_endpoints WHERE id = ? AND project_id = ?", id, projectID) > 0
        }
    }

    public func disableEndpoint(id: String, reason: String, now: Timestamp) throws {
        try source.writeSession { connection in
            _ = try connection.run(
                "UPDATE webhook_endpoints SET enabled = FALSE, disabled_reason = ?, updated_at = ? WHERE id = ?",
                reason, now.milliseconds, id)
        }
    }

    // MARK: Jobs

    public func enqueue(_ messages: [OutboxMessage]) throws {
        try source.writeSession { connection in try OutboxRepository.insert(messages, connection) }
    }

    public func claimDue(now: Timestamp, leaseUntil: Timestamp, limit: Int) throws -> [OutboxJob] {
        // One statement on the one writer: a job is leased by exactly one claim.
        // PostgreSQL: rows another node is leasing at this moment are skipped, not waited for.
        try source.writeSession { connection in
            try OutboxRepository.promote(connection, dueBy: now)
            return try connection.query(
                type(of: connection).hasConcurrentWriters ? OutboxRepository.claimSkippingLocked : OutboxRepository.claim,
                leaseUntil.milliseconds, now.milliseconds, now.milliseconds, limit, map: OutboxRepository.job)
        }
    }

    public func release(jobIDs: [String]) throws {
        guard !jobIDs.isEmpty else { return }
        try source.writeSession { connection in
            for id in jobIDs { try connection.run("UPDATE outbox_jobs SET lease_until = NULL WHERE id = ?", id) }
        }
    }

    public func record(
        _ outcome: DeliveryOutcome, request: String?, jobID: String, now: Timestamp,
        completion: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
        source.write(
            delivery: nil,
            { connection in
                if let request { try connection.run("UPDATE outbox_jobs SET last_request = ? WHERE id = ?", request, jobID) }
                switch outcome {
                case .delivered(let code, let response):
                    try connection.run(
                        """
                        UPDATE outbox_jobs SET status = 'delivered', attempts = attempts + 1, lease_until = NULL, last_status_code = ?,
                            last_error = NULL, last_response = ?, delivered_at = ? WHERE id = ?
                        """, code, response, now.milliseconds, jobID)
                case .retry(let at, let code, let error, let response):
                    try connection.run(
                        """
                        UPDATE outbox_jobs SET attempts = attempts + 1, lease_until = NULL, next_attempt_at = ?, last_status_code = ?,
                            last_error = ?, last_response = ? WHERE id = ?
                        """, at.milliseconds, code, error, response, jobID)
                case .failed(let code, let error, let response):
                    try connection.run(
                        """
                        UPDATE outbox_jobs SET status = 'failed', attempts = attempts + 1, lease_until = NULL, last_status_code = ?,
                            last_error = ?, last_response = ? WHERE id = ?
                        """, code, error, response, jobID)
                }
            }, completion: completion)
    }

    /// Jobs not yet moved out of `outbox_new` show as pending with no attempt.
    public func jobs(projectID: String, status: OutboxJob.Status?, kind: String?, since: Timestamp?, limit: Int) throws -> [OutboxJob] {
        try source.read { connection in
            try connection.query(
                """
                \(OutboxRepository.allJobs())
                WHERE project_id = ?1 AND (CAST(?2 AS TEXT) IS NULL OR status = ?2) AND (CAST(?3 AS TEXT) IS NULL OR kind = ?3)
                    AND created_at >= ?4
                ORDER BY created_at DESC, id DESC LIMIT ?5
                """, projectID, status?.rawValue, kind, since?.milliseconds ?? 0, limit, map: OutboxRepository.job)
        }
    }

    public func job(id: String, projectID: String) throws -> OutboxJob? {
        try source.read { connection in
            try connection.queryOne(
                """
                \(OutboxRepository.allJobs(where: "id = ?1"))
                WHERE project_id = ?2
                """, id, projectID, map: OutboxRepository.job)
        }
    }

    public func jobs(projectID: String, installID: String, limit: Int) throws -> [OutboxJob] {
        try source.read { connection in
            try connection.query(
                """
                \(OutboxRepository.allJobs(where: "install_id = ?2"))
                WHERE project_id = ?1 ORDER BY created_at DESC, id DESC LIMIT ?3
                """, projectID, installID, limit, map: OutboxRepository.job)
        }
    }

    public func replay(jobID: String, projectID: String, now: Timestamp) throws -> Bool {
        try source.writeSession { connection in
            try connection.run(
                """
                UPDATE outbox_jobs SET status = 'pending', attempts = 0, next_attempt_at = ?, lease_until = NULL, delivered_at = NULL
                WHERE id = ? AND project_id = ?
                """, now.milliseconds, jobID, projectID) > 0
        }
    }

    public func replay(projectID: String, status: OutboxJob.Status, since: Timestamp, now: Timestamp) throws -> Int {
        try source.writeSession { connection in
            try connection.run(
                """
                UPDATE outbox_jobs SET status = 'pending', attempts = 0, next_attempt_at = ?, lease_until = NULL, delivered_at = NULL
                WHERE project_id = ? AND status = ? AND created_at >= ?
                """, now.milliseconds, projectID, status.rawValue, since.milliseconds)
        }
    }

    public func pruneDelivered(before cutoff: Timestamp) throws -> Int {
        try source.writeSession { connection in
            try connection.run("DELETE FROM outbox_jobs WHERE status = 'delivered' AND delivered_at < ?", cutoff.milliseconds)
        }
    }

    /// Where installs and events are the outbox's log, those whose jobs are not made yet count
    /// as pending jobs too, one per endpoint that wants them.
    public func backlog() throws -> [OutboxBacklog] {
        try source.read { connection in
            try connection.query(
                """
                SELECT kind, status, count(*), min(created_at) FROM (
                    SELECT kind, status, created_at FROM outbox_jobs WHERE status IN ('pending', 'failed')
                    UNION ALL SELECT kind, 'pending', created_at FROM outbox_new
                    \(factsAreALog ? OutboxRepository.loggedFactsAwaitingJobs : "")) AS jobs
                GROUP BY kind, status ORDER BY kind, status
                """
            ) { row in
                OutboxBacklog(
                    kind: row.string(0), status: OutboxJob.Status(rawValue: row.string(1)) ?? .pending, count: Int(row.int(2)),
                    oldest: Timestamp(milliseconds: row.int(3)))
            }
        }
    }
}

extension Outbox where Source == Database {
    init(database: Database) { self.init(source: database) }
}

// MARK: Events and installs as the outbox's log (SQLite: migrations 0024, 0025)

extension Outbox {
    /// On one SQLite writer rowids grow in commit order, so a cursor over them misses nothing.
    /// PostgreSQL's sequences do not commit in order: there each fact writes its own jobs.
    public var factsAreALog: Bool { !Source.Session.hasConcurrentWriters }

    public func loggedEvents(limit: Int) throws -> OutboxLogBatch<LoggedEvent> {
        try logged(.events, sql: OutboxRepository.eventsAfter, limit: limit, fact: OutboxRepository.loggedEvent)
    }

    public func loggedInstalls(limit: Int) throws -> OutboxLogBatch<LoggedInstall> {
        try logged(
            .installs, sql: OutboxRepository.installsAfter, limit: limit,
            fact: { row in
                var outcome = InstallOutcome(install: InstallRepository.stored(row, from: 1), isNew: true)
                outcome.consent = row.optionalString(21).flatMap { CodableText.decode(Consent.self, $0) }
                return LoggedInstall(
                    outcome: outcome,
                    networkClickID: row.optionalString(19).map { NetworkClickID(parameter: row.optionalString(20) ?? "", value: $0) })
            },
            finish: { install, connection in
                // The link and template as the install's own transaction reads them.
                install.outcome = try InstallRepository.withLink(install.outcome, connection)
            })
    }

    /// The facts after `log`'s cursor up to the newest one, read by `sql` (rowid first; bound to
    /// the cursor, the newest rowid and `limit`).
    /// `finish` completes each fact on the same connection once the log's rows are read.
    private func logged<Fact>(
        _ log: OutboxLog, sql: String, limit: Int, fact: (Source.Session.Reader) throws -> Fact,
        finish: (inout Fact, Source.Session) throws -> Void = { _, _ in }
    ) throws -> OutboxLogBatch<Fact> {
        guard factsAreALog else { return OutboxLogBatch(position: .unread(log), facts: []) }
        return try source.read { connection in
            // Read in this order, each statement on its own snapshot: a newest fact deleted after
            // the cursor was read changes its generation; a fact stored after `newest` was read is
            // left for the next move.
            var position =
                try connection.queryOne("SELECT position, generation FROM outbox_cursors WHERE name = ?", log.rawValue) {
                    OutboxLogPosition(log: log, cursor: $0.int(0), generation: $0.int(1), through: $0.int(0))
                } ?? .unread(log)
            let newest = try connection.queryOne(OutboxRepository.newest(log)) { $0.int(0) } ?? 0
            guard newest != position.cursor else { return OutboxLogBatch(position: position, facts: []) }
            var last = position.cursor
            var facts = try connection.query(sql, position.cursor, newest, limit) { row in
                last = row.int(0)
                return try fact(row)
            }
            for index in facts.indices { try finish(&facts[index], connection) }
            // A full batch stops at its last fact; a shorter one saw every fact up to the newest.
            // (Below the cursor when a VACUUM renumbered the rowids: the cursor comes down with them.)
            position.through = facts.count == limit ? last : newest
            return OutboxLogBatch(position: position, facts: facts)
        }
    }

    public func enqueue(_ messages: [OutboxMessage], movingLog position: OutboxLogPosition) throws -> Bool {
        try source.writeSession { connection in
            guard
                try connection.run(
                    "UPDATE outbox_cursors SET position = ? WHERE name = ? AND position = ? AND generation = ?",
                    position.through, position.log.rawValue, position.cursor, position.generation) == 1
            else { return false }
            // Due at once: a test-mode project's clock stamps the fact, never the delivery (its
            // jobs sat pending for 40 real days after its clock moved 40 days on).
            let now = SystemClock().now().milliseconds
            for message in messages {
                try connection.run(
                    OutboxRepository.insertLoggedJob, message.id, message.projectID, message.kind, message.targetID,
                    message.targetURL, message.eventID, message.eventType, message.payload,
                    message.createdAt.milliseconds, message.installID, min(message.createdAt.milliseconds, now))
            }
            return true
        }
    }
}

/// The outbox's SQL and row mappings, and the job writes facts make in their own transaction.
@_spi(StoreInternals) public enum OutboxRepository {
    /// The jobs written and those still in `outbox_new` (shown pending, with no attempt), as one
    /// table `jobs`; `filter` narrows both sides before they are joined.
    static func allJobs(where filter: String? = nil) -> String {
        let condition = filter.map { " WHERE " + $0 } ?? ""
        return """
            SELECT \(jobColumns) FROM (
                SELECT \(jobColumns) FROM outbox_jobs\(condition)
                UNION ALL
                SELECT id, project_id, kind, target_id, target_url, event_id, event_type, payload, 'pending' AS status,
                    0 AS attempts, created_at AS next_attempt_at, NULL AS last_status_code, NULL AS last_error,
                    NULL AS last_response, created_at, NULL AS delivered_at, NULL AS last_request
                FROM outbox_new\(condition)) AS jobs
            """
    }

    static let endpointColumns = """
        id, project_id, url, events, enabled, secret, previous_secret, previous_secret_until, disabled_reason, created_at, updated_at
        """

    static func endpoint(_ row: some ColumnReader) -> WebhookEndpoint {
        WebhookEndpoint(
            id: row.string("id"), projectID: row.string("project_id"), url: row.string("url"),
            events: row.optionalString("events").map(JSONText.decodeStrings), enabled: row.bool("enabled"),
            secret: row.string("secret"), previousSecret: row.optionalString("previous_secret"),
            previousSecretUntil: row.optionalInt("previous_secret_until").map(Timestamp.init(milliseconds:)),
            disabledReason: row.optionalString("disabled_reason"),
            createdAt: Timestamp(milliseconds: row.int("created_at")), updatedAt: Timestamp(milliseconds: row.int("updated_at")))
    }

    /// Writes the jobs on the caller's transaction (the fact's own), into `outbox_new`: one row in
    /// one tree per job on the request's path.
    /// - Parameter installID: the install the jobs are about, when the fact has one (else each
    ///   message's own).
    @_spi(StoreInternals) public static func insert(
        _ messages: [OutboxMessage], installID: String? = nil,
        _ connection: some StoreSession
    ) throws {
        // Nothing reads a fact's new jobs before they are moved (`promote`, which writes held rows first).
        for message in messages {
            try connection.runHeld(
                insertJob,
                [
                    .text(message.id), .text(message.projectID), .text(message.kind), message.targetID.sqlValue, .text(message.targetURL),
                    .text(message.eventID), .text(message.eventType), .text(message.payload), .integer(message.createdAt.milliseconds),
                    (installID ?? message.installID).sqlValue,
                ])
        }
    }

    static let insertJob = """
        INSERT INTO outbox_new (id, project_id, kind, target_id, target_url, event_id, event_type, payload, created_at, install_id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// A logged fact's job, due at once, straight into `outbox_jobs`. (Checking here that its
    /// install still exists cost a third of capture-event's throughput with deliveries on, 0.43
    /// against 0.66 of no endpoint: an erasure changes the logs' generation instead.)
    static let insertLoggedJob = """
        INSERT INTO outbox_jobs (id, project_id, kind, target_id, target_url, event_id, event_type, payload,
            next_attempt_at, created_at, install_id)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?11, ?9, ?10)
        ON CONFLICT DO NOTHING
        """

    /// Events after the log's cursor up to the newest seen, of projects that have an endpoint;
    /// not the `signup` a trigger records (its webhook is `user.identified`), nor a test install's
    /// (a client's test mode sends nothing out, docs/outbound.md). A range of rowids:
    /// `+project_id` keeps the planner off `events_by_project`, which walked every event of the
    /// project, then sorted them, on every move.
    static let eventsAfter = """
        SELECT rowid, id, project_id, install_id, user_id, name, data, revenue, currency, occurred_at, received_at FROM events
        WHERE rowid > ? AND rowid <= ? AND +project_id IN (\(OutboxRepository.listeningProjects))
            AND recorded_by IS NULL AND NOT EXISTS (SELECT 1 FROM installs i WHERE i.id = events.install_id AND i.is_test)
        ORDER BY rowid LIMIT ?
        """

    /// New installs after the log's cursor up to the newest seen, of projects that have an
    /// endpoint, not from a client's test mode, with their attributed click's network id
    /// (`InstallRepository.stored` from column 1).
    static let installsAfter = """
        SELECT i.rowid, \(InstallRepository.storedColumns.split(separator: ",").map { "i." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: ", ")),
            c.network_click_id, c.network_click_parameter, i.consent
        FROM installs i LEFT JOIN clicks c ON i.attributed AND c.click_id = i.click_id
        WHERE i.rowid > ? AND i.rowid <= ? AND +i.project_id IN (\(OutboxRepository.listeningProjects))
            AND NOT i.is_test
        ORDER BY i.rowid LIMIT ?
        """

    /// The logged facts after their cursors, once per enabled endpoint that wants their type, as
    /// pending webhook jobs (`kind, status, created_at`). Each log is the outer loop (CROSS JOIN):
    /// a range of rowids, not every fact of the endpoints' projects.
    /// Projects whose new events and installs make jobs: an endpoint or an ad-platform connection on.
    static let listeningProjects = """
        SELECT project_id FROM webhook_endpoints WHERE enabled UNION ALL SELECT project_id FROM ad_platform_connections WHERE enabled
        """

    static let loggedFactsAwaitingJobs = """
        UNION ALL SELECT 'webhook', 'pending', e.received_at FROM events e CROSS JOIN webhook_endpoints w
            WHERE e.rowid > (SELECT position FROM outbox_cursors WHERE name = 'events') AND e.recorded_by IS NULL
                AND NOT EXISTS (SELECT 1 FROM installs i WHERE i.id = e.install_id AND i.is_test)
                AND w.project_id = e.project_id AND w.enabled AND (w.events IS NULL OR instr(w.events, '"event.created"') > 0)
        UNION ALL SELECT 'webhook', 'pending', i.created_at FROM installs i CROSS JOIN webhook_endpoints w
            WHERE i.rowid > (SELECT position FROM outbox_cursors WHERE name = 'installs') AND NOT i.is_test
                AND w.project_id = i.project_id AND w.enabled AND (w.events IS NULL OR instr(w.events, '"install.created"') > 0)
        UNION ALL SELECT 'ad_platform', 'pending', e.received_at FROM events e CROSS JOIN ad_platform_connections a
            WHERE e.rowid > (SELECT position FROM outbox_cursors WHERE name = 'events') AND e.recorded_by IS NULL
                AND NOT EXISTS (SELECT 1 FROM installs i WHERE i.id = e.install_id AND i.is_test)
                AND a.project_id = e.project_id AND a.enabled
        UNION ALL SELECT 'ad_platform', 'pending', i.created_at FROM installs i CROSS JOIN ad_platform_connections a
            WHERE i.rowid > (SELECT position FROM outbox_cursors WHERE name = 'installs') AND NOT i.is_test
                AND a.project_id = i.project_id AND a.enabled
        """

    /// The newest rowid of a log's table, as the trigger of migrations 0024 and 0025 sees it.
    static func newest(_ log: OutboxLog) -> String {
        switch log {
        case .events: "SELECT coalesce(max(rowid), 0) FROM events"
        case .installs: "SELECT coalesce(max(rowid), 0) FROM installs"
        }
    }

    static func loggedEvent(_ row: some ColumnReader) -> LoggedEvent {
        LoggedEvent(
            id: row.string(1), projectID: row.string(2), installID: row.string(3), userID: row.optionalString(4),
            name: row.string(5), data: row.optionalString(6), revenue: row.optionalDouble(7), currency: row.optionalString(8),
            occurredAt: Timestamp(milliseconds: row.int(9)), receivedAt: Timestamp(milliseconds: row.int(10)))
    }

    /// How many new jobs one move takes into `outbox_jobs`.
    static let promotionBatch = 4096

    /// Moves the oldest new jobs into `outbox_jobs` (due at once), on the writer's transaction;
    /// whether there were any.
    ///
    /// On PostgreSQL the move is one statement that inserts exactly the rows it deletes. Two
    /// statements (copy the rows up to a `seq`, then delete the rows up to it) lost jobs there:
    /// with several write lanes, `seq` values commit out of order, and under READ COMMITTED each
    /// statement sees its own snapshot, so a job with a lower `seq` committed between the two was
    /// deleted without having been copied (0.3–0.9% of installs and events under 8 writers on 4
    /// lanes). SQLite's one writer commits nothing between them, and has no DELETE in a `WITH`.
    @discardableResult
    static func promote<C: StoreSession>(_ connection: C, dueBy now: Timestamp) throws -> Bool {
        try connection.writeHeld()
        guard
            let last = try connection.queryOne(
                "SELECT max(seq) FROM (SELECT seq FROM outbox_new ORDER BY seq LIMIT ?) AS batch", promotionBatch, map: { $0.optionalInt(0) }) ?? nil
        else { return false }
        if C.hasConcurrentWriters {
            try connection.run(promoteInOneStatement, last, now.milliseconds)
            return true
        }
        try connection.run(
            """
            INSERT INTO outbox_jobs (id, project_id, kind, target_id, target_url, event_id, event_type, payload,
                next_attempt_at, created_at, install_id)
            \(expandingEveryPlatform(from: "(SELECT * FROM outbox_new WHERE seq <= ?1)"))
            ON CONFLICT DO NOTHING
            """, last, now.milliseconds)
        try connection.run("DELETE FROM outbox_new WHERE seq <= ?", last)
        return true
    }

    static let promoteInOneStatement = """
        WITH moved AS (DELETE FROM outbox_new WHERE seq <= ?1
            RETURNING seq, id, project_id, kind, target_id, target_url, event_id, event_type, payload, created_at, install_id)
        INSERT INTO outbox_jobs (id, project_id, kind, target_id, target_url, event_id, event_type, payload,
            next_attempt_at, created_at, install_id)
        \(expandingEveryPlatform(from: "moved"))
        ON CONFLICT DO NOTHING
        """

    /// The new jobs of `source` as rows of `outbox_jobs`, due by ?2, in the order they were
    /// written: an ad-platform job for every platform (no target) is one job per platform the
    /// project has connected now (`AdPlatformJob.everyPlatform`), its id suffixed by the platform.
    static func expandingEveryPlatform(from source: String) -> String {
        """
        SELECT id, project_id, kind, target_id, target_url, event_id, event_type, payload, due, created_at, install_id FROM (
            SELECT seq, '' AS platform, id, project_id, kind, target_id, target_url, event_id, event_type, payload,
                CASE WHEN created_at < ?2 THEN created_at ELSE ?2 END AS due, created_at, install_id
            FROM \(source) AS n WHERE n.kind <> 'ad_platform' OR n.target_id IS NOT NULL
            UNION ALL
            SELECT n.seq, c.platform, n.id || '.' || c.platform, n.project_id, n.kind, c.platform, 'ad-platform://' || c.platform,
                n.event_id, n.event_type, n.payload, CASE WHEN n.created_at < ?2 THEN n.created_at ELSE ?2 END, n.created_at, n.install_id
            FROM \(source) AS n JOIN ad_platform_connections c ON c.project_id = n.project_id AND c.enabled
            WHERE n.kind = 'ad_platform' AND n.target_id IS NULL) AS expanded
        ORDER BY seq, platform
        """
    }

    /// Erasure: the install's jobs, sent or not, whose payloads tell of it. `outbox_new` has no
    /// index on the install (a request writes one tree), so its jobs are moved first. Where its
    /// installs and events are the outbox's log, a move that read them before the erasure must not
    /// write their jobs after it: the logs' generation changes, so that move writes nothing.
    static func deleteJobs(ofInstall installID: String, _ connection: some StoreSession) throws {
        while try promote(connection, dueBy: SystemClock().now()) {}
        try connection.run(deleteJobsOfInstall, installID)
        if !type(of: connection).hasConcurrentWriters {
            try connection.run("UPDATE outbox_cursors SET generation = generation + 1")
        }
    }

    static let deleteJobsOfInstall = "DELETE FROM outbox_jobs WHERE install_id = ?"

    /// Runs `notify` for a fact of the install and writes its jobs, on the fact's transaction.
    static func notify<Fact>(_ notify: Notifier<Fact>?, _ fact: Fact, installID: String, _ connection: some StoreSession) throws {
        guard let notify else { return }
        let source = InstallFactsSource(installID: installID) { try installFacts(installID: installID, connection) }
        try insert(notify(fact, source), installID: installID, connection)
    }

    /// The install's fields and its attributed click, in one read (the click by its unique id).
    static func installFacts(installID: String, _ connection: some StoreSession) throws -> InstallFacts? {
        try connection.queryOne(
            """
            SELECT i.id, i.platform, i.app_version, i.ip, i.user_agent, i.idfv, i.advertising_id, i.country, c.click_id, c.link_id,
                c.utm_source, c.utm_medium, c.utm_campaign, c.utm_term, c.utm_content, c.network_click_id, c.network_click_parameter,
                c.country AS click_country
            FROM installs i LEFT JOIN clicks c ON i.attributed AND c.click_id = i.click_id
            WHERE i.id = ?
            """, installID
        ) { row in
            let click = row.optionalString("click_id").map { clickID in
                AttributedClick(
                    clickID: clickID, linkID: row.optionalString("link_id"),
                    utm: UTM(
                        source: row.optionalString("utm_source"), medium: row.optionalString("utm_medium"),
                        campaign: row.optionalString("utm_campaign"), term: row.optionalString("utm_term"),
                        content: row.optionalString("utm_content")),
                    networkClickID: row.optionalString("network_click_id").map {
                        NetworkClickID(parameter: row.optionalString("network_click_parameter") ?? "", value: $0)
                    }, country: row.optionalString("click_country"))
            }
            return InstallFacts(
                installID: row.string("id"), platform: row.optionalString("platform"), appVersion: row.optionalString("app_version"),
                ip: row.optionalString("ip"), userAgent: row.optionalString("user_agent"), idfv: row.optionalString("idfv"),
                advertisingID: row.optionalString("advertising_id"), country: row.optionalString("country"), click: click)
        }
    }

    static let jobColumns = """
        id, project_id, kind, target_id, target_url, event_id, event_type, payload, status, attempts, next_attempt_at,
        last_status_code, last_error, last_response, created_at, delivered_at, last_request
        """

    static func job(_ row: some ColumnReader) -> OutboxJob {
        OutboxJob(
            message: OutboxMessage(
                id: row.string("id"), projectID: row.string("project_id"), kind: row.string("kind"),
                targetID: row.optionalString("target_id"), targetURL: row.string("target_url"),
                eventID: row.string("event_id"), eventType: row.string("event_type"),
                payload: row.string("payload"), createdAt: Timestamp(milliseconds: row.int("created_at"))),
            status: OutboxJob.Status(rawValue: row.string("status")) ?? .pending, attempts: Int(row.int("attempts")),
            nextAttemptAt: Timestamp(milliseconds: row.int("next_attempt_at")),
            lastStatusCode: row.optionalInt("last_status_code").map(Int.init), lastError: row.optionalString("last_error"),
            lastResponse: row.optionalString("last_response"),
            deliveredAt: row.optionalInt("delivered_at").map(Timestamp.init(milliseconds:)), lastRequest: row.optionalString("last_request"))
    }

    static let claim = """
        UPDATE outbox_jobs SET lease_until = ?
        WHERE id IN (SELECT id FROM outbox_jobs
                     WHERE status = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
                     ORDER BY next_attempt_at LIMIT ?)
        RETURNING \(jobColumns)
        """
    static let claimSkippingLocked = """
        UPDATE outbox_jobs SET lease_until = ?1
        WHERE id IN (SELECT id FROM outbox_jobs
                     WHERE status = 'pending' AND next_attempt_at <= ?2 AND (lease_until IS NULL OR lease_until <= ?3)
                     ORDER BY next_attempt_at LIMIT ?4 FOR UPDATE SKIP LOCKED)
        RETURNING \(jobColumns)
        """
}
