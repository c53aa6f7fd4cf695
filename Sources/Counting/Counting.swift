import Attribution

/// Every rule of what a fact adds to the rollups, and nowhere else: both backends' writers apply
/// these to what they write, and `attributiond rollups check` / `rebuild` recount the rows with
/// them (`contribution(of:)`, `click(_:)`). A fact of a test install adds nothing.
public enum Counting {
    /// The event whose name marks a signup, as the user id set by the SDK does.
    public static let signupEventName = "signup"

    /// Whether an install counts among the paying ones: it has a captured payment not removed,
    /// or an event with revenue (LinkForty's and WarpLink's SDKs have no payment call).
    public static func isPaying(hasLivePayment: Bool, hasRevenueEvent: Bool) -> Bool {
        hasLivePayment || hasRevenueEvent
    }

    /// The band an attributed install's confidence falls in (the `confidence` tally).
    public static func confidenceBand(_ confidence: Double) -> String {
        confidence >= 0.8 ? "high" : confidence >= 0.6 ? "medium" : "low"
    }

    /// A click: in its hour under its link, a human one also by platform, system, country and
    /// referring site.
    public static func click(_ click: ClickFact) -> Deltas {
        var deltas = Deltas()
        var counters = Counters()
        if click.isBot { counters.botClicks = 1 } else { counters.clicks = 1 }
        deltas.counts.append(CountDelta(projectID: click.projectID, at: click.at, linkID: click.linkID ?? "", inHours: true, counters: counters))
        guard !click.isBot else { return deltas }
        for (dimension, value) in [
            (TallyDimension.clickPlatform, click.platform ?? ""),
            (TallyDimension.clickOS, OperatingSystemGroup.of(platform: click.platform, version: click.osVersion)),
            (TallyDimension.clickCountry, click.country ?? ""),
            (TallyDimension.clickReferrer, ReferrerHost.of(click.referer)),
        ] {
            deltas.tallies.append(TallyDelta(projectID: click.projectID, at: click.at, dimension: dimension, value: value, count: 1))
        }
        return deltas
    }

    /// An install's own counts, without its events, payments and SKAN values.
    static func ownCounters(_ install: InstallFact) -> Counters {
        var counters = Counters()
        guard !install.isTest else { return counters }
        counters.installs = 1
        if install.attributed {
            counters.attributedInstalls = 1
            if install.appleAds { counters.appleAdsInstalls = 1 }
            if install.matchType == "deterministic" { counters.deterministicInstalls = 1 }
            if install.matchType == "probabilistic" { counters.probabilisticInstalls = 1 }
        } else {
            counters.organicInstalls = 1
        }
        if install.signedUp { counters.signups = 1 }
        if isPaying(hasLivePayment: install.hasLivePayment, hasRevenueEvent: install.hasRevenueEvent) { counters.payingInstalls = 1 }
        return counters
    }

    /// A new install (none of its events, payments or SKAN values stored yet): in its hour under
    /// its link, and by confidence, platform, system, country and the referring site of its click.
    public static func install(_ install: InstallFact) -> Deltas {
        var deltas = Deltas()
        guard !install.isTest else { return deltas }
        deltas.counts.append(
            CountDelta(
                projectID: install.projectID, at: install.createdAt, linkID: install.rollupLink, inHours: true, counters: ownCounters(install)))
        func tally(_ dimension: String, _ value: String) {
            deltas.tallies.append(TallyDelta(projectID: install.projectID, at: install.createdAt, dimension: dimension, value: value, count: 1))
        }
        if install.attributed { tally(TallyDimension.confidence, confidenceBand(install.confidence)) }
        tally(TallyDimension.installPlatform, install.platform ?? "")
        tally(TallyDimension.installOS, OperatingSystemGroup.of(platform: install.platform, version: install.osVersion))
        tally(TallyDimension.installCountry, install.country ?? "")
        if let click = install.click { tally(TallyDimension.installReferrer, ReferrerHost.of(click.referer)) }
        return deltas
    }

    /// An install with all its rows: what a recount adds for it, and what its erasure takes back.
    public static func contribution(of state: InstallState) -> Deltas {
        var deltas = install(state.install)
        guard !state.install.isTest else { return deltas }
        deltas.append(eventsContribution(state.events, of: state.install, inHours: true))
        deltas.append(paymentsMoney(state.payments, of: state.install, inHours: true))
        deltas.append(linkCohortRevenue(events: state.events, payments: state.payments, of: state.install))
        deltas.append(skanTallies(state.skan, of: state.install))
        return deltas
    }

    /// An install whose row or other rows changed (re-attributed, a user set, a user's events or
    /// payments erased): the new state counted, the old one taken back, what did not change left
    /// out. Events and payments that stay move to the new link without touching the project's
    /// hours.
    public static func change(from old: InstallState, to new: InstallState) -> Deltas {
        var deltas = Deltas()
        let wasCounted = !old.install.isTest
        let isCounted = !new.install.isTest
        if wasCounted != isCounted { return (contribution(of: new) + contribution(of: old).negated).netted }
        guard isCounted else { return deltas }
        deltas.append(install(new.install))
        deltas.append(install(old.install).negated)
        let moved = old.install.rollupLink != new.install.rollupLink
        if old.events == new.events {
            if moved {
                deltas.append(eventsMoney(new.events, of: new.install, inHours: false))
                deltas.append(eventsMoney(old.events, of: old.install, inHours: false).negated)
            }
        } else {
            deltas.append(eventsContribution(new.events, of: new.install, inHours: true))
            deltas.append(eventsContribution(old.events, of: old.install, inHours: true).negated)
        }
        if old.payments == new.payments {
            if moved {
                deltas.append(paymentsMoney(new.payments, of: new.install, inHours: false))
                deltas.append(paymentsMoney(old.payments, of: old.install, inHours: false).negated)
            }
        } else {
            deltas.append(paymentsMoney(new.payments, of: new.install, inHours: true))
            deltas.append(paymentsMoney(old.payments, of: old.install, inHours: true).negated)
        }
        // Moved with its install, or changed with its events and payments (netted when neither).
        deltas.append(linkCohortRevenue(events: new.events, payments: new.payments, of: new.install))
        deltas.append(linkCohortRevenue(events: old.events, payments: old.payments, of: old.install).negated)
        if old.skan != new.skan {
            deltas.append(skanTallies(new.skan, of: new.install))
            deltas.append(skanTallies(old.skan, of: old.install).negated)
        }
        return deltas.netted
    }

    /// A deleted link: its clicks, hour by hour as the link's hour rollups hold them (clicks
    /// pruned since included), move to "no link". Its installs change link by their own rows.
    public static func linkDeleted(projectID: String, linkID: String, hours: [(hour: Int64, clicks: Int64, botClicks: Int64)]) -> Deltas {
        var deltas = Deltas()
        for hour in hours where hour.clicks != 0 || hour.botClicks != 0 {
            var counters = Counters()
            counters.clicks = hour.clicks
            counters.botClicks = hour.botClicks
            let at = hour.hour * 3_600_000
            deltas.counts.append(CountDelta(projectID: projectID, at: at, linkID: linkID, inHours: false, counters: -counters))
            deltas.counts.append(CountDelta(projectID: projectID, at: at, linkID: "", inHours: false, counters: counters))
        }
        return deltas
    }
}

extension Deltas {
    public static func + (lhs: Deltas, rhs: Deltas) -> Deltas {
        var sum = lhs
        sum.append(rhs)
        return sum
    }
}
