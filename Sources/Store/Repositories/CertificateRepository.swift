import Attribution
import StoreContracts

/// ACME accounts, challenges and domain certificates on either backend.
struct CertificateRecords<Source: SessionSource>: CertificateStore {
    let source: Source

    func account(directoryURL: String) throws -> ACMEAccountRecord? {
        try source.read { connection in
            try connection.queryOne(
                "SELECT directory_url, key_pem, account_url, created_at FROM acme_accounts WHERE directory_url = ?", directoryURL
            ) { row in
                ACMEAccountRecord(
                    directoryURL: row.string(0), keyPEM: row.string(1), accountURL: row.string(2), createdAt: Timestamp(milliseconds: row.int(3)))
            }
        }
    }

    func saveAccount(_ account: ACMEAccountRecord) throws {
        try source.writeSession { connection in
            try connection.run(
                """
                INSERT INTO acme_accounts (directory_url, key_pem, account_url, created_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (directory_url) DO UPDATE SET key_pem = excluded.key_pem, account_url = excluded.account_url
                """, account.directoryURL, account.keyPEM, account.accountURL, account.createdAt.milliseconds)
        }
    }

    func putChallenge(token: String, keyAuthorization: String, domain: String, at time: Timestamp) throws {
        try source.writeSession { connection in
            try connection.run(
                """
                INSERT INTO acme_challenges (token, key_authorization, domain, created_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (token) DO UPDATE SET key_authorization = excluded.key_authorization
                """, token, keyAuthorization, domain, time.milliseconds)
        }
    }

    func challenge(token: String) throws -> String? {
        try source.read { try $0.queryOne("SELECT key_authorization FROM acme_challenges WHERE token = ?", token) { $0.string(0) } }
    }

    func deleteChallenges(domain: String) throws {
        try source.writeSession { try $0.run("DELETE FROM acme_challenges WHERE domain = ?", domain) }
    }

    func certificates() throws -> [DomainCertificateRecord] {
        try source.read { connection in
            try connection.query(
                """
                SELECT domain, chain_pem, key_pem, not_before, not_after, issued_at, failures, next_attempt_at, last_error
                FROM domain_certificates ORDER BY domain
                """
            ) { row in
                DomainCertificateRecord(
                    domain: row.string(0), chainPEM: row.optionalString(1), keyPEM: row.optionalString(2), notBefore: row.optionalInt(3),
                    notAfter: row.optionalInt(4), issuedAt: row.optionalInt(5).map { Timestamp(milliseconds: $0) },
                    failures: Int(row.int(6)), nextAttemptAt: Timestamp(milliseconds: row.int(7)), lastError: row.optionalString(8))
            }
        }
    }

    func saveCertificate(domain: String, chainPEM: String, keyPEM: String, notBefore: Int64, notAfter: Int64, at time: Timestamp) throws {
        try source.writeSession { connection in
            try connection.run(
                """
                INSERT INTO domain_certificates (domain, chain_pem, key_pem, not_before, not_after, issued_at, failures, next_attempt_at,
                    last_error, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, 0, 0, NULL, ?)
                ON CONFLICT (domain) DO UPDATE SET chain_pem = excluded.chain_pem, key_pem = excluded.key_pem,
                    not_before = excluded.not_before, not_after = excluded.not_after, issued_at = excluded.issued_at, failures = 0,
                    next_attempt_at = 0, last_error = NULL, updated_at = excluded.updated_at
                """, domain, chainPEM, keyPEM, notBefore, notAfter, time.milliseconds, time.milliseconds)
        }
    }

    func leaseAttempt(domain: String, until: Timestamp, now: Timestamp) throws -> Bool {
        try source.writeSession { connection in
            try connection.run(
                """
                INSERT INTO domain_certificates (domain, next_attempt_at, updated_at) VALUES (?, ?, ?)
                ON CONFLICT (domain) DO UPDATE SET next_attempt_at = excluded.next_attempt_at, updated_at = excluded.updated_at
                WHERE domain_certificates.next_attempt_at <= ?
                """, domain, until.milliseconds, now.milliseconds, now.milliseconds) > 0
        }
    }

    func recordFailure(domain: String, error: String, failures: Int, nextAttemptAt: Timestamp, at time: Timestamp) throws {
        try source.writeSession { connection in
            try connection.run(
                """
                INSERT INTO domain_certificates (domain, failures, next_attempt_at, last_error, updated_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (domain) DO UPDATE SET failures = excluded.failures, next_attempt_at = excluded.next_attempt_at,
                    last_error = excluded.last_error, updated_at = excluded.updated_at
                """, domain, failures, nextAttemptAt.milliseconds, error, time.milliseconds)
        }
    }
}
