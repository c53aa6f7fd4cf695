import Attribution
import Foundation
import HTTP
import Store
import StoreContracts
import TestSupport
import Testing

@testable import API
@testable import App

/// Postbacks end to end: a click carrying a network's click id, an attributed Linkrunner init and
/// a payment, through the public APIs; the receiver gets the webhooks and the network its URLs.
@Suite struct PostbackTests {
    static let iPhone =
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"

    @Test func theCountryMacroIsTheInstallsFromTheTrustedProxyAndTheClickKeepsItsOwn() throws {
        let receiver = try WebhookReceiver()
        let app = try TestApp(trustedProxies: ["127.0.0.1"], allowPrivateOutbound: true, countries: TapCountries(header: "CF-IPCountry"))
        let (projectID, token) = try app.linkrunnerProject()
        #expect(
            try app.request(
                "POST", "/admin/v1/projects/\(projectID)/postbacks",
                json: #"{"network":"google","trigger":"install","url":"\#(receiver.base)/postback?country={country}"}"#
            ).status == 201)
        let click = try app.request(
            "GET", "/summer?gclid=Cj0KCQ-abc_123&utm_source=google", adminKey: nil,
            headers: ["User-Agent": Self.iPhone, "X-Forwarded-For": "198.51.100.80", "CF-IPCountry": "DE"])
        let clickID = try #require(click.header("X-Click-Id"))
        let initialized = try app.request(
            "POST", "/api/client/init", json: body("init", token: token), adminKey: nil,
            headers: ["X-Forwarded-For": "198.51.100.80", "CF-IPCountry": "JP"])
        #expect((initialized.json?["data"] as? [String: Any])?["attribution_source"] as? String == "INORGANIC")
        try app.settle()
        #expect(try app.store.clicks.find(clickID: clickID)?.country == "DE")
        app.startOutbox()
        let got = receiver.wait(for: 1)
        #expect(got.first?.target == "/postback?country=JP", "the proxy's country for the install, over the SDK's FR")
    }

    @Test func anAttributedInstallAndItsPaymentReachTheWebhookAndTheNetwork() throws {
        let receiver = try WebhookReceiver()
        let app = try TestApp(trustedProxies: ["127.0.0.1"], allowPrivateOutbound: true)
        let (projectID, token) = try app.linkrunnerProject()
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"\#(receiver.url)"}"#).status == 201)
        let installTemplate = try app.request(
            "POST", "/admin/v1/projects/\(projectID)/postbacks",
            json: """
                {"network":"Google","trigger":"install",
                 "url":"\(receiver.base)/postback?gclid={network_click_id}&click={click_id}&idfv={idfv}&src={utm_source}&camp={utm_campaign}&ip={ip}&country={country}"}
                """)
        #expect(installTemplate.status == 201, "\(installTemplate.json ?? [:])")
        #expect(
            try app.request(
                "POST", "/admin/v1/projects/\(projectID)/postbacks",
                json: """
                    {"network":"google","trigger":"payment","method":"POST","url":"\(receiver.base)/postback",
                     "body":"{\\"amount\\":\\"{revenue}\\",\\"currency\\":\\"{currency}\\",\\"gclid\\":\\"{network_click_id}\\",\\"event\\":\\"{event_name}\\"}"}
                    """
            ).status == 201)
        #expect(
            try app.request(
                "POST", "/admin/v1/projects/\(projectID)/postbacks",
                json: """
                    {"network":"meta","trigger":"install","url":"\(receiver.base)/postback?meta=1"}
                    """
            ).status == 201)

        let click = try app.request(
            "GET", "/summer?gclid=Cj0KCQ-abc_123&utm_source=google&utm_campaign=spring%20sale%2Fq1", adminKey: nil,
            headers: ["User-Agent": Self.iPhone, "X-Forwarded-For": "198.51.100.80"])
        let clickID = try #require(click.header("X-Click-Id"))
        let initialized = try app.client("init", body("init", token: token))
        #expect((initialized.json?["data"] as? [String: Any])?["attribution_source"] as? String == "INORGANIC")
        #expect(try app.client("capture-payment", body("capture-payment", token: token)).status == 200)
        #expect(try app.store.clicks.find(clickID: clickID)?.networkClickID == NetworkClickID(parameter: "gclid", value: "Cj0KCQ-abc_123"))

        app.startOutbox()
        let got = receiver.wait(for: 4)
        #expect(try app.waitForOutboxIdle())
        #expect(receiver.all.count == 4, "two webhooks and two postbacks; the meta template's network did not drive the install")

        let webhooks = got.filter { $0.target == "/hook" }.compactMap(\.json)
        #expect(Set(webhooks.compactMap { $0["type"] as? String }) == ["install.created", "payment.captured"])
        let install = try #require(webhooks.first { $0["type"] as? String == "install.created" }?["data"] as? [String: Any])
        let attribution = try #require(install["attribution"] as? [String: Any])
        #expect(attribution["click_id"] as? String == clickID)
        #expect((attribution["network_click_id"] as? [String: Any])?["value"] as? String == "Cj0KCQ-abc_123")
        let payment = try #require(webhooks.first { $0["type"] as? String == "payment.captured" }?["data"] as? [String: Any])
        #expect(payment["amount"] as? Double == 99.99 && payment["payment_id"] as? String == "payment_123")

        let get = try #require(got.first { $0.method == "GET" })
        let query = Dictionary(
            uniqueKeysWithValues: (URLComponents(string: "http://x" + get.target)?.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        #expect(query["gclid"] == "Cj0KCQ-abc_123")
        #expect(query["click"] == clickID)
        #expect(query["idfv"] == "6D92078A-8246-4BA4-AE5B-76104861E7DC")
        #expect(query["src"] == "google")
        #expect(query["ip"] == "198.51.100.80")
        #expect(query["country"] == "FR")  // the seed client's device_data.country
        #expect(get.target.contains("camp=spring%20sale%2Fq1"), "macros are URL-encoded: \(get.target)")
        let post = try #require(got.first { $0.method == "POST" && $0.target == "/postback" })
        #expect(post.headers["content-type"] == "application/json")
        let postBody = try #require(try JSONSerialization.jsonObject(with: Data(post.body)) as? [String: String])
        #expect(postBody == ["amount": "99.99", "currency": "USD", "gclid": "Cj0KCQ-abc_123", "event": "payment"])

        let deliveries = try #require(
            try app.request("GET", "/admin/v1/projects/\(projectID)/deliveries?kind=postback").json?["deliveries"] as? [[String: Any]])
        #expect(deliveries.count == 2)
    }

    @Test func templatesAreValidatedWhenSaved() throws {
        let app = try TestApp(allowPrivateOutbound: true)
        let projectID = try #require(try app.createProject()["id"] as? String)
        let cases: [(String, String)] = [
            (#"{"network":"google","trigger":"install","url":"https://example.com/?c={clickid}"}"#, "url: unknown macro {clickid}"),
            (
                #"{"network":"google","trigger":"install","url":"https://example.com/","method":"POST","body":"x={revnue}"}"#,
                "body: unknown macro {revnue}"
            ),
            (#"{"network":"google","trigger":"install","url":"https://example.com/","method":"PUT"}"#, "method"),
            (#"{"network":"google","trigger":"install","url":"https://example.com/","body":"x=1"}"#, "body: a GET postback has no body"),
            (#"{"trigger":"install","url":"https://example.com/"}"#, "network: is required"),
            (#"{"network":"google","trigger":"install","url":"https://{ip}.example.com/"}"#, "url"),
            (#"{"network":"google","trigger":"install","url":"mailto:x@example.com"}"#, "url"),
        ]
        for (body, message) in cases {
            let response = try app.request("POST", "/admin/v1/projects/\(projectID)/postbacks", json: body)
            #expect(response.status == 422, "\(body)")
            #expect((response.json?["message"] as? String)?.contains(message) == true, "\(body): \(response.json ?? [:])")
        }
        #expect(try app.count("SELECT count(*) FROM postback_templates") == 0)
        let created = try app.request(
            "POST", "/admin/v1/projects/\(projectID)/postbacks",
            json: #"{"network":"google","trigger":"purchase","url":"https://example.com/?v={revenue}"}"#)
        let id = try #require(created.json?["id"] as? String)
        let patched = try app.request("PATCH", "/admin/v1/projects/\(projectID)/postbacks/\(id)", json: #"{"enabled":false}"#)
        #expect(patched.json?["enabled"] as? Bool == false)
        #expect(try app.request("DELETE", "/admin/v1/projects/\(projectID)/postbacks/\(id)").status == 204)
        #expect(try app.request("GET", "/admin/v1/projects/\(projectID)/postbacks/\(id)").status == 404)
    }

    @Test func aProjectNamesItsOwnClickIDParameters() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        #expect(try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"click_id_parameters":["sub id"]}"#).status == 422)
        let patched = try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"click_id_parameters":["irclickid"]}"#)
        #expect(patched.json?["click_id_parameters"] as? [String] == ["irclickid"])
        let click = try app.request("GET", "/summer?irclickid=XYZ-1", adminKey: nil, headers: ["User-Agent": Self.iPhone])
        let clickID = try #require(click.header("X-Click-Id"))
        try app.settle()
        #expect(try app.store.clicks.find(clickID: clickID)?.networkClickID == NetworkClickID(parameter: "irclickid", value: "XYZ-1"))
    }
}
