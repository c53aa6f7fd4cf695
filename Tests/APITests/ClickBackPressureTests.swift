import Foundation
import TestSupport
import Testing

@testable import API

/// Clicks are answered before their rows commit while the writer keeps up; once it is the backlog
/// limit behind, an answer waits for its row (`ClickCommit`), so clicks cannot queue rows in
/// memory faster than they are stored.
@Suite struct ClickBackPressureTests {
    /// With the limit at 0 the writer always counts as behind: each answer comes after its row
    /// is committed, so the row is readable the moment the answer is. With the default limit the
    /// row waits up to 10 ms to share a commit and is usually not there yet.
    @Test func aClickAnsweredWhileTheWriterIsBehindIsAlreadyStored() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"], clickBacklogLimit: 0)
        _ = try app.projectWithLink()
        for index in 1...20 {
            let click = try app.request(
                "GET", "/summer", adminKey: nil, headers: ["User-Agent": safariIPhone, "X-Forwarded-For": "198.51.100.\(index)"])
            #expect(click.status == 200 && click.header("X-Click-Id") != nil)
            #expect(try app.count("SELECT count(*) FROM clicks") == index)
        }
        // A bot's click and a link that does not exist take the same path and answer as before.
        let bot = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": "curl/8.5.0", "X-Forwarded-For": "198.51.100.99"])
        #expect(bot.status < 400)
        #expect(try app.count("SELECT count(*) FROM clicks") == 21)
        #expect(try app.request("GET", "/nothing-here", adminKey: nil).status == 404)
    }

    /// A LinkForty resolve records a click the same way, and waits the same way.
    @Test func aResolveAnsweredWhileTheWriterIsBehindIsAlreadyStored() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"], clickBacklogLimit: 0)
        let (_, key, _) = try app.projectWithLink()
        for index in 1...10 {
            let resolved = try app.request(
                "GET", "/api/sdk/v1/resolve/summer?fp_tz=Europe/Paris&fp_sw=1170&fp_sh=2532", adminKey: key,
                headers: ["User-Agent": "Shop/2.1 iOS/17.4.1", "X-Forwarded-For": "198.51.100.\(index)"])
            #expect(resolved.status == 200 && resolved.json?["shortCode"] as? String == "summer")
            #expect(try app.count("SELECT count(*) FROM clicks WHERE source = 'resolve'") == index)
        }
        #expect(try app.request("GET", "/api/sdk/v1/resolve/nothing-here", adminKey: key).status == 404)
    }
}
