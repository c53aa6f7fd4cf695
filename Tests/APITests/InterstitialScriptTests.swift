import Attribution
import Foundation
import StoreContracts
import TestSupport
import Testing

@testable import API
@_spi(StoreInternals) @testable import Store

private let node = ["/usr/bin/node", "/usr/local/bin/node"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// Browser globals for the page's script; `mode` "beacon" offers navigator.sendBeacon, "image" does not.
private let harness = #"""
    const script = require('fs').readFileSync(0, 'utf8');
    const mode = process.argv[process.argv.length - 1];
    const seen = { beacon: null, image: null, navigation: [] };
    globalThis.screen = { width: 390, height: 844 };
    globalThis.window = { devicePixelRatio: 3 };
    Object.defineProperty(globalThis, 'navigator', { value: {
      languages: ['fr-FR', 'fr'], language: 'fr-FR',
      sendBeacon: mode === 'beacon' ? (url, body) => { seen.beacon = { url, body }; return true; } : undefined,
    }, configurable: true });
    globalThis.location = { replace: (u) => seen.navigation.push(['replace', u]), set href(u) { seen.navigation.push(['href', u]); } };
    globalThis.Image = function () { return { set src(v) { seen.image = v; } }; };
    const timers = [];
    globalThis.setTimeout = (f, ms) => { timers.push([ms || 0, f]); };
    new Function(script)();
    seen.timers = timers.map(([ms]) => ms);
    timers.sort((a, b) => a[0] - b[0]).forEach(([, f]) => f());
    process.stdout.write(JSON.stringify(seen));
    """#

/// Runs the interstitial's inline script under Node with mocked browser globals.
private func runScript(_ html: String, mode: String) throws -> [String: Any] {
    let start = try #require(html.range(of: "\">", range: html.range(of: "<script nonce=")!.upperBound..<html.endIndex))
    let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
    let script = String(html[start.upperBound..<end.lowerBound])
    let result = try ChildProcess.run(
        node!, ["-e", harness, mode], environment: ["TZ": "Europe/Paris", "PATH": "/usr/bin:/bin"],
        input: Data(script.utf8))
    #expect(result.status == 0)
    let data = result.stdout
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

@Suite(.enabled(if: node != nil, "needs Node.js to run the page's script"))
struct InterstitialScriptTests {
    @Test func theScriptPostsTheBeaconThenOpensTheAppThenTheStore() throws {
        let app = try TestApp()
        _ = try app.projectWithLink()
        let page = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": safariIPhone])
        let clickID = try #require(page.header("X-Click-Id"))
        let seen = try runScript(page.bodyText, mode: "beacon")

        let beacon = try #require(seen["beacon"] as? [String: String])
        #expect(beacon["url"] == "/c/\(clickID)")
        let navigation = try #require(seen["navigation"] as? [[String]])
        #expect(navigation.first == ["href", "shop://product/42"])
        #expect(navigation.last == ["replace", "https://apps.apple.com/app/id123?utm_source=mail&utm_campaign=summer"])
        #expect(seen["timers"] as? [Int] == [1500])  // the store only if the app did not open within 1.5 s

        // What the script sent is accepted by the server and lands on the click.
        let stored = try app.request(
            "POST", beacon["url"]!, json: beacon["body"]!, adminKey: nil, headers: ["Content-Type": "text/plain;charset=UTF-8"])
        #expect(stored.status == 204)
        let click = try #require(try app.store.clicks.find(clickID: clickID))
        #expect(click.screenWidth == 390 && click.screenHeight == 844 && click.pixelRatio == 3)
        #expect(click.timezone == "Europe/Paris")
        #expect(click.utcOffsetMinutes == 60 || click.utcOffsetMinutes == 120)  // CET or CEST, whichever is in force
        #expect(click.languages == ["fr-FR", "fr"])
    }

    @Test func withoutSendBeaconTheScriptFallsBackToAnImageGET() throws {
        let app = try TestApp()
        _ = try app.projectWithLink(#"{"short_code":"plain"}"#)
        let page = try app.request("GET", "/plain", adminKey: nil, headers: ["User-Agent": safariIPhone])
        let clickID = try #require(page.header("X-Click-Id"))
        let seen = try runScript(page.bodyText, mode: "image")
        let image = try #require(seen["image"] as? String)
        #expect(image.hasPrefix("/c/\(clickID)?"))
        #expect((seen["navigation"] as? [[String]]) == [["replace", "https://apps.apple.com/app/id123"]])
        #expect(try app.request("GET", image, adminKey: nil).status == 204)
        let click = try #require(try app.store.clicks.find(clickID: clickID))
        #expect(click.timezone == "Europe/Paris" && click.languages == ["fr-FR", "fr"] && click.pixelRatio == 3)
    }
}
