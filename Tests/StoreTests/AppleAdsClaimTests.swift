import Attribution
import StoreContracts
import Testing

@_spi(StoreInternals) @testable import Store

/// Apple Ads tokens are kept only until Apple answered for good or they are 24 h old.
@Suite struct AppleAdsClaimTests {
    private func claimRow(_ temp: TemporaryDatabase, _ installID: String) throws -> (status: String, token: String?)? {
        try temp.database.read {
            try $0.queryOne("SELECT status, token FROM apple_ads_claims WHERE install_id = ?", installID) {
                ($0.string(0), $0.optionalString(1))
            }
        }
    }

    @Test func tokensOlderThanTheirLifeAreDroppedAndTheirClaimsFail() throws {
        let temp = try TemporaryDatabase()
        let now = Timestamp(milliseconds: 1_795_000_000_000)
        try temp.database.writeAndWait { connection in
            try connection.run("INSERT INTO projects (id, name, token_hash, created_at, updated_at) VALUES ('p', 'Shop', x'01', 0, 0)")
            for (id, age, status) in [("old", 25 * 3600, "pending"), ("young", 3600, "pending"), ("answered-old", 25 * 3600, "attributed")] {
                try connection.run("INSERT INTO installs (id, project_id, api, created_at, last_seen_at) VALUES (?, 'p', 'linkrunner', 0, 0)", id)
                try connection.run(
                    """
                    INSERT INTO apple_ads_claims (install_id, project_id, token, token_received_at, status) VALUES (?, 'p', 'dG9rZW4=', ?, ?)
                    """, id, now.milliseconds - Int64(age) * 1000, status)
            }
        }
        let repository = AppleAdsClaims(source: temp.database)
        #expect(try repository.expireTokens(receivedBefore: now.adding(seconds: -86_400)) == 2)
        #expect(try claimRow(temp, "old")! == ("failed", nil))
        #expect(try claimRow(temp, "answered-old")! == ("attributed", nil))  // Apple's answer stays, the token goes
        #expect(try claimRow(temp, "young")! == ("pending", "dG9rZW4="))
        #expect(try repository.pendingToken(installID: "young")?.token == "dG9rZW4=")
        #expect(try repository.pendingToken(installID: "old") == nil)
        // Erasing the install takes its claim.
        try temp.database.writeAndWait { try $0.run("DELETE FROM installs WHERE id = 'young'") }
        #expect(try claimRow(temp, "young") == nil)
    }
}
