import Foundation
import JSON
import Testing

@testable import Attribution

private let now = Timestamp(milliseconds: 1_790_000_000_000)

private func tap(
    _ platform: TapPlatform = .ios, os: String? = "17.4.1", languages: [String] = ["de-AT", "de", "en"], country: String? = "AT",
    inApp: String? = nil, at time: Timestamp = now
) -> Tap {
    Tap(platform: platform, osVersion: os, languages: languages, country: country, inAppBrowser: inApp, time: time)
}

private func rules(_ json: String) throws -> [LinkRule] {
    try LinkRoutingJSON.rules(try JSONDecoderValue.parse(json))
}

/// JSON text as `JSONValue`, the way the admin API hands it over.
enum JSONDecoderValue {
    static func parse(_ text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }
}

@Suite struct LinkRuleTests {
    @Test func theFirstRuleThatHoldsWinsAndAnEmptyOneIsTheFallback() throws {
        let list = try rules(
            #"[{"when":{"platform":"android"},"url":"https://a.example/android"},"#
                + #"{"when":{"platform":["ios","ipados"],"language":"de"},"url":"https://a.example/ios-de"},"#
                + #"{"when":{"platform":"ios"},"url":"https://a.example/ios"},"#
                + #"{"url":"https://a.example/fallback"}]"#)
        #expect(list.first(matching: tap(.android))?.url == "https://a.example/android")
        #expect(list.first(matching: tap(.ios))?.url == "https://a.example/ios-de")
        #expect(list.first(matching: tap(.ipados, languages: ["fr"]))?.url == "https://a.example/fallback")
        #expect(list.first(matching: tap(.ios, languages: ["fr"]))?.url == "https://a.example/ios")
        #expect(list.first(matching: tap(.desktop))?.url == "https://a.example/fallback")
        #expect(try rules(#"[{"when":{"platform":"android"},"url":"https://a.example/x"}]"#).first(matching: tap(.ios)) == nil)
    }

    @Test func eachConditionAsksWhatItSays() throws {
        func holds(_ when: String, _ tap: Tap) throws -> Bool {
            try rules(#"[{"when":\#(when),"url":"https://a.example/"}]"#).first(matching: tap) != nil
        }
        // OS versions: bounds inclusive; an upper bound covers every version it starts.
        #expect(try holds(#"{"os_version":{"min":"17"}}"#, tap(os: "17.0")))
        #expect(try holds(#"{"os_version":{"min":"16.4"}}"#, tap(os: "16.4.1")))
        #expect(try !holds(#"{"os_version":{"min":"17.5"}}"#, tap(os: "17.4.1")))
        #expect(try holds(#"{"os_version":{"max":"17"}}"#, tap(os: "17.4.1")))
        #expect(try !holds(#"{"os_version":{"max":"16.4"}}"#, tap(os: "16.5")))
        #expect(try holds(#"{"os_version":{"min":"10","max":"12"}}"#, tap(.android, os: "11")))
        #expect(try !holds(#"{"os_version":{"min":"10"}}"#, tap(.android, os: nil)))  // unknown version: no
        // Languages: the preferred one; a primary tag admits its regions, a region tag only itself.
        #expect(try holds(#"{"language":["fr","de"]}"#, tap(languages: ["de-AT"])))
        #expect(try !holds(#"{"language":"de"}"#, tap(languages: ["en-GB", "de"])))
        #expect(try holds(#"{"language":"pt-BR"}"#, tap(languages: ["pt-br"])))
        #expect(try !holds(#"{"language":"pt-BR"}"#, tap(languages: ["pt-PT"])))
        #expect(try !holds(#"{"language":"de"}"#, tap(languages: [])))
        // Countries: unknown is no country.
        #expect(try holds(#"{"country":["at","CH"]}"#, tap(country: "AT")))
        #expect(try !holds(#"{"country":"DE"}"#, tap(country: "AT")))
        #expect(try !holds(#"{"country":"DE"}"#, tap(country: nil)))
        // In-app browsers, by name or any.
        #expect(try holds(#"{"in_app":"instagram"}"#, tap(inApp: "Instagram")))
        #expect(try !holds(#"{"in_app":"instagram"}"#, tap(inApp: "TikTok")))
        #expect(try holds(#"{"in_app":"any"}"#, tap(inApp: "LINE")))
        #expect(try !holds(#"{"in_app":"any"}"#, tap(inApp: nil)))
        // A time window: after inclusive, before exclusive.
        let window = #"{"after":"2026-09-21T00:00:00Z","before":"2026-09-22T00:00:00Z"}"#
        #expect(try holds(window, tap(at: Timestamp(iso8601: "2026-09-21T00:00:00Z")!)))
        #expect(try holds(window, tap(at: Timestamp(iso8601: "2026-09-21T23:59:59Z")!)))
        #expect(try !holds(window, tap(at: Timestamp(iso8601: "2026-09-22T00:00:00Z")!)))
        #expect(try !holds(window, tap(at: Timestamp(iso8601: "2026-09-20T23:59:59Z")!)))
        // Every condition of a rule must hold.
        #expect(try !holds(#"{"platform":"ios","country":"DE"}"#, tap(.ios, country: "AT")))
    }

    @Test func refusalsNameTheKey() throws {
        func refusal(_ json: String) throws -> String? {
            do {
                _ = try rules(json)
                return nil
            } catch let refusal as LinkRoutingJSON.Refusal {
                return refusal.problem.key
            }
        }
        #expect(try refusal(#"{"url":"https://a.example/"}"#) == "rules")
        #expect(try refusal(#"[{"when":{"platform":"windows"},"url":"https://a.example/"}]"#) == "rules[0].when.platform")
        #expect(try refusal(#"[{"url":"https://a.example/"},{"when":{"country":"DEU"},"url":"https://a.example/"}]"#) == "rules[1].when.country")
        #expect(try refusal(#"[{"when":{"os_version":{"min":"seventeen"}},"url":"https://a.example/"}]"#) == "rules[0].when.os_version.min")
        #expect(try refusal(#"[{"when":{"language":"german!"},"url":"https://a.example/"}]"#) == "rules[0].when.language")
        #expect(try refusal(#"[{"when":{"in_app":"myspace"},"url":"https://a.example/"}]"#) == "rules[0].when.in_app")
        #expect(try refusal(#"[{"when":{"after":"tomorrow"},"url":"https://a.example/"}]"#) == "rules[0].when.after")
        #expect(
            try refusal(#"[{"when":{"after":"2026-02-01T00:00:00Z","before":"2026-01-01T00:00:00Z"},"url":"https://a.example/"}]"#)
                == "rules[0].when.before")
        #expect(try refusal(#"[{"when":{"moon":"full"},"url":"https://a.example/"}]"#) == "rules[0].when.moon")
        #expect(try refusal(#"[{"when":{},"url":"javascript:alert(1)"}]"#) == "rules[0].url")
        #expect(try refusal(#"[{"when":{}}]"#) == "rules[0].url")
        #expect(try refusal(#"[{"url":"https://a.example/","then":1}]"#) == "rules[0].then")
        // What is stored reads back the same.
        let list = try rules(
            #"[{"when":{"platform":["ios"],"os_version":{"min":"16","max":"17.4"},"language":["de"],"country":["AT"],"in_app":["any"],"after":"2026-01-01T00:00:00Z"},"url":"https://a.example/"}]"#
        )
        #expect(try LinkRoutingJSON.rules(LinkRoutingJSON.json(list)) == list)
    }

    @Test func platformsAreToldApartFromTheUserAgent() {
        func platform(_ userAgent: String) -> TapPlatform { TapPlatform.of(UserAgentParser.parse(userAgent), userAgent: userAgent) }
        #expect(
            platform("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148")
                == .ios)
        #expect(platform("Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148") == .ipados)
        #expect(
            platform("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36") == .android)
        #expect(platform("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36") == .desktop)
        #expect(platform("Mozilla/5.0 (PlayStation; PlayStation 5/2.26) AppleWebKit/605.1.15 (KHTML, like Gecko)") == .other)
    }
}

@Suite struct LinkVariantTests {
    private func variants(_ json: String) throws -> [LinkVariant] { try LinkRoutingJSON.variants(try JSONDecoderValue.parse(json)) }

    @Test func tenThousandVisitorsSplitByTheWeightsWithinTwoPercent() throws {
        let split = try variants(
            #"[{"url":"https://a.example/a","weight":50},{"url":"https://a.example/b","weight":30},{"name":"c","url":"https://a.example/c","weight":20}]"#
        )
        #expect(split.map(\.name) == ["A", "B", "c"])
        var counts: [String: Int] = [:]
        for visitor in 0..<10_000 {
            counts[split.pick(visitor: "198.51.\(visitor / 256).\(visitor % 256)", linkID: "link-1")!.name, default: 0] += 1
        }
        #expect(abs(Double(counts["A"]!) / 10_000 - 0.5) <= 0.02)
        #expect(abs(Double(counts["B"]!) / 10_000 - 0.3) <= 0.02)
        #expect(abs(Double(counts["c"]!) / 10_000 - 0.2) <= 0.02)
    }

    @Test func aVisitorKeepsTheirVariantAndLinksSplitIndependently() throws {
        let split = try variants(#"[{"url":"https://a.example/a","weight":1},{"url":"https://a.example/b","weight":1}]"#)
        for visitor in ["203.0.113.7", "2001:db8:1:2::/64", ""] {
            let first = split.pick(visitor: visitor, linkID: "link-1")
            for _ in 0..<20 { #expect(split.pick(visitor: visitor, linkID: "link-1") == first) }
        }
        // The same visitors on another link fall differently (otherwise every test would share its arms).
        let visitors = (0..<200).map { "10.0.0.\($0)" }
        let onOne = visitors.map { split.pick(visitor: $0, linkID: "link-1")!.name }
        let onTwo = visitors.map { split.pick(visitor: $0, linkID: "link-2")!.name }
        #expect(zip(onOne, onTwo).filter { $0 != $1 }.count > 50)
        // A weight of 0 pauses an arm.
        let paused = try variants(#"[{"url":"https://a.example/a","weight":0},{"url":"https://a.example/b","weight":5}]"#)
        #expect(visitors.allSatisfy { paused.pick(visitor: $0, linkID: "link-1")?.name == "B" })
    }

    @Test func badVariantsAreRefusedNamingTheKey() throws {
        func refusal(_ json: String) throws -> String? {
            do {
                _ = try variants(json)
                return nil
            } catch let refusal as LinkRoutingJSON.Refusal {
                return refusal.problem.key
            }
        }
        #expect(try refusal(#"[{"url":"https://a.example/a","weight":1}]"#) == "variants")
        #expect(try refusal(#"[{"url":"https://a.example/a","weight":1},{"url":"https://a.example/b","weight":1.5}]"#) == "variants[1].weight")
        #expect(try refusal(#"[{"url":"https://a.example/a","weight":1},{"url":"https://a.example/b","weight":1001}]"#) == "variants[1].weight")
        #expect(try refusal(#"[{"url":"https://a.example/a","weight":0},{"url":"https://a.example/b","weight":0}]"#) == "variants")
        #expect(try refusal(#"[{"url":"ftp://a.example/a","weight":1},{"url":"https://a.example/b","weight":1}]"#) == "variants[0].url")
        #expect(
            try refusal(#"[{"name":"x","url":"https://a.example/a","weight":1},{"name":"x","url":"https://a.example/b","weight":1}]"#)
                == "variants[1].name")
        #expect(
            try refusal(#"[{"name":"a b","url":"https://a.example/a","weight":1},{"url":"https://a.example/b","weight":1}]"#) == "variants[0].name")
        #expect(try refusal("[]") == nil)
    }
}
