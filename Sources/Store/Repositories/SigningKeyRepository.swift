public import Attribution
import Foundation

/// Linkrunner request-signing keys of a project.
public struct SigningKeyRepository: SigningKeyStore {
    let database: Database

    public init(database: Database) { self.database = database }

    /// A new key; its secret is shown to the operator once, and kept to verify signatures.
    public func create(projectID: String, now: Timestamp) throws -> (keyID: String, secret: String) {
        let keyID = "sk_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        let secret = Secrets.generate(prefix: "")
        try database.writeAndWait { connection in
            try connection.run("INSERT INTO signing_keys (id, project_id, secret, created_at) VALUES (?, ?, ?, ?)",
                               String(keyID), projectID, secret, now.milliseconds)
        }
        return (String(keyID), secret)
    }

    /// The secret of an unrevoked key of the project.
    public func secret(keyID: String, projectID: String) throws -> String? {
        try database.read { connection in
            try connection.queryOne("SELECT secret FROM signing_keys WHERE id = ? AND project_id = ? AND revoked_at IS NULL",
                                    keyID, projectID) { $0.string(0) }
        }
    }

    public func revoke(keyID: String, projectID: String, now: Timestamp) throws -> Bool {
        try database.writeAndWait { connection in
            try connection.run("UPDATE signing_keys SET revoked_at = ? WHERE id = ? AND project_id = ? AND revoked_at IS NULL",
                               now.milliseconds, keyID, projectID) > 0
        }
    }
}
