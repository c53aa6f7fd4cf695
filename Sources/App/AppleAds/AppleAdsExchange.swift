import Attribution
import Foundation
import JSON
import Logging
import StoreContracts

/// How the delivery worker sends an `apple_ads` job and what Apple's answer does (docs/outbound.md,
/// "Apple Ads (AdServices) exchange"): the install's token as `text/plain`; 200 records the answer (and the
/// attribution, when the claim wins); 404 "not yet" is asked again every `retrySeconds`, three
/// times, then once more a minute later; 400 is final. Anything else (5xx, a network error, a
/// timeout) takes the outbox's own backoff.
struct AppleAdsExchange: Sendable {
    /// What becomes of an attempt.
    enum Handling: Equatable {
        case record(DeliveryOutcome)
        /// The worker's own handling: retried on its schedule.
        case standard
    }

    /// Apple's tokens live 24 hours.
    static let tokenLifetimeSeconds: Int64 = 86_400
    /// 404s asked again at `retrySeconds`; the next one waits `lateRetryFactor` times as long.
    static let quickRetries = 3
    static let lateRetryFactor = 12.0
    /// Apple's answer is a few hundred bytes; more than this is not one.
    static let answerBytes = 16_384

    let store: any StoreBackend
    let settings: AppleAdsSettings
    let outbound: OutboundMessages
    let projects: ProjectCache
    /// Told of every attributed answer (the names of its campaign, ad group and keyword).
    var onAttributed: (@Sendable (_ projectID: String, _ answer: AppleAdsAnswer) -> Void)? = nil

    func request(for message: OutboxMessage, now: Timestamp, userAgent: String) -> Result<OutboundRequest, OutboxWorker.Refusal> {
        guard let installID = message.targetID, let pending = try? store.appleAds.pendingToken(installID: installID) else {
            return .failure(.init(reason: "no token to exchange (answered, erased or expired)"))
        }
        guard (try? projects.project(forID: message.projectID, repository: store.projects))??.settings.appleAds != false else {
            recordFailure(installID: installID)
            return .failure(.init(reason: "the project turned Apple Ads off"))
        }
        guard now.milliseconds - pending.receivedAt.milliseconds < Self.tokenLifetimeSeconds * 1000 else {
            recordFailure(installID: installID)
            return .failure(.init(reason: "the token expired before Apple answered"))
        }
        return .success(
            OutboundRequest(
                method: "POST", url: message.targetURL,
                headers: [("content-type", "text/plain"), ("user-agent", userAgent)], body: Array(pending.token.utf8),
                keptResponseBytes: Self.answerBytes))
    }

    func handle(_ result: Result<OutboundResponse, any Error>, job: OutboxJob, now: Timestamp) -> Handling {
        guard case .success(let response) = result, let installID = job.message.targetID else { return .standard }
        do {
            switch response.statusCode {
            case 200:
                guard let json = try? JSONDecoder().decode(JSONValue.self, from: Data(response.bodyPrefix.utf8)),
                    let answer = AppleAdsAnswer(json: json)
                else {
                    try store.appleAds.recordFailure(installID: installID)
                    return .record(.failed(statusCode: 200, error: "Apple's answer is not an attribution record", response: response.shownBody))
                }
                try recordAnswer(answer, payload: response.bodyPrefix, installID: installID, projectID: job.message.projectID, now: now)
                return .record(.delivered(statusCode: 200, response: response.shownBody))
            case 404:
                let answers = try store.appleAds.recordNotFound(installID: installID)
                guard answers <= Self.quickRetries else {
                    try store.appleAds.recordFailure(installID: installID)
                    return .record(.failed(statusCode: 404, error: "no attribution record after \(answers) tries", response: response.shownBody))
                }
                let wait = settings.retrySeconds * (answers == Self.quickRetries ? Self.lateRetryFactor : 1)
                return .record(
                    .retry(
                        at: Timestamp(milliseconds: now.milliseconds + Int64(wait * 1000)), statusCode: 404,
                        error: "not available yet", response: response.shownBody))
            case 400:
                try store.appleAds.recordFailure(installID: installID)
                return .record(.failed(statusCode: 400, error: "Apple refused the token", response: response.shownBody))
            default:
                return .standard
            }
        } catch {
            // The answer could not be recorded: ask again on the standard schedule.
            Self.logger.warning("could not record Apple's answer; asking again later", metadata: ["install": "\(installID)", "error": "\(error)"])
            return .standard
        }
    }

    static let logger = Logger(label: "attributiond.apple-ads")

    /// A claim that will not be answered; a failure to say so leaves it to expire with its token.
    private func recordFailure(installID: String) {
        do { try store.appleAds.recordFailure(installID: installID) } catch {
            Self.logger.warning("could not record a failed AdServices exchange", metadata: ["install": "\(installID)", "error": "\(error)"])
        }
    }

    /// Records the answer; a claim that wins becomes the install's attribution, with an
    /// `install.attributed` webhook for the endpoints that want it.
    private func recordAnswer(_ answer: AppleAdsAnswer, payload: String, installID: String, projectID: String, now: Timestamp) throws {
        let project = try projects.project(forID: projectID, repository: store.projects)
        let notify: Notifier<AppleAdsAttribution>? = try project.flatMap { project in
            try outbound.notifier(.installAttributed, trigger: nil, projectID: project.id, at: now) { (attributed: AppleAdsAttribution, _) in
                WebhookEvents.appleAdsAttribution(attributed, project: project)
            }
        }
        defer { if answer.attribution { onAttributed?(projectID, answer) } }
        _ = try store.appleAds.recordAnswer(
            installID: installID, answer: answer, payload: payload, at: now,
            wins: { match, installedAt in
                // Developer-mode answers never become a production project's paid installs.
                guard !answer.isTest || project?.testMode == true else { return false }
                return AppleAdsPrecedence.claimWins(answer, over: match, installedAt: installedAt)
            },
            notify: notify)
    }
}
