import Attribution
import Foundation
import JSON
import Testing

@Suite struct AppleAdsAnswerTests {
    private func answer(_ json: String) -> AppleAdsAnswer? {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)) else { return nil }
        return AppleAdsAnswer(json: value)
    }

    /// Apple's documented answer: integer ids, a minute-precision date.
    @Test func readsApplesAnswerWithMinuteDatesAndIntegerIDs() throws {
        let parsed = try #require(
            answer(
                #"{"attribution":true,"orgId":40669820,"campaignId":542370539,"conversionType":"Download","clickDate":"2024-10-08T17:17Z","claimType":"Click","adGroupId":542317095,"countryOrRegion":"US","keywordId":87675432,"adId":542317136,"supplyPlacement":"APPSTORE_SEARCH_RESULTS"}"#
            ))
        #expect(parsed.attribution && parsed.campaignID == "542370539" && parsed.adGroupID == "542317095" && parsed.keywordID == "87675432")
        #expect(parsed.orgID == "40669820" && parsed.adID == "542317136" && parsed.claimType == .click && parsed.countryOrRegion == "US")
        #expect(parsed.claimedAt == Timestamp(iso8601: "2024-10-08T17:17:00Z"))
        #expect(!parsed.isTest)
        // A view, its date under `impressionDate`; search match has no keyword.
        let view = try #require(
            answer(#"{"attribution":true,"campaignId":1,"adGroupId":2,"impressionDate":"2024-10-08T17:17Z","claimType":"Impression"}"#))
        #expect(view.claimType == .impression && view.keywordID == nil && view.claimedAt != nil)
        #expect(answer(#"{"attribution":false}"#) == AppleAdsAnswer(attribution: false))
        // Developer-mode tokens answer fixed ids: flagged as test data.
        #expect(
            answer(
                #"{"attribution":true,"orgId":1234567890,"campaignId":1234567890,"adGroupId":1234567890,"keywordId":12323222,"clickDate":"2024-10-08T17:17Z"}"#
            )?.isTest == true)
    }

    @Test func refusesWhatIsNotAnAnswer() {
        for json in [
            #"{}"#, #"{"attribution":"yes"}"#, #"[true]"#, #"{"attribution":true,"campaignId":1.5}"#,
            #"{"attribution":true,"campaignId":{"id":1}}"#, #"{"attribution":true,"clickDate":"yesterday"}"#,
        ] {
            #expect(answer(json) == nil, "\(json)")
        }
    }

    @Test func theLaterTouchWinsWithinApplesWindows() throws {
        let installedAt = try #require(Timestamp(iso8601: "2026-11-20T12:00:00Z"))
        func tap(minutesBefore: Int64, type: AppleAdsAnswer.ClaimType = .click) -> AppleAdsAnswer {
            AppleAdsAnswer(attribution: true, campaignID: "1", claimType: type, claimedAt: installedAt.adding(seconds: -minutesBefore * 60))
        }
        let linkClick = MatchResult(
            matchType: .deterministic, attributed: true, confidence: 1, matchedFactors: ["idfv"], clickID: "c",
            linkID: "l", clickedAt: installedAt.adding(seconds: -3600))
        let fingerprint = MatchResult(
            matchType: .probabilistic, attributed: true, confidence: 0.85, matchedFactors: ["ip"], clickID: "c",
            linkID: "l", clickedAt: installedAt.adding(seconds: -60))
        // Apple's answer beats no match and a probabilistic one, whatever the times.
        #expect(AppleAdsPrecedence.claimWins(tap(minutesBefore: 600), over: .organic, installedAt: installedAt))
        #expect(AppleAdsPrecedence.claimWins(tap(minutesBefore: 600), over: fingerprint, installedAt: installedAt))
        // Against a deterministic link match the later touch wins.
        #expect(AppleAdsPrecedence.claimWins(tap(minutesBefore: 30), over: linkClick, installedAt: installedAt))
        #expect(!AppleAdsPrecedence.claimWins(tap(minutesBefore: 90), over: linkClick, installedAt: installedAt))
        // Windows: taps 30 days, views 24 hours.
        #expect(AppleAdsPrecedence.claimWins(tap(minutesBefore: 29 * 1440), over: .organic, installedAt: installedAt))
        #expect(!AppleAdsPrecedence.claimWins(tap(minutesBefore: 31 * 1440), over: .organic, installedAt: installedAt))
        #expect(AppleAdsPrecedence.claimWins(tap(minutesBefore: 600, type: .impression), over: .organic, installedAt: installedAt))
        #expect(!AppleAdsPrecedence.claimWins(tap(minutesBefore: 25 * 60, type: .impression), over: .organic, installedAt: installedAt))
        // Apple's "no" never wins.
        #expect(!AppleAdsPrecedence.claimWins(AppleAdsAnswer(attribution: false), over: .organic, installedAt: installedAt))
    }
}
