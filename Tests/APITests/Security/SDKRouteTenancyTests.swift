import Foundation
import TestSupport
import Testing

/// Every SDK route of every family, asked about one project's links and installs with another
/// project's credential and with none: nothing of the first project comes back, nothing is
/// written to it, and a route that needs a credential says 401.
@Suite struct SDKRouteTenancyTests {
    static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148"

    struct Tenant {
        let id: String
        let token: String
        let key: String
        let warpKey: String
    }

    static func tenant(_ app: TestApp, _ name: String) throws -> Tenant {
        let project = try app.createProject(name)
        let id = try #require(project["id"] as? String)
        let key = try #require(try app.request("POST", "/admin/v1/projects/\(id)/api-keys").json?["key"] as? String)
        return Tenant(id: id, token: try #require(project["token"] as? String), key: key, warpKey: try app.warpLinkKey(id))
    }

    /// What project A holds, counted: a change means another tenant's call reached it.
    static func footprint(_ app: TestApp, _ project: String) throws -> [Int64] {
        try ["clicks", "installs", "events", "links", "payments"].map { try app.count("SELECT count(*) FROM \($0) WHERE project_id = '\(project)'") }
    }

    @Test func anotherProjectsCredentialOrNoneNeverReachesAProjectsLinksOrInstalls() throws {
        let app = try TestApp()
        let a = try Self.tenant(app, "Alpha")
        let b = try Self.tenant(app, "Beta")
        #expect(try app.request("POST", "/admin/v1/projects/\(a.id)/domains", json: #"{"domain":"go.alpha.test"}"#).status == 201)
        #expect(
            try app.request("POST", "/admin/v1/projects/\(a.id)/links", json: #"{"short_code":"alpha","web_url":"https://alpha.example/"}"#).status
                == 201)
        #expect(
            try app.request(
                "POST", "/admin/v1/projects/\(a.id)/links",
                json: #"{"short_code":"brand","web_url":"https://alpha.example/b","domain":"go.alpha.test"}"#
            )
            .status == 201)
        let alphaLink = try #require(
            try app.request("GET", "/admin/v1/projects/\(a.id)/links").jsonArray?.first { $0["short_code"] as? String == "alpha" }?["id"] as? String)
        // A's own SDK calls work: an install of A from each family.
        let lfInstall = try app.request(
            "POST", "/api/sdk/v1/install", json: #"{"userAgent":"Shop/1.0 iOS/17.4","platform":"iOS","platformVersion":"17.4"}"#,
            adminKey: a.key)
        #expect(lfInstall.status == 200, "\(lfInstall.bodyText)")
        let alphaInstall = try #require(lfInstall.json?["installId"] as? String)
        #expect(
            try app.request(
                "POST", "/api/client/init",
                json: #"{"token":"\#(a.token)","platform":"IOS","install_instance_id":"alpha-device","package_version":"1.0"}"#,
                adminKey: nil
            ).status == 200)
        // Resolve on A's own domain with A's key: the domain's link answers (it used to be 404).
        let own = try app.request("GET", "/api/sdk/v1/resolve/brand", adminKey: a.key, host: "go.alpha.test")
        #expect(own.status == 200 && own.bodyText.contains("alpha.example/b"), "\(own.status) \(own.bodyText)")
        let ownWithoutHost = try app.request("GET", "/api/sdk/v1/resolve/brand", adminKey: a.key)
        #expect(ownWithoutHost.status == 200, "a key's project's domain links answer on any host: \(ownWithoutHost.bodyText)")
        let warpOwn = try app.request(
            "GET", "/v1/links/resolve/brand", adminKey: a.warpKey, headers: ["User-Agent": "WarpLink-iOS/0.1.0"], host: "go.alpha.test")
        #expect(warpOwn.status == 200, "WarpLink's resolve on the project's domain as Host: \(warpOwn.status) \(warpOwn.bodyText)")
        try app.settle()
        let before = try Self.footprint(app, a.id)

        let lfEvent = #"{"installId":"\#(alphaInstall)","eventName":"signup","eventData":{},"timestamp":"2026-11-21T10:00:00Z"}"#
        let lrBody = { (token: String) in #"{"token":"\#(token)","platform":"IOS","install_instance_id":"alpha-device""# }
        // (method, path, body, credential header value or nil, host, what a call without a credential must answer)
        var calls: [(String, String, String?, [String: String], String)] = []
        for (name, credential) in [("B's", Optional(b)), ("none", nil)] {
            let key = credential.map { "Bearer \($0.key)" }
            let warp = credential.map { "Bearer \($0.warpKey)" }
            let token = credential?.token ?? ""
            let auth = { (value: String?) in value.map { ["Authorization": $0] } ?? [:] }
            calls += [
                ("GET", "/api/sdk/v1/resolve/alpha", nil, auth(key), name),
                ("GET", "/api/sdk/v1/resolve/brand", nil, auth(key).merging(["Host": "go.alpha.test"]) { $1 }, name),
                ("POST", "/api/sdk/v1/event", lfEvent, auth(key), name),
                ("POST", "/api/sdk/v1/install", #"{"userAgent":"Shop/1.0 iOS/17.4","platform":"iOS"}"#, auth(key), name),
                ("POST", "/api/sdk/v1/links", #"{"templateId":null,"originalUrl":"https://x.example/"}"#, auth(key), name),
                ("POST", "/api/links", #"{"originalUrl":"https://x.example/","customCode":"intruder"}"#, auth(key), name),
                ("GET", "/api/links/\(alphaLink)", nil, auth(key), name),
                ("PUT", "/api/links/\(alphaLink)", #"{"originalUrl":"https://evil.example/"}"#, auth(key), name),
                ("DELETE", "/api/links/\(alphaLink)", nil, auth(key), name),
                ("GET", "/v1/links/resolve/alpha", nil, auth(warp), name),
                ("GET", "/v1/links/resolve/brand?domain=go.alpha.test", nil, auth(warp), name),
                ("GET", "/v1/sdk/validate", nil, auth(warp), name),
                ("POST", "/v1/attribution/match", WarpLinkBodies.iOS(), auth(warp), name),
                ("POST", "/v1/links", #"{"destination_url":"https://x.example/"}"#, auth(warp), name),
                (
                    "POST", "/v1/shortLinks?key=\(credential?.key ?? "")",
                    #"{"dynamicLinkInfo":{"domainUriPrefix":"https://go.alpha.test","link":"https://alpha.example/"}}"#, [:], name
                ),
            ]
            for route in [
                "init", "attribution-data", "trigger", "set-user-data", "capture-event", "capture-payment", "remove-captured-payment",
                "update-push-token", "integrations", "customer-user-id", "deeplink-triggered",
            ] {
                let extra =
                    switch route {
                    case "capture-event": #","event_name":"purchase""#
                    case "capture-payment", "remove-captured-payment": #","payment_id":"p1","amount":5"#
                    default: ""
                    }
                calls.append(("POST", "/api/client/\(route)", lrBody(token) + extra + "}", [:], name))
            }
            calls.append(("POST", "/api/client/handle-deeplink", lrBody(token) + #","deeplink_url":"https://go.alpha.test/brand"}"#, [:], name))
            calls.append(("POST", "/api/client/handle-deeplink", lrBody(token) + #","deeplink_url":"http://test/alpha"}"#, [:], name))
        }
        for (method, path, body, headers, name) in calls {
            var headers = headers.merging(["User-Agent": Self.iPhone]) { $1 }
            let host = headers.removeValue(forKey: "Host") ?? "test"
            let answer = try app.request(method, path, json: body, adminKey: nil, headers: headers, host: host)
            #expect(answer.status < 500, "\(name) \(method) \(path): \(answer.status)")
            #expect(!answer.bodyText.contains("alpha.example"), "\(name) \(method) \(path) gave A's destination: \(answer.bodyText)")
            if name == "none", !path.hasPrefix("/api/client/"), !path.hasPrefix("/v1/shortLinks") {
                #expect(answer.status == 401, "\(method) \(path) without a credential: \(answer.status) \(answer.bodyText)")
            }
            if name == "none", path.hasPrefix("/api/client/") {
                #expect(answer.status == 401 || answer.status == 400 || answer.status == 422, "\(path) without a token: \(answer.status)")
            }
        }
        try app.settle()
        #expect(try Self.footprint(app, a.id) == before, "a call of another tenant or of nobody changed project A's rows")
        #expect(try app.request("GET", "/admin/v1/projects/\(a.id)/links/\(alphaLink)").json?["web_url"] as? String == "https://alpha.example/")
    }
}
