import Attribution
import Foundation
import JSON
import Logging
import StoreContracts

/// How the delivery worker sends an `ad_platform` job and what the platform's answer does
/// (docs/ad-platforms/): the request is made from the install as it is now; 2xx is delivered
/// (Google's answer may carry a claim, TikTok's its own error code); 400, 401, 403, 404 and 422
/// are final (the same request would fail again); 429 and 5xx take the outbox's backoff, with
/// `Retry-After`. A job's deduplication key never changes, so a retry is one event at the platform.
struct AdPlatformDelivery: Sendable {
    let store: any StoreBackend
    let settings: AdPlatformSettings
    let outbound: OutboundMessages
    let projects: ProjectCache
    let counters: DeliveryCounters
    let clock: any Clock

    static let logger = Logger(label: "attributiond.ad-platforms")

    /// Query parameters and headers that carry credentials.
    static let secretParameters: Set<String> = ["access_token", "dev_token"]
    static let secretHeaders: Set<String> = ["access-token", "authorization"]

    /// A request as the deliveries list shows it: method, URL, headers and body, credentials
    /// replaced by `[redacted]`.
    static func shown(_ request: OutboundRequest) -> String {
        var url = request.url
        if let mark = url.firstIndex(of: "?") {
            let query = url[url.index(after: mark)...].split(separator: "&").map { pair -> String in
                let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
                return secretParameters.contains(name) ? name + "=[redacted]" : String(pair)
            }
            url = String(url[..<mark]) + "?" + query.joined(separator: "&")
        }
        var lines = ["\(request.method) \(url)"]
        for header in request.headers {
            lines.append("\(header.name): \(secretHeaders.contains(header.name.lowercased()) ? "[redacted]" : header.value)")
        }
        if !request.body.isEmpty { lines += ["", String(decoding: request.body, as: UTF8.self)] }
        return lines.joined(separator: "\n")
    }
    static let finalStatuses: Set<Int> = [400, 401, 403, 404, 422]

    func request(for message: OutboxMessage, userAgent: String) -> Result<OutboundRequest, OutboxWorker.Refusal> {
        guard let job = AdPlatformJob.read(message) else { return .failure(.init(reason: "the job's payload is not readable")) }
        let refuse: (AdPlatformRefusal) -> Result<OutboundRequest, OutboxWorker.Refusal> = { refusal in
            counters.recordRefusal(platform: job.platform.rawValue, reason: refusal.counted)
            return .failure(.init(reason: refusal.reason))
        }
        guard let connection = try? store.adPlatforms.connection(projectID: message.projectID, platform: job.platform), connection.enabled else {
            return refuse(.init(reason: "the \(job.platform.displayName) connection was removed or turned off", counted: "not_configured"))
        }
        let project = try? projects.project(forID: message.projectID, repository: store.projects)
        let facts: AdDeliveryFacts
        if job.test == true {
            facts = Self.testFacts(connection: connection, at: clock.now())
        } else {
            guard let installID = job.installID,
                let stored = try? store.adPlatforms.deliveryFacts(installID: installID)
            else {
                return refuse(.init(reason: "the install was erased", counted: "erased"))
            }
            facts = stored
        }
        let consent = facts.consent.resolved(default: project?.settings.defaultConsent ?? Consent())
        if job.platform == .meta, job.conversion.kind == .install, job.test != true, let referrer = facts.signals.metaInstallReferrer,
            let key = connection.secrets["install_referrer_key"], let installID = job.installID
        {
            claimMetaReferrer(referrer, key: key, installID: installID, projectID: message.projectID)
        }
        let input = AdPlatformDeliveryInput(
            conversion: job.conversion, facts: facts, connection: connection, consent: consent, userAgent: userAgent, isTest: job.test == true)
        let base = settings.baseURL(of: job.platform)
        let built: Result<OutboundRequest, AdPlatformRefusal> =
            switch job.platform {
            case .google:
                GoogleAdsRequest.request(
                    input, baseURL: base, crossNetwork: job.crossNetwork.map { ($0.adEventID, $0.attributed) })
            case .meta: MetaConversionsRequest.request(input, baseURL: base)
            case .tiktok: TikTokEventsRequest.request(input, baseURL: base)
            case .snap: SnapConversionsRequest.request(input, baseURL: base, now: clock.now())
            }
        switch built {
        case .success(let request): return .success(request)
        case .failure(let refusal): return refuse(refusal)
        }
    }

    /// What an attempt comes to beyond the standard handling.
    func handle(_ result: Result<OutboundResponse, any Error>, job message: OutboxJob, now: Timestamp) -> AppleAdsExchange.Handling {
        guard case .success(let response) = result, let job = AdPlatformJob.read(message.message) else { return .standard }
        if Self.finalStatuses.contains(response.statusCode) {
            return .record(
                .failed(statusCode: response.statusCode, error: "\(job.platform.displayName) refused the request", response: response.shownBody))
        }
        guard (200..<300).contains(response.statusCode) else { return .standard }
        switch job.platform {
        case .tiktok:
            if let (code, text) = TikTokEventsRequest.code(ofAnswer: response.bodyPrefix), code != 0 {
                let error = "TikTok answered code \(code): \(text)"
                if TikTokEventsRequest.isTransient(code) {
                    return .record(
                        .retry(
                            at: DeliverySchedule.standard.nextAttempt(afterAttempts: message.attempts + 1, now: now, retryAfterSeconds: nil)
                                ?? now.adding(seconds: 60), statusCode: response.statusCode, error: error, response: response.shownBody))
                }
                return .record(.failed(statusCode: response.statusCode, error: error, response: response.shownBody))
            }
        case .google where job.conversion.kind == .install && job.crossNetwork == nil && job.test != true:
            recordGoogleAnswer(response.bodyPrefix, job: job, message: message.message, now: now)
        default: break
        }
        return .record(.delivered(statusCode: response.statusCode, response: response.shownBody))
    }

    /// Google's answer to a first_open: a claim kept, the install's when it wins, and the
    /// cross-network call saying who won.
    private func recordGoogleAnswer(_ body: String, job: AdPlatformJob, message: OutboxMessage, now: Timestamp) {
        guard let installID = job.installID, let answer = GoogleAdsRequest.claim(fromAnswer: body), answer.attributed,
            let claim = answer.claim
        else { return }
        do {
            let won = try record(claim, payload: body, installID: installID, projectID: message.projectID, now: now)
            if let adEventID = claim.adEventID {
                let crossNetwork = AdPlatformJob(
                    platform: .google, conversion: job.conversion, installID: installID, crossNetwork: .init(adEventID: adEventID, attributed: won))
                try store.outbox.enqueue([crossNetwork.message(projectID: message.projectID, at: now)])
            }
        } catch {
            Self.logger.warning("could not record Google's claim", metadata: ["install": "\(installID)", "error": "\(error)"])
        }
    }

    /// Meta's install referrer, decrypted, is a claim on the install: recorded off the worker's
    /// thread (it writes), once per install job (a retry records the same claim again, unchanged).
    private func claimMetaReferrer(_ referrer: String, key: String, installID: String, projectID: String) {
        guard let (claim, plaintext) = MetaInstallReferrer.decrypt(referrer, keyHex: key) else {
            Self.logger.info("an install's Meta referrer does not open with the connection's key", metadata: ["install": "\(installID)"])
            return
        }
        let now = clock.now()
        DispatchQueue.global().async {
            do { _ = try record(claim, payload: plaintext, installID: installID, projectID: projectID, now: now) } catch {
                Self.logger.warning("could not record Meta's install referrer", metadata: ["install": "\(installID)", "error": "\(error)"])
            }
        }
    }

    /// Keeps a platform's claim on the install; whether the install is the platform's now.
    func record(_ claim: AdPlatformClaim, payload: String, installID: String, projectID: String, now: Timestamp) throws -> Bool {
        let project = try projects.project(forID: projectID, repository: store.projects)
        let notify: Notifier<AdClaimAttribution>? = try project.flatMap { project in
            try outbound.notifier(.installAttributed, trigger: nil, projectID: project.id, at: now) { (attributed: AdClaimAttribution, _) in
                WebhookEvents.adPlatformAttribution(attributed, project: project)
            }
        }
        _ = try store.adPlatforms.recordClaim(
            claim, payload: payload, installID: installID, at: now,
            wins: { match, installedAt in AdPlatformPrecedence.claimWins(claim, over: match, installedAt: installedAt) }, notify: notify)
        return try store.adPlatforms.claims(installID: installID).contains { $0.claim.source == claim.source && $0.won }
    }

    /// A connection's test event stands for a device that never was: an iOS device when the
    /// connection has an iOS link id or no Android one.
    static func testFacts(connection: AdPlatformConnection, at time: Timestamp) -> AdDeliveryFacts {
        let android = connection.settings["link_id_android"] != nil && connection.settings["link_id_ios"] == nil
        return AdDeliveryFacts(
            install: InstallFacts(
                installID: "test-install", platform: android ? "android" : "ios", appVersion: "1.0", ip: "203.0.113.7",
                userAgent: android ? "App/1.0 (Android 14; en_US; Pixel 8; Build/AP1A)" : "App/1.0 (iOS 17.4; en_US; iPhone15,2; Build/21E219)",
                idfv: android ? nil : "00000000-0000-4000-8000-000000000001",
                advertisingID: "00000000-0000-4000-8000-000000000000"),
            osVersion: android ? "14" : "17.4", deviceModel: android ? "Pixel 8" : "iPhone15,2", locale: "en_US",
            consent: Consent(eea: false, adUserData: true, adPersonalization: true, attStatus: android ? nil : .authorized),
            createdAt: time, isTest: true)
    }
}
