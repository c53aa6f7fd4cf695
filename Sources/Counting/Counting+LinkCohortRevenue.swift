import Attribution

extension Counting {
    /// The revenue of an install credited to a link, by kind, currency and span after install, at
    /// the install's hour (`TallyDimension.linkCohortRevenue`): payments and events with revenue in
    /// its first 31 days. Nothing for an install without a link (organic, Apple Ads' and the ad
    /// platforms' claims, which the report reads from the claims).
    static func linkCohortRevenue(events: [EventFact], payments: [PaymentFact], of install: InstallFact) -> Deltas {
        var deltas = Deltas()
        let linkID = install.rollupLink
        guard !install.isTest, !linkID.isEmpty else { return deltas }
        func tally(_ kind: LinkCohortRevenue.Kind, _ currency: String, _ at: Int64, _ amount: Double) {
            let day = (at - install.createdAt) / 86_400_000
            guard day >= 0 && day <= 30 else { return }
            let key = LinkCohortRevenue(kind: kind, currency: currency, span: EventTallies.span(day), linkID: linkID)
            deltas.tallies.append(
                TallyDelta(
                    projectID: install.projectID, at: install.createdAt, dimension: TallyDimension.linkCohortRevenue, value: key.value,
                    count: EventTallies.micros(amount)))
        }
        for event in events {
            if let revenue = event.revenue { tally(.event, event.currency ?? "", event.at, revenue) }
        }
        for payment in payments { tally(.payment, payment.currency, payment.at, payment.amount) }
        return deltas
    }
}
