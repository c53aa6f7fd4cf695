import App
import Foundation
@_spi(StoreInternals) import Store
import StoreContracts
import TestSupport
import Testing

@testable import API

/// Webhook endpoints and postback templates added, rotated and removed through the dashboard's
/// forms, checked by the admin API's own services.
@Suite struct DashboardOutboundFormTests {
    @Test func endpointsAndPostbacksAreManagedThroughForms() throws {
        let app = try TestApp(allowPrivateOutbound: true)
        let (projectID, _, _) = try app.projectWithLink()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let page = "/projects/\(projectID)/outbound"

        let added = try browser.submit(
            from: page, to: page + "/webhooks", [("url", "http://127.0.0.1:9/in"), ("events", "install.created, payment.captured")])
        #expect(added.status == 200)
        let secret = try #require(added.bodyText.firstMatch(of: /shown this once: (whsec_[A-Za-z0-9+\/=]+)/)?.1)
        #expect(try app.count("SELECT count(*) FROM webhook_endpoints WHERE url = 'http://127.0.0.1:9/in' AND events LIKE '%payment.captured%'") == 1)
        let listed = try browser.get(page).bodyText
        #expect(listed.contains("install.created, payment.captured"))
        #expect(!listed.contains(String(secret)))  // shown once only

        let endpointID = try #require(try app.queryOne("SELECT id FROM webhook_endpoints") { $0.string(0) })
        let rotated = try browser.submit(from: page, to: "\(page)/webhooks/\(endpointID)/rotate", [])
        let newSecret = try #require(
            rotated.bodyText.firstMatch(of: /shown this once \(the old one signs too for 24 hours\): (whsec_[A-Za-z0-9+\/=]+)/)?.1)
        #expect(newSecret != secret)
        #expect(try app.count("SELECT count(*) FROM webhook_endpoints WHERE previous_secret IS NOT NULL") == 1)

        for (fields, problem) in [
            ([("url", "ftp://example.com/")], "url"), ([("url", "")], "url: is required"),
            ([("url", "http://127.0.0.1:9/x"), ("events", "install.exploded")], "install.exploded"),
        ] {
            let refused = try browser.submit(from: page, to: page + "/webhooks", fields)
            #expect(refused.status == 422, "\(fields)")
            #expect(refused.bodyText.contains(#"class="error""#) && refused.bodyText.contains(problem), "\(fields): \(refused.bodyText)")
        }
        #expect(try app.count("SELECT count(*) FROM webhook_endpoints") == 1)

        let postback = try browser.submit(
            from: page, to: page + "/postbacks",
            [
                ("network", "acme"), ("trigger", "install"), ("method", "GET"),
                ("url", "https://acme.example/pb?click={network_click_id}"),
            ])
        #expect(postback.status == 200, "\(postback.bodyText)")
        #expect(postback.bodyText.contains("Postback for acme on install added."))
        let unknownMacro = try browser.submit(
            from: page, to: page + "/postbacks",
            [
                ("network", "acme"), ("trigger", "install"), ("method", "GET"),
                ("url", "https://acme.example/pb?x={no_such_macro}"),
            ])
        #expect(unknownMacro.status == 422)
        #expect(unknownMacro.bodyText.contains("no_such_macro"))
        #expect(unknownMacro.bodyText.contains(#"value="acme""#))  // the form keeps what was sent
        #expect(try app.count("SELECT count(*) FROM postback_templates") == 1)

        let templateID = try #require(try app.queryOne("SELECT id FROM postback_templates") { $0.string(0) })
        #expect(try browser.submit(from: page, to: "\(page)/postbacks/\(templateID)/delete", []).status == 200)
        #expect(try browser.submit(from: page, to: "\(page)/webhooks/\(endpointID)/delete", []).status == 200)
        #expect(try app.count("SELECT count(*) FROM postback_templates") + app.count("SELECT count(*) FROM webhook_endpoints") == 0)
        #expect(try browser.submit(from: page, to: "\(page)/webhooks/\(endpointID)/delete", []).status == 404)

        // Viewers change nothing here.
        #expect(try browser.post(page + "/webhooks", [("url", "http://127.0.0.1:9/in")]).status == 403)  // no CSRF token
    }
}

/// The endpoint's test button, the delivery's page, and turning an endpoint off and on.
@Suite struct DashboardDeliveryTests {
    @Test func aTestEventReachesTheReceiverAndItsDeliveryShowsTheRequestAndTheAnswer() throws {
        let receiver = try WebhookReceiver()
        let app = try TestApp(allowPrivateOutbound: true)
        let (projectID, _, _) = try app.projectWithLink()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let page = "/projects/\(projectID)/outbound"
        #expect(try browser.submit(from: page, to: page + "/webhooks", [("url", receiver.url)]).status == 200)
        let endpointID = try #require(try app.queryOne("SELECT id FROM webhook_endpoints") { $0.string(0) })

        let queued = try browser.submit(from: page, to: "\(page)/webhooks/\(endpointID)/test", [])
        #expect(queued.bodyText.contains("A test event is queued for the endpoint"))
        app.startOutbox()
        let got = receiver.wait(for: 1)
        #expect(try app.waitForOutboxIdle())
        let test = try #require(got.first?.json)
        #expect(test["type"] as? String == "webhook.test")

        let list = try browser.get(page).bodyText
        let deliveryID = try #require(list.firstMatch(of: /outbound\/deliveries\/([0-9a-f-]+)"/)?.1)
        #expect(list.contains(DeliveryPage.shortTarget(receiver.url)))
        let delivery = try browser.get("\(page)/deliveries/\(deliveryID)")
        #expect(delivery.status == 200)
        let shown = delivery.bodyText
        #expect(shown.contains("<tr><th>Status</th><td>delivered</td></tr>"))
        #expect(shown.contains("<tr><th>Last status code</th><td>200</td></tr>"))
        #expect(shown.contains("&quot;type&quot;:&quot;webhook.test&quot;"))  // the request body, escaped
        #expect(shown.contains(Escape.html(receiver.url)))
        #expect(try browser.get("\(page)/deliveries/no-such-delivery").status == 404)

        // Off: no new events go to it; on again.
        let off = try browser.submit(from: page, to: "\(page)/webhooks/\(endpointID)/enabled", [("enabled", "0")])
        #expect(off.bodyText.contains("Endpoint turned off"))
        #expect(try app.count("SELECT count(*) FROM webhook_endpoints WHERE NOT enabled") == 1)
        #expect(off.bodyText.contains(">Turn on</button>"))
        let on = try browser.submit(from: page, to: "\(page)/webhooks/\(endpointID)/enabled", [("enabled", "1")])
        #expect(on.bodyText.contains("Endpoint turned on."))
        #expect(try app.count("SELECT count(*) FROM webhook_endpoints WHERE enabled") == 1)
    }
}
