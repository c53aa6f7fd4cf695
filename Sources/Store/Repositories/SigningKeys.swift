import Attribution
import Cryptography
import Foundation
import SQLValues
import StoreContracts

/// Linkrunner request-signing keys of a project, one implementation for both backends.
struct SigningKeys<Source: SessionSource>: SigningKeyStore {
    let source: Source

    /// A new key; its secret is shown to the operator once, and kept to verify signatures.
    func create(projectID: String, now: Timestamp) throws -> (keyID: String, secret: String) {
        let keyID = "sk_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        let secret = Secrets.generate(prefix: "")
        try source.writeSession { session in
            try session.run(
                "INSERT INTO signing_keys (id, project_id, secret, created_at) VALUES (?, ?, ?, ?)",
                values: [.text(String(keyID)), .text(projectID), .text(secret), .integer(now.milliseconds)])
        }
        return (String(keyID), secret)
    }

    /// The secret of an unrevoked key of the project.
    func secret(keyID: String, projectID: String) throws -> String? {
        try source.read { session in
            try session.query(
                "SELECT secret FROM signing_keys WHERE id = ? AND project_id = ? AND revoked_at IS NULL",
                values: [.text(keyID), .text(projectID)]
            ) { $0.string(0) }.first
        }
    }

    func revoke(keyID: String, projectID: String, now: Timestamp) throws -> Bool {
        try source.writeSession { session in
            try session.run(
                "UPDATE signing_keys SET revoked_at = ? WHERE id = ? AND project_id = ? AND revoked_at IS NULL",
                values: [.integer(now.milliseconds), .text(keyID), .text(projectID)]) > 0
        }
    }
}
