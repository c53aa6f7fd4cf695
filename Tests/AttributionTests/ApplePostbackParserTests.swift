import Testing

@testable import Attribution

/// The bytes each SKAdNetwork version signs, and what a value stands for under a schema.
@Suite struct ApplePostbackParserTests {
    static let separator = "\u{2063}"

    @Test func version4SignsItsTenFieldsJoinedByTheInvisibleSeparator() throws {
        let body =
            #"{"version":"4.0","ad-network-id":"com.example","source-identifier":"5239","app-id":525463029,"transaction-id":"t-1","redownload":false,"source-domain":"example.com","fidelity-type":1,"did-win":true,"conversion-value":63,"postback-sequence-index":0,"attribution-signature":"MEUCIA=="}"#
        let (postback, signature) = try ApplePostbackParser.parse(Array(body.utf8), framework: .skadnetwork).get()
        let expected = ["4.0", "com.example", "5239", "525463029", "t-1", "false", "example.com", "1", "true", "0"].joined(separator: Self.separator)
        #expect(String(decoding: signature.message, as: UTF8.self) == expected)
        #expect(signature.encoding == .der)
        #expect(signature.keyID == "apple-cas-identifier/0")
        #expect(postback.fineValue == 63)
        #expect(postback.sourceDomain == "example.com")
    }

    @Test func olderVersionsSignTheirOwnFieldsAndLeaveOutAnAbsentSource() throws {
        let v3 =
            #"{"version":"3.0","ad-network-id":"n","campaign-id":42,"transaction-id":"t","app-id":7,"attribution-signature":"MEUCIA==","redownload":true,"fidelity-type":1,"did-win":false}"#
        let (_, signed3) = try ApplePostbackParser.parse(Array(v3.utf8), framework: .skadnetwork).get()
        #expect(
            String(decoding: signed3.message, as: UTF8.self) == ["3.0", "n", "42", "7", "t", "true", "1", "false"].joined(separator: Self.separator))
        let v21 =
            #"{"version":"2.1","ad-network-id":"n","campaign-id":42,"transaction-id":"t","app-id":7,"attribution-signature":"MEUCIA==","redownload":false,"source-app-id":9}"#
        let (postback, signed21) = try ApplePostbackParser.parse(Array(v21.utf8), framework: .skadnetwork).get()
        #expect(String(decoding: signed21.message, as: UTF8.self) == ["2.1", "n", "42", "7", "t", "false", "9"].joined(separator: Self.separator))
        #expect(postback.sourceIdentifier == nil && postback.campaignID == 42 && postback.source == "42")
    }

    @Test func refusalsNameTheField() {
        func code(_ body: String, _ framework: ApplePostback.Framework = .skadnetwork) -> String? {
            if case .failure(let rejection) = ApplePostbackParser.parse(Array(body.utf8), framework: framework) { return rejection.message }
            return nil
        }
        #expect(code(#"{"version":"1.0"}"#)?.contains("1.0") == true)
        #expect(code(#"{"version":"4.0","ad-network-id":"n","source-identifier":"1","app-id":7}"#)?.contains("'attribution-signature'") == true)
        #expect(code(#"{"jws-string":"e30.e30.AA"}"#, .adattributionkit)?.contains("'alg'") == true)
        #expect(code(#"{"jws-string":"x"}"#, .adattributionkit)?.contains("compact JWS") == true)
    }

    @Test func storeURLsGiveTheAppStoreID() {
        #expect(AppStoreID.from(storeURL: "https://apps.apple.com/us/app/example/id525463029") == 525_463_029)
        #expect(AppStoreID.from(storeURL: "https://apps.apple.com/app/id123?mt=8") == 123)
        #expect(AppStoreID.from(storeURL: "https://itunes.apple.com/app/id42") == 42)
        #expect(AppStoreID.from(storeURL: "https://play.google.com/store/apps/details?id=com.shop") == nil)
        #expect(AppStoreID.from(storeURL: "https://apps.apple.com/us/app/idea") == nil)
    }

    @Test func fineValuesDecodeThroughEachKindOfSchema() throws {
        let bitfield = try SKANSchemaParser.parse(json: specSchemaJSON)
        let twenty = try #require(SKANValueDecoder.decode(fine: 20, sequenceIndex: 0, schema: bitfield))
        #expect(twenty.events == ["purchase"])
        #expect(twenty.revenueAtLeast == 25 && twenty.revenueBelow == 50)
        #expect(twenty.explanation.contains("bit 3 (signup): no"))
        let zero = try #require(SKANValueDecoder.decode(fine: 0, sequenceIndex: 0, schema: bitfield))
        #expect(zero.events.isEmpty && zero.revenueAtLeast == nil && zero.revenueBelow == 0.01)
        // Window 2 has no fine rules.
        #expect(SKANValueDecoder.decode(fine: 5, sequenceIndex: 1, schema: bitfield) == nil)
        // The values the evaluator gives decode back to what the install did.
        for (events, revenue) in [([String](), 0.0), (["signup"], 7.0), (["purchase", "subscribe"], 120.0)] {
            var history = events.map { SKANEvent(name: $0, receivedAt: Timestamp(milliseconds: 1000)) }
            if revenue > 0 { history.append(SKANEvent(name: "purchase", receivedAt: Timestamp(milliseconds: 1000), amount: revenue)) }
            let value = try #require(
                SKANEvaluator.evaluate(
                    schema: bitfield, isIOS: true, firstInit: Timestamp(milliseconds: 0), now: Timestamp(milliseconds: 2000), events: history,
                    state: [:]
                ).values)
            let decoded = try #require(SKANValueDecoder.decode(fine: value.fine, sequenceIndex: 0, schema: bitfield))
            #expect(Set(decoded.events) == Set(events + (revenue > 0 ? ["purchase"] : [])))
            #expect((decoded.revenueAtLeast ?? 0) <= revenue && revenue < (decoded.revenueBelow ?? .infinity))
        }
    }
}
