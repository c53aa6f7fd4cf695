public import Attribution
import Cryptography

/// What an install's Apple Ads claim holds: the token until it is exchanged, then Apple's answer.
public struct AppleAdsClaim: Sendable, Equatable {
    public enum Status: String, Sendable {
        case pending, attributed
        case notAttributed = "not_attributed"
        case failed
    }

    public var installID: String
    public var projectID: String
    public var status: Status
    public var answer: AppleAdsAnswer?
    public var isTest: Bool
    /// Whether the claim became the install's attribution.
    public var won: Bool

    public init(installID: String, projectID: String, status: Status, answer: AppleAdsAnswer?, isTest: Bool, won: Bool) {
        self.installID = installID
        self.projectID = projectID
        self.status = status
        self.answer = answer
        self.isTest = isTest
        self.won = won
    }
}

/// An exchange's token, as the delivery worker reads it before sending.
public struct AppleAdsToken: Sendable, Equatable {
    public var token: String
    public var receivedAt: Timestamp
    /// 404 answers so far.
    public var notFoundAnswers: Int

    public init(token: String, receivedAt: Timestamp, notFoundAnswers: Int) {
        self.token = token
        self.receivedAt = receivedAt
        self.notFoundAnswers = notFoundAnswers
    }
}

/// A claim that became an install's attribution, for the `install.attributed` webhook.
public struct AppleAdsAttribution: Sendable {
    /// The matched factor of an install Apple Ads attributed.
    public static let factor = "apple_ads"

    public var install: StoredInstall
    public var answer: AppleAdsAnswer

    public init(install: StoredInstall, answer: AppleAdsAnswer) {
        self.install = install
        self.answer = answer
    }
}

/// Apple Ads claims (docs/outbound.md, "Apple Ads (AdServices) exchange").
public protocol AppleAdsStore: Sendable {
    /// Keeps `token` for the install and queues `exchange` when no answer is recorded: a first
    /// token, or a fresh one after a failed exchange (a pending exchange sends the newest token).
    /// `completion` gets whether an exchange job was queued.
    func capture(
        installID: String, projectID: String, token: String, at time: Timestamp, exchange: OutboxMessage,
        delivery: WriteDelivery?, completion: @escaping @Sendable (Result<Bool, any Error>) -> Void)
    /// The token to send for the install, while its claim is pending.
    func pendingToken(installID: String) throws -> AppleAdsToken?
    /// Records Apple's answer; when the claim wins over the install's current attribution
    /// (`wins`), the install takes it (a click it had claimed is released) and `notify`'s jobs are
    /// written in the same transaction. Returns the install when it changed.
    func recordAnswer(
        installID: String, answer: AppleAdsAnswer, payload: String, at time: Timestamp,
        wins: @escaping @Sendable (MatchResult, Timestamp) -> Bool,
        notify: Notifier<AppleAdsAttribution>?
    ) throws -> StoredInstall?
    /// Counts a 404 (not available yet); returns how many the claim has had.
    func recordNotFound(installID: String) throws -> Int
    /// No answer will come: the token is dropped and the claim failed (a new token may try again).
    func recordFailure(installID: String) throws
    /// The install's claim, if it has one.
    func claim(installID: String) throws -> AppleAdsClaim?
    /// Drops tokens received before `time` (Apple's tokens live 24 h); pending claims fail.
    func expireTokens(receivedBefore time: Timestamp) throws -> Int
}

/// A project's Apple Ads Campaign Management API credentials (an OAuth client whose secret is a
/// JWT signed with `privateKey`, ES256).
public struct AppleAdsCredentials: Sendable, Equatable {
    public var clientID: String
    public var teamID: String
    public var keyID: String
    public var orgID: String
    /// PEM, EC P-256.
    public var privateKey: String

    public init(clientID: String, teamID: String, keyID: String, orgID: String, privateKey: String) {
        self.clientID = clientID
        self.teamID = teamID
        self.keyID = keyID
        self.orgID = orgID
        self.privateKey = privateKey
    }
}

/// The names of a project's campaigns, ad groups and keywords, as far as they were fetched.
public struct AppleAdsNames: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case campaign
        case adGroup = "ad_group"
        case keyword
    }

    public var byKind: [Kind: [String: String]] = [:]

    public init(byKind: [Kind: [String: String]] = [:]) { self.byKind = byKind }

    public func name(_ kind: Kind, _ id: String?) -> String? { id.flatMap { byKind[kind]?[$0] } }
}

/// The optional Campaign Management API side of Apple Ads: credentials and fetched names.
public protocol AppleAdsNameStore: Sendable {
    func credentials(projectID: String) throws -> AppleAdsCredentials?
    func setCredentials(_ credentials: AppleAdsCredentials, projectID: String, at time: Timestamp) throws
    /// False when the project had none.
    func deleteCredentials(projectID: String) throws -> Bool
    func names(projectID: String) throws -> AppleAdsNames
    /// The names of one answer's campaign, ad group and keyword, where fetched.
    func names(of answer: AppleAdsAnswer, projectID: String) throws -> AppleAdsNames
    func saveName(_ name: String, kind: AppleAdsNames.Kind, id: String, projectID: String, at time: Timestamp) throws
}
