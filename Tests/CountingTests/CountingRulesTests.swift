import Attribution
import Counting
import Testing

/// The counting rules as tables of facts and the deltas they add.
@Suite struct CountingRulesTests {
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000
    static let installedAt: Int64 = 20_000 * day + 5 * hour

    static func install(
        attributed: Bool = true, link: String? = "L1", matchType: String = "deterministic", appleAds: Bool = false, confidence: Double = 0.9,
        signedUp: Bool = false, payment: Bool = false, revenueEvent: Bool = false, isTest: Bool = false, referer: String?? = .some(nil)
    ) -> InstallFact {
        InstallFact(
            projectID: "P", createdAt: installedAt, isTest: isTest, attributed: attributed, linkID: link, matchType: matchType, appleAds: appleAds,
            confidence: confidence, signedUp: signedUp, hasLivePayment: payment, hasRevenueEvent: revenueEvent, platform: "ios",
            osVersion: "17.4.1", country: "DE", click: referer.map { InstallFact.Click(referer: $0) })
    }

    static func tallies(_ deltas: Deltas) -> [String: Int64] {
        var sums: [String: Int64] = [:]
        for tally in deltas.tallies { sums["\(tally.dimension)=\(tally.value)@\(tally.at / hour)", default: 0] += tally.count }
        return sums.filter { $0.value != 0 }
    }

    @Test func aHumanClickCountsByItsPropertiesABotOnlyAsABot() {
        let human = Counting.click(
            ClickFact(
                projectID: "P", at: 7 * Self.hour + 5, linkID: "L1", isBot: false, platform: "android", osVersion: "14", country: nil,
                referer: "https://www.Google.com/search?q=x"))
        #expect(human.counts.map(\.counters.clicks) == [1] && human.counts[0].linkID == "L1" && human.counts[0].inHours)
        #expect(
            Self.tallies(human) == [
                "click_platform=android@7": 1, "click_os=android 14@7": 1, "click_country=@7": 1, "click_referrer=google.com@7": 1,
            ])
        let bot = Counting.click(
            ClickFact(projectID: "P", at: 0, linkID: nil, isBot: true, platform: "bot", osVersion: nil, country: nil, referer: nil))
        #expect(bot.counts.map(\.counters.botClicks) == [1] && bot.counts[0].linkID == "" && bot.tallies.isEmpty)
    }

    @Test(
        arguments: [
            // attributed, link, match type, Apple Ads → installs, attributed, apple ads, deterministic, probabilistic, organic, link counted
            (true, "L1", "deterministic", false, [1, 1, 0, 1, 0, 0], "L1"),
            (true, "L1", "probabilistic", false, [1, 1, 0, 0, 1, 0], "L1"),
            (true, nil, "deterministic", true, [1, 1, 1, 1, 0, 0], ""),
            (false, "L1", "none", false, [1, 0, 0, 0, 0, 1], ""),
        ] as [(Bool, String?, String, Bool, [Int64], String)])
    func anInstallCountsByHowItWasAttributed(attributed: Bool, link: String?, matchType: String, appleAds: Bool, expected: [Int64], counted: String) {
        let deltas = Counting.install(Self.install(attributed: attributed, link: link, matchType: matchType, appleAds: appleAds))
        let c = deltas.counts[0].counters
        #expect(
            [c.installs, c.attributedInstalls, c.appleAdsInstalls, c.deterministicInstalls, c.probabilisticInstalls, c.organicInstalls] == expected)
        #expect(deltas.counts[0].linkID == counted)
        #expect(Self.tallies(deltas)["confidence=high@\(Self.installedAt / Self.hour)"] == (attributed ? 1 : nil))
    }

    @Test func anInstallsReferrerIsItsClicksAndNoneWithoutAClick() {
        let h = Self.installedAt / Self.hour
        #expect(Self.tallies(Counting.install(Self.install(referer: .some("https://t.co/x"))))["install_referrer=t.co@\(h)"] == 1)
        #expect(Self.tallies(Counting.install(Self.install(referer: .some(nil))))["install_referrer=@\(h)"] == 1)
        #expect(!Self.tallies(Counting.install(Self.install(referer: .none))).keys.contains { $0.hasPrefix("install_referrer") })
    }

    @Test func aTestInstallAndEverythingOfItAddNothing() {
        let test = Self.install(isTest: true)
        #expect(Counting.install(test).isEmpty)
        let event = EventFact(at: Self.installedAt + Self.day, name: "purchase", currency: "USD", revenue: 5)
        #expect(Counting.eventAdded(event, to: test, history: EventHistory(earliestOtherOfName: nil, otherOnItsDay: false)).isEmpty)
        #expect(Counting.paymentAdded(PaymentFact(at: Self.installedAt, currency: "USD", amount: 3), to: test).isEmpty)
        #expect(Counting.skanChanged(window: 0, from: nil, to: "12", projectID: "P", installedAt: 0, isTest: true).isEmpty)
    }

    @Test func anEventOnDayThreeCountsInTheSpanAndAsActiveUnlessAnotherWasThatDay() {
        let install = Self.install()
        let event = EventFact(at: Self.installedAt + 3 * Self.day + 10, name: "level", currency: nil, revenue: 1.5)
        let h = Self.installedAt / Self.hour
        let first = Self.tallies(Counting.eventAdded(event, to: install, history: EventHistory(earliestOtherOfName: nil, otherOnItsDay: false)))
        #expect(first["cohort_events=3@\(h)"] == 1 && first["cohort_active=3@\(h)"] == 1 && first["cohort_revenue=:3@\(h)"] == 1_500_000)
        #expect(first["event_installs=level@\(event.at / Self.hour)"] == 1)
        let second = Self.tallies(
            Counting.eventAdded(event, to: install, history: EventHistory(earliestOtherOfName: Self.installedAt, otherOnItsDay: true)))
        #expect(second["cohort_active=3@\(h)"] == nil && second.keys.contains { $0.hasPrefix("event_installs") } == false)
    }

    @Test func anEarlierEventOfANameTakesOverAsTheFirst() {
        let later = Self.installedAt + 2 * Self.day
        let event = EventFact(at: Self.installedAt + Self.hour, name: "open", currency: nil, revenue: nil)
        let tallies = Self.tallies(
            Counting.eventAdded(event, to: Self.install(), history: EventHistory(earliestOtherOfName: later, otherOnItsDay: false)))
        #expect(tallies["event_installs=open@\(event.at / Self.hour)"] == 1 && tallies["event_installs=open@\(later / Self.hour)"] == -1)
    }

    @Test func theSignupEventAndTheFirstPaymentCountTheInstallOnce() {
        let signup = EventFact(at: Self.installedAt + 1, name: "signup", currency: nil, revenue: nil)
        let none = EventHistory(earliestOtherOfName: nil, otherOnItsDay: false)
        let first = Counting.eventAdded(signup, to: Self.install(), history: none)
        #expect(first.counts.map(\.counters.signups).reduce(0, +) == 1)
        #expect(Counting.eventAdded(signup, to: Self.install(signedUp: true), history: none).counts.map(\.counters.signups).reduce(0, +) == 0)
        let payment = PaymentFact(at: Self.installedAt + 5, currency: "EUR", amount: 9.99)
        #expect(Counting.paymentAdded(payment, to: Self.install()).counts.map(\.counters.payingInstalls) == [1])
        #expect(Counting.paymentAdded(payment, to: Self.install(payment: true)).counts.isEmpty)
        #expect(
            Counting.paymentRemoved(payment, from: Self.install(payment: true), otherLivePayment: false).counts.map(\.counters.payingInstalls) == [-1]
        )
        #expect(Counting.paymentRemoved(payment, from: Self.install(payment: true), otherLivePayment: true).counts.isEmpty)
    }

    @Test func aDeletedLinksClicksMoveToNoLinkWithoutTouchingTheProjectsHours() {
        let deltas = Counting.linkDeleted(
            projectID: "P", linkID: "L1", hours: [(hour: 10, clicks: 3, botClicks: 1), (hour: 11, clicks: 0, botClicks: 0)])
        #expect(deltas.counts.count == 2 && deltas.counts.allSatisfy { !$0.inHours })
        #expect(
            deltas.counts[0].linkID == "L1" && deltas.counts[0].counters.clicks == -3 && deltas.counts[1].linkID == ""
                && deltas.counts[1].counters.botClicks == 1)
    }
}
