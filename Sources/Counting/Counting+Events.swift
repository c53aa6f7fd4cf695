import Attribution

extension Counting {
    /// A new event of an install, given its other events (`history`): one more event and its
    /// revenue in its hour under the install's link; the breakdown and cohort tallies; and the
    /// install's signup and paying counts when this event changes them.
    public static func eventAdded(_ event: EventFact, to install: InstallFact, history: EventHistory) -> Deltas {
        var deltas = Deltas()
        guard !install.isTest else { return deltas }
        deltas.append(eventsMoney([event], of: install, inHours: true))
        deltas.append(linkCohortRevenue(events: [event], payments: [], of: install))
        let projectID = install.projectID
        func tally(_ at: Int64, _ dimension: String, _ value: String, _ count: Int64) {
            deltas.tallies.append(TallyDelta(projectID: projectID, at: at, dimension: dimension, value: value, count: count))
        }
        tally(event.at, TallyDimension.events, event.name, 1)
        // First of its name when no other is as early; the one that was first then is no longer.
        if let earliest = history.earliestOtherOfName {
            if earliest > event.at {
                tally(event.at, TallyDimension.eventInstalls, event.name, 1)
                tally(earliest, TallyDimension.eventInstalls, event.name, -1)
            }
        } else {
            tally(event.at, TallyDimension.eventInstalls, event.name, 1)
        }
        let currency = event.currency ?? ""
        if let revenue = event.revenue {
            tally(event.at, TallyDimension.eventRevenue, currency + ":" + event.name, EventTallies.micros(revenue))
        }
        if let day = cohortDay(event, of: install) {
            let span = String(EventTallies.span(day))
            tally(install.createdAt, TallyDimension.cohortEvents, span, 1)
            if let revenue = event.revenue {
                tally(install.createdAt, TallyDimension.cohortRevenue, currency + ":" + span, EventTallies.micros(revenue))
            }
            if !history.otherOnItsDay, EventTallies.activeDays.contains(day) {
                tally(install.createdAt, TallyDimension.cohortActive, String(day), 1)
            }
        }
        var after = install
        if event.name == signupEventName { after.signedUp = true }
        if event.revenue != nil { after.hasRevenueEvent = true }
        var changed = ownCounters(after)
        changed += -ownCounters(install)
        if !changed.isZero {
            deltas.counts.append(
                CountDelta(projectID: projectID, at: install.createdAt, linkID: install.rollupLink, inHours: true, counters: changed))
        }
        return deltas
    }

    /// The day after install an event is charted on, when cohorts count it (days 0 to 30).
    static func cohortDay(_ event: EventFact, of install: InstallFact) -> Int64? {
        let day = (event.at - install.createdAt) / 86_400_000
        return day >= 0 && day <= 30 ? day : nil
    }

    /// Events in their hours under the install's link, and their revenue.
    static func eventsMoney(_ events: [EventFact], of install: InstallFact, inHours: Bool) -> Deltas {
        var deltas = Deltas()
        for event in events {
            var counters = Counters()
            counters.events = 1
            deltas.counts.append(
                CountDelta(projectID: install.projectID, at: event.at, linkID: install.rollupLink, inHours: inHours, counters: counters))
            if let revenue = event.revenue {
                deltas.money.append(
                    MoneyDelta(
                        projectID: install.projectID, at: event.at, linkID: install.rollupLink, inHours: inHours, kind: .event,
                        currency: event.currency ?? "", amount: revenue, entries: 1))
            }
        }
        return deltas
    }

    /// All of an install's events at once: as `eventAdded` adds them one by one, in any order.
    static func eventsContribution(_ events: [EventFact], of install: InstallFact, inHours: Bool) -> Deltas {
        var deltas = eventsMoney(events, of: install, inHours: inHours)
        let projectID = install.projectID
        func tally(_ at: Int64, _ dimension: String, _ value: String, _ count: Int64) {
            deltas.tallies.append(TallyDelta(projectID: projectID, at: at, dimension: dimension, value: value, count: count))
        }
        var firstOfName: [String: Int64] = [:]
        var names: [String] = []
        var activeDays: Set<Int64> = []
        for event in events {
            tally(event.at, TallyDimension.events, event.name, 1)
            if let first = firstOfName[event.name] {
                firstOfName[event.name] = min(first, event.at)
            } else {
                firstOfName[event.name] = event.at
                names.append(event.name)
            }
            let currency = event.currency ?? ""
            if let revenue = event.revenue {
                tally(event.at, TallyDimension.eventRevenue, currency + ":" + event.name, EventTallies.micros(revenue))
            }
            guard let day = cohortDay(event, of: install) else { continue }
            let span = String(EventTallies.span(day))
            tally(install.createdAt, TallyDimension.cohortEvents, span, 1)
            if let revenue = event.revenue {
                tally(install.createdAt, TallyDimension.cohortRevenue, currency + ":" + span, EventTallies.micros(revenue))
            }
            if EventTallies.activeDays.contains(day) { activeDays.insert(day) }
        }
        for name in names { tally(firstOfName[name]!, TallyDimension.eventInstalls, name, 1) }
        for day in activeDays.sorted() { tally(install.createdAt, TallyDimension.cohortActive, String(day), 1) }
        return deltas
    }
}
