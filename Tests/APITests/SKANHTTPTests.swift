import Attribution
import Foundation
import StoreContracts
import TestSupport
import Testing

@testable import API
@testable import App
@_spi(StoreInternals) @testable import Store

/// The spec schema (docs/skan.md) as the admin API takes it.
let skanSchemaJSON =
    #"{"enabled":true,"base_currency":"USD","fx":{"EUR":1.10,"INR":0.012},"monotonic":true,"windows":{"w1":{"aggregation":"window","fine":{"mode":"bitfield","segments":[{"type":"revenue_bucket","offset":0,"width":3,"edges":[0.01,5,10,25,50,100,200]},{"type":"event_flag","offset":3,"event":"signup"},{"type":"event_flag","offset":4,"event":"purchase"},{"type":"event_flag","offset":5,"event":"subscribe"}]},"coarse":{"rules":[{"value":"high","any":[{"event":"subscribe"},{"revenue_gte":25}]},{"value":"medium","any":[{"event":"signup"},{"event":"purchase"}]}],"default":"low"},"lock":{"any":[{"event":"subscribe"}]}},"w2":{"coarse":{"rules":[{"value":"high","any":[{"revenue_gte":20}]},{"value":"medium","any":[{"event":"purchase"},{"event":"level_complete","count_gte":3}]}],"default":"low"}},"w3":{"coarse":{"rules":[{"value":"high","any":[{"revenue_gte":50}]},{"value":"medium","any":[{"event":"purchase"}]}],"default":"low"}}}}"#

@Suite struct SKANHTTPTests {
    @Test func vectors3_4_5_8_9ThroughTheLinkrunnerEndpoints() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, token) = try app.linkrunnerProject(testMode: true)
        let clock = ProjectClockDriver(app: app, projectID: projectID)
        #expect(try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"skan":\#(skanSchemaJSON)}"#).status == 200)

        func call(_ endpoint: String, _ instance: String, _ extra: String = "") throws -> TestResponse {
            let device = #""device_data":{"device":"iPhone","system_version":"17.4","idfv":"IDFV-\#(instance)"}"#
            return try app.client(
                endpoint, #"{"token":"\#(token)","platform":"IOS","install_instance_id":"\#(instance)",\#(device)\#(extra)}"#,
                ip: "203.0.113.\(instance == "A" ? 1 : 2)")
        }
        /// The SKAN keys of a response, checked to be exactly: integer, lower-case string, bool.
        func skan(_ response: TestResponse) throws -> String {
            #expect(response.status == 200, "\(response.bodyText)")
            let text = response.bodyText
            let fine = try #require(text.firstMatch(of: /"fine_conversion_value":(\d+)[,}]/)?.1)
            let coarse = try #require(text.firstMatch(of: /"coarse_conversion_value":"(low|medium|high)"/)?.1)
            let lock = try #require(text.firstMatch(of: /"lock_postback":(true|false)[,}]/)?.1)
            return "\(fine)/\(coarse)/\(lock)"
        }

        try clock.at(hours: 0)
        #expect(try skan(call("init", "A")) == "0/low/false")  // vector 3
        _ = try call("init", "B")
        try clock.at(hours: 1)
        #expect(try skan(call("trigger", "A", #","user_data":{"id":"u-a"}"#)) == "8/medium/false")  // vector 4
        _ = try call("trigger", "B", #","user_data":{"id":"u-b"}"#)
        try clock.at(hours: 2)
        _ = try call("capture-payment", "B", #","user_id":"u-b","amount":9.99,"payment_id":"pb1""#)
        try clock.at(hours: 5)
        #expect(try skan(call("capture-payment", "A", #","user_id":"u-a","amount":12,"payment_id":"pa1""#)) == "27/medium/false")  // vector 5
        try clock.at(hours: 6)
        #expect(try skan(call("capture-event", "B", #","event_name":"subscribe""#)) == "58/high/true")  // vector 8
        try clock.at(hours: 10)
        #expect(try skan(call("capture-payment", "B", #","user_id":"u-b","amount":100,"payment_id":"pb2""#)) == "58/high/true")  // vector 9: locked

        // The same values through the admin API, and what was stored per window.
        let installB = try #require(try app.queryOne("SELECT id FROM installs WHERE install_instance_id = 'B'") { $0.string(0) })
        let admin = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/installs/\(installB)/skan").json)
        #expect(
            admin["fine_conversion_value"] as? Int == 58 && admin["coarse_conversion_value"] as? String == "high"
                && admin["lock_postback"] as? Bool == true)
        #expect(try app.count("SELECT fine FROM skan_state WHERE install_id = '\(installB)' AND \"window\" = 1 AND locked = TRUE") == 58)

        // Past the SKAN period (840 h after the first init): no keys at all.
        try clock.at(hours: 840)
        let late = try call("capture-event", "A", #","event_name":"app_open""#)
        #expect(late.status == 200 && !late.bodyText.contains("conversion_value") && !late.bodyText.contains("lock_postback"))
    }

    @Test func noSchemaOrAnAndroidInstallMeansNoKeys() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, token) = try app.linkrunnerProject()
        let plain = try app.client("init", #"{"token":"\#(token)","platform":"IOS","install_instance_id":"I1"}"#)
        #expect(plain.status == 200 && !plain.bodyText.contains("fine_conversion_value"))
        #expect(try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"skan":\#(skanSchemaJSON)}"#).status == 200)
        let android = try app.client("init", #"{"token":"\#(token)","platform":"ANDROID","install_instance_id":"I2"}"#)
        #expect(android.status == 200 && !android.bodyText.contains("fine_conversion_value"))
        let ios = try app.client("init", #"{"token":"\#(token)","platform":"IOS","install_instance_id":"I3"}"#)
        #expect(ios.bodyText.contains(#""fine_conversion_value":0"#))
    }

    @Test func aBadSchemaIs422NamingTheKeyAndChangesNothing() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        let bad = skanSchemaJSON.replacingOccurrences(of: #""offset":5,"event":"subscribe""#, with: #""offset":6,"event":"subscribe""#)
        let response = try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"skan":\#(bad)}"#)
        #expect(response.status == 422)
        #expect((response.json?["message"] as? String)?.contains("skan.windows.w1.fine.segments[3].offset") == true, "\(response.bodyText)")
        #expect(try app.services.app.projects.find(id: projectID)?.settings.skanSchema == nil)
        let created = try app.request(
            "POST", "/admin/v1/projects", json: #"{"name":"Bad","skan":{"windows":{"w1":{"lock":{"any":[{"colour":"red"}]}}}}}"#)
        #expect(created.status == 422)
    }
}
