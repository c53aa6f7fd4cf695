public import Attribution

/// Certificates the server gets itself (ACME): the account, open challenges, and each domain's
/// certificate or failures.
public protocol CertificateStore: Sendable {
    func account(directoryURL: String) throws -> ACMEAccountRecord?
    func saveAccount(_ account: ACMEAccountRecord) throws

    func putChallenge(token: String, keyAuthorization: String, domain: String, at time: Timestamp) throws
    /// The key authorization to answer `token` with, while its order is open.
    func challenge(token: String) throws -> String?
    func deleteChallenges(domain: String) throws

    func certificates() throws -> [DomainCertificateRecord]
    func saveCertificate(domain: String, chainPEM: String, keyPEM: String, notBefore: Int64, notAfter: Int64, at time: Timestamp) throws
    /// Takes the domain's next attempt for this node until `until`, unless another node's attempt
    /// (or a back-off) runs until after `now`: true when this node should try.
    func leaseAttempt(domain: String, until: Timestamp, now: Timestamp) throws -> Bool
    func recordFailure(domain: String, error: String, failures: Int, nextAttemptAt: Timestamp, at time: Timestamp) throws
}

public struct ACMEAccountRecord: Sendable, Equatable {
    public let directoryURL: String
    public let keyPEM: String
    public let accountURL: String
    public let createdAt: Timestamp

    public init(directoryURL: String, keyPEM: String, accountURL: String, createdAt: Timestamp) {
        self.directoryURL = directoryURL
        self.keyPEM = keyPEM
        self.accountURL = accountURL
        self.createdAt = createdAt
    }
}

/// A domain's certificate (when one was issued) and how its last attempts went.
public struct DomainCertificateRecord: Sendable, Equatable {
    public let domain: String
    public let chainPEM: String?
    public let keyPEM: String?
    /// Seconds since 1970.
    public let notBefore: Int64?
    public let notAfter: Int64?
    public let issuedAt: Timestamp?
    public let failures: Int
    public let nextAttemptAt: Timestamp
    public let lastError: String?

    public init(
        domain: String, chainPEM: String?, keyPEM: String?, notBefore: Int64?, notAfter: Int64?, issuedAt: Timestamp?, failures: Int,
        nextAttemptAt: Timestamp, lastError: String?
    ) {
        self.domain = domain
        self.chainPEM = chainPEM
        self.keyPEM = keyPEM
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.issuedAt = issuedAt
        self.failures = failures
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
    }
}
