import Foundation
import TestSupport
import Testing

/// `attributiond webhooks …` on a database file: the same rules as the admin API.
@Suite struct WebhooksCommandTests {
    @Test func endpointsAreManagedAndDeliveriesListedFromTheCommandLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-webhooks-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("db.sqlite").path
        #expect(try run(["migrate", "--db", db]).status == 0)
        let created = try run(["project", "create", "--name", "Shop", "--json", "--db", db])
        let project = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String])?["id"])

        let refused = try run(["webhooks", "create", "--project", project, "--url", "http://10.0.0.8/hook", "--db", db])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("url: host '10.0.0.8' resolves to 10.0.0.8"), "\(refused.stderr)")
        let unknownEvent = try run([
            "webhooks", "create", "--project", project, "--url", "https://example.com/", "--event", "install.made", "--db", db,
        ])
        #expect(unknownEvent.status == 2 && unknownEvent.stderr.contains("unknown event type 'install.made'"))

        let endpoint = try run(
            [
                "webhooks", "create", "--project", project, "--url", "http://127.0.0.1:9/hook", "--event", "install.created",
                "--json", "--db", db,
            ], environment: ["ATTRIBUTIOND_OUTBOUND_ALLOW_PRIVATE": "true"])
        #expect(endpoint.status == 0, "\(endpoint.stderr)")
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(endpoint.stdout.utf8)) as? [String: String])
        let id = try #require(fields["id"])
        let secret = try #require(fields["secret"])
        #expect(secret.hasPrefix("whsec_"))

        let list = try run(["webhooks", "list", "--project", project, "--db", db])
        #expect(list.stdout.contains(id) && list.stdout.contains("install.created") && !list.stdout.contains(secret))
        #expect(try run(["webhooks", "test", id, "--project", project, "--db", db]).status == 0)
        let deliveries = try run(["webhooks", "deliveries", "--project", project, "--status", "pending", "--json", "--db", db])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(deliveries.stdout.utf8)) as? [[String: String]])
        #expect(rows.count == 1 && rows.first?["event_type"] == "webhook.test")
        #expect(try run(["webhooks", "deliveries", "--project", project, "--status", "sent", "--db", db]).status == 2)
        let rotated = try run(["webhooks", "rotate-secret", id, "--project", project, "--json", "--db", db])
        #expect((try JSONSerialization.jsonObject(with: Data(rotated.stdout.utf8)) as? [String: String])?["secret"] != secret)
        #expect(try run(["webhooks", "delete", id, "--project", project, "--db", db]).status == 0)
        #expect(try run(["webhooks", "delete", id, "--project", project, "--db", db]).status == 1)

        let badMacro = try run([
            "postbacks", "create", "--project", project, "--network", "tune", "--trigger", "install",
            "--url", "https://n.go2cloud.org/aff_lsr?transaction_id={clickid}", "--db", db,
        ])
        #expect(badMacro.status == 2 && badMacro.stderr.contains("postbacks: url: unknown macro {clickid}"), "\(badMacro.stderr)")
        let template = try run(
            [
                "postbacks", "create", "--project", project, "--network", "tune", "--trigger", "install",
                "--url", "https://n.go2cloud.org/aff_lsr?transaction_id={network_click_id}", "--json", "--db", db,
            ],
            environment: ["ATTRIBUTIOND_OUTBOUND_ALLOW_PRIVATE": "true"])
        #expect(template.status == 0, "\(template.stderr)")
        let templateID = try #require((try JSONSerialization.jsonObject(with: Data(template.stdout.utf8)) as? [String: String])?["id"])
        #expect(try run(["postbacks", "list", "--project", project, "--db", db]).stdout.contains(templateID))
        #expect(try run(["postbacks", "delete", templateID, "--project", project, "--db", db]).status == 0)
    }
}
