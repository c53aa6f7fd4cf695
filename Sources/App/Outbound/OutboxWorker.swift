import Attribution
public import Dispatch
import Foundation
import JSON
public import Lifecycle
import Logging
public import StoreContracts
import Synchronization

/// Delivers outbox jobs: claims due ones with a lease, sends each through the transport
/// (signed, for webhooks), and records the attempt. At most `perHost` requests to one host at a
/// time; jobs waiting for a slot keep their lease. One thread claims; completions run on the
/// transport's threads.
public final class OutboxWorker: Service, @unchecked Sendable {
    public let serviceName = "outbox"
    private let logger = Logger(label: "attributiond.outbox")
    public struct Settings: Sendable {
        public var schedule = DeliverySchedule.standard
        /// Jobs in flight at once, over all hosts.
        public var concurrency = 32
        public var perHost = 8
        /// Longer than the longest attempt (the transport's total timeout, 15 s by default).
        public var leaseSeconds: Int64 = 20
        /// How often due jobs are looked for when nothing wakes the worker.
        public var pollSeconds = 1.0
        /// Delivered jobs are deleted once this old (0 keeps them).
        public var deliveredRetentionHours = 168
        public var userAgent = "attributiond"
        /// Where events and installs are the outbox's log: how long after one move of new facts
        /// into jobs the next may start (each is a write transaction; the wait lets facts gather).
        public var factLogMoveSeconds = 0.02
        /// Told of every job that failed for good (no more attempts): a log line, in the server.
        public var onFinalFailure: @Sendable (_ job: OutboxMessage, _ attempts: Int, _ error: String) -> Void = { _, _, _ in }

        public init() {}
    }

    private let store: any StoreBackend
    private let transport: any OutboundTransport
    private let clock: any Clock
    private let settings: Settings
    private let lookupEndpoint: @Sendable (_ id: String, _ projectID: String) throws -> WebhookEndpoint?
    private let appleAds: AppleAdsExchange?
    private let adPlatforms: AdPlatformDelivery?
    private let factLog: OutboxLogJobs?
    public let counters: DeliveryCounters

    // Everything below is only touched under `lock`.
    private let lock = NSCondition()
    private var stopping = false
    private var running = false
    private var wakeRequested = false
    private var factsStored = false
    private var inFlightByHost: [String: Int] = [:]
    private var waiting: [OutboxJob] = []
    private var inFlight = 0

    init(
        store: any StoreBackend, transport: any OutboundTransport, clock: any Clock,
        settings: Settings, counters: DeliveryCounters, appleAds: AppleAdsExchange? = nil, adPlatforms: AdPlatformDelivery? = nil,
        factLog: OutboxLogJobs? = nil,
        endpoint: @escaping @Sendable (String, String) throws -> WebhookEndpoint?
    ) {
        self.store = store
        self.appleAds = appleAds
        self.adPlatforms = adPlatforms
        self.factLog = store.outbox.factsAreALog ? factLog : nil
        self.transport = transport
        self.clock = clock
        self.settings = settings
        self.counters = counters
        lookupEndpoint = endpoint
    }

    public func start() {
        lock.lock()
        running = true
        lock.unlock()
        let thread = Thread { [self] in run() }
        thread.name = "outbox"
        thread.start()
    }

    /// Looks for due jobs now (a commit wrote some).
    public func wake() {
        lock.lock()
        wakeRequested = true
        lock.signal()
        lock.unlock()
    }

    /// Events or installs were stored: they are made into jobs at the next move (one wake-up per
    /// move, not per commit).
    public func factsCommitted() {
        guard factLog != nil else { return }
        lock.lock()
        if !factsStored {
            factsStored = true
            lock.signal()
        }
        lock.unlock()
    }

    /// `stop(drainSeconds:)` with what is left until `deadline`.
    public func stop(by deadline: DispatchTime) {
        let now = DispatchTime.now()
        stop(drainSeconds: deadline > now ? Double(deadline.uptimeNanoseconds - now.uptimeNanoseconds) / 1e9 : 0)
    }

    /// Stops claiming, waits up to `drainSeconds` for requests in flight, and lets go of the
    /// leases of jobs that were claimed but not sent (the next start sends them).
    public func stop(drainSeconds: Double) {
        lock.lock()
        stopping = true
        lock.broadcast()
        let deadline = Date().addingTimeInterval(drainSeconds)
        while inFlight > 0 || running, lock.wait(until: deadline) {}
        let unsent = waiting.map(\.message.id)
        waiting.removeAll()
        lock.unlock()
        do { try store.outbox.release(jobIDs: unsent) } catch {
            logger.warning(
                "could not release the leases of unsent jobs; they go out when the leases end",
                metadata: ["jobs": "\(unsent.count)", "error": "\(error)"])
        }
    }

    private func run() {
        var lastPrune = Date.distantPast
        var lastMove = Date.distantPast
        var lastClaim = Date.distantPast
        while true {
            lock.lock()
            if stopping {
                lock.unlock()
                // The installs and events of the server's last requests get their jobs now, not at the next start.
                _ = moveLoggedFacts()
                lock.lock()
                running = false
                lock.broadcast()
                lock.unlock()
                return
            }
            let room = settings.concurrency - inFlight - waiting.count
            // Woken by a commit of jobs or an answer, or not looked for due jobs for a poll's time.
            let claimWanted = wakeRequested || Date().timeIntervalSince(lastClaim) >= settings.pollSeconds
            wakeRequested = false
            // Also once a poll's time: another process on the same file stores facts unheard.
            let sinceMove = Date().timeIntervalSince(lastMove)
            let moveDue = factLog != nil && (factsStored && sinceMove >= settings.factLogMoveSeconds || sinceMove >= settings.pollSeconds)
            if moveDue { factsStored = false }
            lock.unlock()
            if moveDue {
                lastMove = Date()
                if !moveLoggedFacts() {
                    lock.lock()
                    factsStored = true
                    lock.unlock()
                }
            }
            if room > 0, claimWanted {
                lastClaim = Date()
                let now = clock.now()
                let claimed: [OutboxJob]
                do { claimed = try store.outbox.claimDue(now: now, leaseUntil: now.adding(seconds: settings.leaseSeconds), limit: room) } catch {
                    logger.warning("could not claim due jobs; trying again at the next poll", metadata: ["error": "\(error)"])
                    claimed = []
                }
                lock.lock()
                waiting.append(contentsOf: claimed)
                lock.unlock()
            }
            dispatchWaiting()
            if Date().timeIntervalSince(lastPrune) > 600 {
                lastPrune = Date()
                if settings.deliveredRetentionHours > 0 {
                    do {
                        _ = try store.outbox.pruneDelivered(before: clock.now().adding(seconds: -Int64(settings.deliveredRetentionHours) * 3600))
                    } catch {
                        logger.warning("could not prune delivered jobs", metadata: ["error": "\(error)"])
                    }
                }
                // AdServices tokens are not kept past their 24 h life, answered or not.
                do { _ = try store.appleAds.expireTokens(receivedBefore: clock.now().adding(seconds: -AppleAdsExchange.tokenLifetimeSeconds)) } catch
                {
                    logger.warning("could not expire AdServices tokens", metadata: ["error": "\(error)"])
                }
            }
            lock.lock()
            if !wakeRequested && !stopping {
                // Facts stored before a move's wait is over are moved when it is.
                let moveAt = factsStored ? lastMove.addingTimeInterval(settings.factLogMoveSeconds) : .distantFuture
                _ = lock.wait(until: min(moveAt, lastClaim.addingTimeInterval(settings.pollSeconds)))
            }
            lock.unlock()
        }
    }

    /// Turns the events and installs stored since the last move into their jobs, a batch at a
    /// time; whether none are left. A failure leaves a cursor where it was: the next move reads
    /// the same facts again.
    private func moveLoggedFacts() -> Bool {
        guard let factLog else { return true }
        do {
            let installs = try move(read: { try store.outbox.loggedInstalls(limit: $0) }, jobs: factLog.messages(for:))
            let events = try move(read: { try store.outbox.loggedEvents(limit: $0) }, jobs: factLog.messages(for:))
            return installs && events
        } catch {
            logger.warning("could not make jobs of stored facts; trying again at the next move", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// Moves one log's facts into jobs until it is done or has had 16 batches; whether it is done.
    private func move<Fact>(read: (Int) throws -> OutboxLogBatch<Fact>, jobs: ([Fact]) throws -> [OutboxMessage]) throws -> Bool {
        for _ in 0..<16 {
            let batch = try read(Self.factLogBatch)
            guard batch.position.movesCursor else { return true }
            let moved = try store.outbox.enqueue(try jobs(batch.facts), movingLog: batch.position)
            if moved, batch.facts.count < Self.factLogBatch { return true }
        }
        return false
    }

    static let factLogBatch = 2048

    /// Sends every waiting job whose host has a free slot.
    private func dispatchWaiting() {
        lock.lock()
        var ready: [(OutboxJob, String)] = []
        var stillWaiting: [OutboxJob] = []
        for job in waiting {
            let host = URLComponents(string: job.message.targetURL)?.host?.lowercased() ?? ""
            if inFlightByHost[host, default: 0] < settings.perHost, !stopping {
                inFlightByHost[host, default: 0] += 1
                inFlight += 1
                ready.append((job, host))
            } else {
                stillWaiting.append(job)
            }
        }
        waiting = stillWaiting
        lock.unlock()
        for (job, host) in ready {
            counters.inFlight.add(1, ordering: .relaxed)
            // The host's slot is free as soon as the receiver answered; the job counts as in
            // flight until its attempt is recorded (a stop waits for that).
            let answered: @Sendable () -> Void = { [self] in
                counters.inFlight.subtract(1, ordering: .relaxed)
                lock.lock()
                inFlightByHost[host, default: 1] -= 1
                if inFlightByHost[host] == 0 { inFlightByHost[host] = nil }
                wakeRequested = true
                lock.broadcast()
                lock.unlock()
            }
            deliver(job, answered: answered) { [self] in
                lock.lock()
                inFlight -= 1
                lock.broadcast()
                lock.unlock()
            }
        }
    }

    private func deliver(_ job: OutboxJob, answered: @escaping @Sendable () -> Void, done: @escaping @Sendable () -> Void) {
        var job = job
        let message = job.message
        let request: OutboundRequest
        switch prepare(message) {
        case .success(let prepared):
            request = prepared
            // A request made when the job is sent is kept for the deliveries list, secrets redacted.
            if message.kind == AdPlatform.jobKind { job.lastRequest = AdPlatformDelivery.shown(prepared) }
        case .failure(let refusal):
            answered()
            return record(.failed(statusCode: nil, error: refusal.reason, response: nil), job: job, then: done)
        }
        // The address itself is checked by the transport when it connects (after DNS).
        if let refusal = OutboundAddressPolicy.syntaxRefusal(for: request.url) {
            answered()
            return record(.failed(statusCode: nil, error: "refused: url \(refusal)", response: nil), job: job, then: done)
        }
        let started = DispatchTime.now().uptimeNanoseconds
        let sent = job
        transport.send(request) { [self] result in
            let job = sent
            let now = clock.now()
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            counters.recordAttempt(kind: message.kind, statusCode: try? result.get().statusCode, seconds: seconds)
            answered()
            if message.kind == "apple_ads", let appleAds {
                // Apple's answer is recorded with waited-for writes: off the transport's thread,
                // which every other delivery shares.
                return DispatchQueue.global().async { [self] in
                    guard case .record(let outcome) = appleAds.handle(result, job: job, now: now) else {
                        return recordStandard(result, job: job, now: now, then: done)
                    }
                    record(outcome, job: job, then: done)
                }
            }
            if message.kind == AdPlatform.jobKind, let adPlatforms {
                // A claim in Google's answer is recorded with waited-for writes, as Apple's is.
                return DispatchQueue.global().async { [self] in
                    guard case .record(let outcome) = adPlatforms.handle(result, job: job, now: now) else {
                        return recordStandard(result, job: job, now: now, then: done)
                    }
                    record(outcome, job: job, then: done)
                }
            }
            recordStandard(result, job: job, now: now, then: done)
        }
    }

    /// What an attempt comes to for every kind: 2xx delivered, 410 disables a webhook endpoint,
    /// anything else retried on the schedule (`Retry-After` honoured), a refused address final.
    private func recordStandard(
        _ result: Result<OutboundResponse, any Error>, job: OutboxJob, now: Timestamp,
        then done: @escaping @Sendable () -> Void
    ) {
        let message = job.message
        let attempts = job.attempts + 1
        switch result {
        case .success(let response) where (200..<300).contains(response.statusCode):
            record(.delivered(statusCode: response.statusCode, response: response.shownBody), job: job, then: done)
        case .success(let response) where response.statusCode == 410 && message.kind == "webhook":
            if let id = message.targetID {
                do { try store.outbox.disableEndpoint(id: id, reason: "410 Gone", now: now) } catch {
                    logger.warning("could not disable an endpoint that answered 410", metadata: ["endpoint": "\(id)", "error": "\(error)"])
                }
            }
            record(
                .failed(statusCode: 410, error: "the receiver answered 410 Gone: endpoint disabled", response: response.shownBody),
                job: job, then: done)
        case .success(let response):
            let retryAfter = DeliverySchedule.retryAfterSeconds(response.headers["retry-after"], now: now)
            retryOrFail(
                job, attempts: attempts, now: now, retryAfter: retryAfter, statusCode: response.statusCode,
                error: "HTTP \(response.statusCode)", response: response.shownBody, then: done)
        case .failure(let error as OutboundAddressRefused):
            record(.failed(statusCode: nil, error: error.description, response: nil), job: job, then: done)
        case .failure(let error):
            retryOrFail(
                job, attempts: attempts, now: now, retryAfter: nil, statusCode: nil,
                error: String(describing: error).prefix(characters: 512), response: nil, then: done)
        }
    }

    private func retryOrFail(
        _ job: OutboxJob, attempts: Int, now: Timestamp, retryAfter: Double?, statusCode: Int?,
        error: String, response: String?, then done: @escaping @Sendable () -> Void
    ) {
        if let next = settings.schedule.nextAttempt(afterAttempts: attempts, now: now, retryAfterSeconds: retryAfter) {
            record(.retry(at: next, statusCode: statusCode, error: error, response: response), job: job, then: done)
        } else {
            record(.failed(statusCode: statusCode, error: error, response: response), job: job, then: done)
        }
    }

    /// Records the attempt (queued: concurrent attempts commit together), then calls `done`.
    private func record(_ outcome: DeliveryOutcome, job: OutboxJob, then done: @escaping @Sendable () -> Void) {
        if case .failed(_, let error, _) = outcome { settings.onFinalFailure(job.message, job.attempts + 1, error ?? "failed") }
        store.outbox.record(outcome, request: job.lastRequest, jobID: job.message.id, now: clock.now()) { _ in done() }
    }

    struct Refusal: Error { let reason: String }

    /// The request a job sends: a webhook signed with its endpoint's secrets (both during a
    /// rotation), a postback as its template made it.
    private func prepare(_ message: OutboxMessage) -> Result<OutboundRequest, Refusal> {
        if message.kind == "postback" { return postbackRequest(message) }
        if message.kind == "skan_copy" {
            // Apple's copy as it arrived: a receiver checks Apple's signature itself.
            return .success(
                OutboundRequest(
                    method: "POST", url: message.targetURL,
                    headers: [("content-type", "application/json"), ("user-agent", settings.userAgent)], body: Array(message.payload.utf8)))
        }
        if message.kind == "apple_ads", let appleAds { return appleAds.request(for: message, now: clock.now(), userAgent: settings.userAgent) }
        if message.kind == AdPlatform.jobKind, let adPlatforms { return adPlatforms.request(for: message, userAgent: settings.userAgent) }
        let body = Array(message.payload.utf8)
        guard message.kind == "webhook" else {
            return .failure(Refusal(reason: "no sender for jobs of kind '\(message.kind)'"))
        }
        guard let id = message.targetID, let endpoint = try? lookupEndpoint(id, message.projectID) else {
            return .failure(Refusal(reason: "the webhook endpoint was deleted"))
        }
        guard endpoint.enabled else { return .failure(Refusal(reason: "the webhook endpoint is disabled")) }
        let now = clock.now()
        var secrets = [endpoint.secret]
        if let previous = endpoint.previousSecret, let until = endpoint.previousSecretUntil, until > now { secrets.append(previous) }
        let timestamp = now.milliseconds / 1000
        return .success(
            OutboundRequest(
                method: "POST", url: endpoint.url,
                headers: [
                    ("content-type", "application/json"), ("user-agent", settings.userAgent),
                    ("webhook-id", message.eventID), ("webhook-timestamp", String(timestamp)),
                    ("webhook-signature", WebhookSignature.header(id: message.eventID, timestamp: timestamp, body: body, secrets: secrets)),
                ], body: body))
    }

    /// A postback as its template made it: method, URL and body in the job.
    private func postbackRequest(_ message: OutboxMessage) -> Result<OutboundRequest, Refusal> {
        guard case .object(let payload)? = try? JSONDecoder().decode(JSONValue.self, from: Data(message.payload.utf8)),
            case .string(let method)? = payload["method"]
        else {
            return .failure(Refusal(reason: "the postback job's payload is not readable"))
        }
        var headers: [(name: String, value: String)] = [("user-agent", settings.userAgent)]
        var body: [UInt8] = []
        if case .string(let text)? = payload["body"] {
            body = Array(text.utf8)
            if case .string(let type)? = payload["content_type"] { headers.append(("content-type", type)) }
        }
        return .success(OutboundRequest(method: method, url: message.targetURL, headers: headers, body: body))
    }
}
