extension Counting {
    /// A captured payment: its money in its hour under the install's link, and the install's
    /// paying count when it is the first thing that makes it pay.
    public static func paymentAdded(_ payment: PaymentFact, to install: InstallFact) -> Deltas {
        guard !install.isTest else { return Deltas() }
        var after = install
        after.hasLivePayment = true
        return paymentsMoney([payment], of: install, inHours: true) + linkCohortRevenue(events: [], payments: [payment], of: install)
            + payingChange(from: install, to: after)
    }

    /// A payment removed (refunded, cancelled, erased); `stillPaying`: the install has another
    /// live one.
    public static func paymentRemoved(_ payment: PaymentFact, from install: InstallFact, otherLivePayment: Bool) -> Deltas {
        guard !install.isTest else { return Deltas() }
        var after = install
        after.hasLivePayment = otherLivePayment
        return (paymentsMoney([payment], of: install, inHours: true) + linkCohortRevenue(events: [], payments: [payment], of: install)).negated
            + payingChange(from: install, to: after)
    }

    /// Several payments of one install removed at once (all of a user's).
    public static func paymentsRemoved(_ payments: [PaymentFact], from install: InstallFact, otherLivePayment: Bool) -> Deltas {
        guard !install.isTest, !payments.isEmpty else { return Deltas() }
        var after = install
        after.hasLivePayment = otherLivePayment
        return (paymentsMoney(payments, of: install, inHours: true) + linkCohortRevenue(events: [], payments: payments, of: install)).negated
            + payingChange(from: install, to: after)
    }

    static func payingChange(from old: InstallFact, to new: InstallFact) -> Deltas {
        var deltas = Deltas()
        var changed = ownCounters(new)
        changed += -ownCounters(old)
        if !changed.isZero {
            deltas.counts.append(CountDelta(projectID: new.projectID, at: new.createdAt, linkID: new.rollupLink, inHours: true, counters: changed))
        }
        return deltas
    }

    static func paymentsMoney(_ payments: [PaymentFact], of install: InstallFact, inHours: Bool) -> Deltas {
        var deltas = Deltas()
        for payment in payments {
            deltas.money.append(
                MoneyDelta(
                    projectID: install.projectID, at: payment.at, linkID: install.rollupLink, inHours: inHours, kind: .payment,
                    currency: payment.currency, amount: payment.amount, entries: 1))
        }
        return deltas
    }
}
