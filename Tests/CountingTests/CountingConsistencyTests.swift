import Attribution
import Counting
import Testing

/// The incremental rules (an event at a time, a change of state) add up to what a recount of the
/// final rows adds, for seeded random installs.
@Suite struct CountingConsistencyTests {
    static func randomInstall(_ random: inout SeededGenerator) -> InstallFact {
        let attributed = Bool.random(using: &random)
        return InstallFact(
            projectID: "P", createdAt: 20_000 * 86_400_000 + Int64.random(in: 0..<86_400_000, using: &random), isTest: false,
            attributed: attributed, linkID: ["L1", "L2", nil].randomElement(using: &random)!,
            matchType: attributed ? ["deterministic", "probabilistic"].randomElement(using: &random)! : "none",
            appleAds: Bool.random(using: &random), confidence: Double.random(in: 0...1, using: &random), signedUp: Bool.random(using: &random),
            hasLivePayment: false, hasRevenueEvent: false, platform: ["ios", "android"].randomElement(using: &random)!, osVersion: "17.1",
            country: ["DE", nil].randomElement(using: &random)!, click: Bool.random(using: &random) ? InstallFact.Click(referer: "https://x.io") : nil
        )
    }

    static func randomEvent(after install: InstallFact, _ random: inout SeededGenerator) -> EventFact {
        EventFact(
            at: install.createdAt + Int64.random(in: -3_600_000..<(35 * 86_400_000), using: &random),
            name: ["open", "purchase", "signup"].randomElement(using: &random)!, currency: ["USD", nil].randomElement(using: &random)!,
            revenue: Bool.random(using: &random) ? Double(Int.random(in: 1...999, using: &random)) / 100 : nil)
    }

    static func history(of event: EventFact, among others: [EventFact], install: InstallFact) -> EventHistory {
        let day = (event.at - install.createdAt) / 86_400_000
        return EventHistory(
            earliestOtherOfName: others.filter { $0.name == event.name }.map(\.at).min(),
            otherOnItsDay: others.contains { $0.at >= install.createdAt + day * 86_400_000 && $0.at < install.createdAt + (day + 1) * 86_400_000 })
    }

    @Test(arguments: 1...40 as ClosedRange<UInt64>)
    func eventsAddedOneByOneAddUpToTheRecount(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var install = Self.randomInstall(&random)
        var incremental = RollupTables()
        incremental.add(Counting.install(install))
        var events: [EventFact] = []
        var payments: [PaymentFact] = []
        for _ in 0..<Int.random(in: 0...12, using: &random) {
            if Int.random(in: 0..<4, using: &random) == 0 {
                let payment = PaymentFact(at: install.createdAt + 1000, currency: "EUR", amount: 4.5)
                incremental.add(Counting.paymentAdded(payment, to: install))
                install.hasLivePayment = true
                payments.append(payment)
                continue
            }
            let event = Self.randomEvent(after: install, &random)
            incremental.add(Counting.eventAdded(event, to: install, history: Self.history(of: event, among: events, install: install)))
            if event.name == Counting.signupEventName { install.signedUp = true }
            if event.revenue != nil { install.hasRevenueEvent = true }
            events.append(event)
        }
        var recount = RollupTables()
        recount.add(
            Counting.contribution(of: InstallState(install: install, events: events, payments: payments, skan: [SKANFact(window: 0, value: "3")])))
        incremental.add(
            Counting.skanChanged(window: 0, from: nil, to: "3", projectID: install.projectID, installedAt: install.createdAt, isTest: false))
        #expect(incremental.differences(from: recount) == [])
    }

    @Test(arguments: 1...40 as ClosedRange<UInt64>)
    func aChangeOfStateIsTheNewStateLessTheOld(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let old = Self.randomInstall(&random)
        var new = old
        new.attributed.toggle()
        new.linkID = ["L1", "L3", nil].randomElement(using: &random)!
        new.matchType = new.attributed ? "deterministic" : "none"
        new.signedUp = Bool.random(using: &random)
        let events = (0..<4).map { _ in Self.randomEvent(after: old, &random) }
        let before = InstallState(install: old, events: events, payments: [PaymentFact(at: old.createdAt, currency: "USD", amount: 2)], skan: [])
        let after = InstallState(
            install: new, events: Array(events.prefix(Int.random(in: 0...4, using: &random))), payments: before.payments, skan: [])
        var changed = RollupTables()
        changed.add(Counting.contribution(of: before))
        changed.add(Counting.change(from: before, to: after))
        var recount = RollupTables()
        recount.add(Counting.contribution(of: after))
        #expect(changed.differences(from: recount) == [])
        var erased = RollupTables()
        erased.add(Counting.contribution(of: before))
        erased.add(Counting.contribution(of: before).negated)
        #expect(erased.differences(from: RollupTables()) == [])
    }
}
