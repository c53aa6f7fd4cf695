import Foundation
import TestSupport
import Testing

@testable import App

/// Changes made with the command line (another process) reach a running SQLite server within a
/// second: a new endpoint gets the facts stored after it, a rotated secret signs the next
/// delivery, a deleted endpoint gets nothing more. Before, the server's caches kept the old state
/// until a restart (PostgreSQL's nodes already heard each other).
@Suite struct CommandLineChangeTests {
    @Test func webhookChangesMadeWithTheCLIReachARunningServerWithinASecond() throws {
        let receiver = try WebhookReceiver()
        let key = "cli-change-admin-key-0123456789"
        let environment = ["ATTRIBUTIOND_ADMIN_KEY": key, "ATTRIBUTIOND_OUTBOUND_ALLOW_PRIVATE": "true", "ATTRIBUTIOND_LOG_LEVEL": "notice"]
        let server = try ServerProcess(environment: environment)
        defer { _ = server.terminateAndWait() }
        let db = server.databasePath
        func send(_ method: String, _ path: String, _ body: String, bearer: String) throws -> TestResponse {
            let client = try RawClient(port: server.port)
            client.send(
                "\(method) \(path) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(bearer)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            return try #require(client.readResponse())
        }
        let project = try #require(try send("POST", "/admin/v1/projects", #"{"name":"Shop"}"#, bearer: key).json)
        let projectID = try #require(project["id"] as? String)
        let apiKey = try #require(project["api_key"] as? String)
        let token = try #require(project["token"] as? String)
        #expect(
            try send("POST", "/api/client/init", #"{"token":"\#(token)","platform":"IOS","install_instance_id":"lr-1"}"#, bearer: "").status == 200)
        // A payment's webhook is made in its request from the endpoints the server holds in memory.
        func payment(_ id: String) throws {
            let body = #"{"token":"\#(token)","platform":"IOS","install_instance_id":"lr-1","user_id":"u1","amount":5,"payment_id":"\#(id)"}"#
            #expect(try send("POST", "/api/client/capture-payment", body, bearer: "").status == 200)
        }
        let installID = try #require(
            try send(
                "POST", "/api/sdk/v1/install", #"{"userAgent":"Shop/1.0","platform":"iOS","deviceId":"dev-1"}"#,
                bearer: apiKey
            ).json?["installId"] as? String)
        func event(_ name: String) throws {
            #expect(try send("POST", "/api/sdk/v1/event", #"{"installId":"\#(installID)","eventName":"\#(name)"}"#, bearer: apiKey).status == 200)
        }
        /// The first delivery whose `data[key]` is `value`, waiting up to `seconds` for it.
        func received(_ key: String, _ value: String, within seconds: Double = 5) -> WebhookReceiver.Received? {
            var found: WebhookReceiver.Received?
            _ = eventually(timeout: seconds) {
                found = receiver.all.first { (($0.json?["data"] as? [String: Any])?[key] as? String) == value }
                return found != nil
            }
            return found
        }
        func delivered(_ name: String, within seconds: Double = 5) -> WebhookReceiver.Received? { received("name", name, within: seconds) }
        func paid(_ id: String, within seconds: Double = 5) -> WebhookReceiver.Received? { received("payment_id", id, within: seconds) }
        try event("before")
        try payment("p-before")  // the server has read this project's endpoints (none) and keeps that

        let created = try run(["webhooks", "create", "--project", projectID, "--url", receiver.url, "--json", "--db", db], environment: environment)
        #expect(created.status == 0, "\(created.stderr)")
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String])
        let endpointID = try #require(fields["id"])
        // About time: a change another process made reaches the server within a second (the
        // change log is read once a second), so the test waits that second and no less.
        Thread.sleep(forTimeInterval: 1)
        try event("added")
        try payment("p-added")
        let first = try #require(delivered("added"), "the endpoint the command line made got nothing")
        #expect(paid("p-added") != nil, "the endpoint the command line made got no payment")
        #expect(delivered("before", within: 0) == nil)

        let rotated = try run(["webhooks", "rotate-secret", endpointID, "--project", projectID, "--json", "--db", db], environment: environment)
        let secret = try #require((try JSONSerialization.jsonObject(with: Data(rotated.stdout.utf8)) as? [String: String])?["secret"])
        Thread.sleep(forTimeInterval: 1)  // about time: as above
        try event("rotated")
        let signed = try #require(delivered("rotated"))
        let expected = WebhookDeliveryTests().expectedSignature(
            secret: secret, id: signed.headers["webhook-id"] ?? "",
            timestamp: signed.headers["webhook-timestamp"] ?? "", body: signed.body)
        #expect(
            signed.headers["webhook-signature"]?.split(separator: " ").contains { String($0) == expected } == true,
            "signed with the new secret: \(signed.headers["webhook-signature"] ?? "none")")
        #expect(first.headers["webhook-signature"] != signed.headers["webhook-signature"])

        // A link made with the command line after a tap on its code missed: served within a second.
        let tap = { () throws -> Int in
            let client = try RawClient(port: server.port)
            client.send("GET /later HTTP/1.1\r\nHost: t\r\nUser-Agent: Mozilla/5.0 (Windows NT 10.0; Win64; x64)\r\n\r\n")
            return try #require(client.readResponse()).status
        }
        #expect(try tap() == 404)
        #expect(
            try run(
                ["link", "create", "--project", projectID, "--code", "later", "--web-url", "https://shop.example/", "--db", db],
                environment: environment
            ).status == 0)
        Thread.sleep(forTimeInterval: 1)  // about time: as above
        #expect(try tap() == 302)

        #expect(try run(["webhooks", "delete", endpointID, "--project", projectID, "--db", db], environment: environment).status == 0)
        Thread.sleep(forTimeInterval: 1)  // about time: as above
        try event("deleted")
        try payment("p-deleted")
        #expect(delivered("deleted", within: 2) == nil, "a deleted endpoint got a delivery")
        #expect(paid("p-deleted", within: 0.5) == nil, "a deleted endpoint got a payment")
    }
}
