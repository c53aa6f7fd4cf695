import Foundation
import HTTP
import TestSupport
import Testing

@testable import API
@testable import App

/// The admin API of webhooks: validation, the SSRF guard, the secret shown once.
@Suite struct WebhookAdminTests {
    @Test func privateAndLocalTargetsAreRefusedByDefault() throws {
        let app = try TestApp()
        let projectID = try #require(try app.createProject()["id"] as? String)
        for url in [
            "http://127.0.0.1:9/hook", "http://10.1.2.3/", "http://169.254.169.254/latest/meta-data", "http://[::1]/",
            "http://192.168.0.1/", "http://localhost/",
            // IPv6 forms standing for a private IPv4 address: NAT64, local-use NAT64,
            // IPv4-compatible, 6to4, IPv4-translated.
            "http://[64:ff9b::7f00:1]/", "http://[64:ff9b:1::7f00:1]/", "http://[::127.0.0.1]/", "http://[2002:7f00:1::]/",
            "http://[::ffff:0:7f00:1]/",
        ] {
            let response = try app.request("POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"\#(url)"}"#)
            #expect(response.status == 422, "\(url)")
            #expect((response.json?["message"] as? String)?.hasPrefix("url: ") == true, "\(url)")
        }
        #expect(try app.count("SELECT count(*) FROM webhook_endpoints") == 0)
    }

    @Test func badInputIsNamed() throws {
        let app = try TestApp(allowPrivateOutbound: true)
        let projectID = try #require(try app.createProject()["id"] as? String)
        let cases: [(String, Int, String)] = [
            (#"{}"#, 422, "url"),
            (#"{"url":"ftp://example.com/"}"#, 422, "url"),
            (#"{"url":"https://example.com/","events":["install.made"]}"#, 422, "events"),
            (#"{"url":"https://example.com/","events":[]}"#, 422, "events"),
            (#"{"url":"https://example.com/","colour":"red"}"#, 422, "colour"),
            (#"{"url":5}"#, 400, "url"),
        ]
        for (body, status, field) in cases {
            let response = try app.request("POST", "/admin/v1/projects/\(projectID)/webhooks", json: body)
            #expect(response.status == status, "\(body)")
            #expect((response.json?["message"] as? String)?.contains(field) == true, "\(body): \(response.json ?? [:])")
        }
        #expect(try app.count("SELECT count(*) FROM webhook_endpoints") == 0)
    }

    @Test func endpointsAreListedChangedAndDeletedWithoutTheirSecret() throws {
        let app = try TestApp(allowPrivateOutbound: true)
        let projectID = try #require(try app.createProject()["id"] as? String)
        let created = try app.request(
            "POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"https://example.com/a","events":["install.created"]}"#)
        #expect(created.status == 201)
        let id = try #require(created.json?["id"] as? String)
        let list = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/webhooks").json?["webhooks"] as? [[String: Any]])
        #expect(list.count == 1 && list[0]["secret"] == nil && list[0]["events"] as? [String] == ["install.created"])
        let patched = try app.request("PATCH", "/admin/v1/projects/\(projectID)/webhooks/\(id)", json: #"{"events":null,"enabled":false}"#)
        #expect(patched.status == 200)
        #expect(patched.json?["events"] is NSNull)
        #expect(patched.json?["enabled"] as? Bool == false)
        let test = try app.request("POST", "/admin/v1/projects/\(projectID)/webhooks/\(id)/test")
        #expect(test.status == 202)
        #expect(try app.count("SELECT count(*) FROM outbox_new WHERE event_type = 'webhook.test'") == 1)
        #expect(try app.request("DELETE", "/admin/v1/projects/\(projectID)/webhooks/\(id)").status == 204)
        #expect(try app.request("GET", "/admin/v1/projects/\(projectID)/webhooks/\(id)").status == 404)
        #expect(try app.request("GET", "/admin/v1/projects/\(projectID)/deliveries?status=sent").status == 422)
    }
}
