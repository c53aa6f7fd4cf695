import Attribution
import Counting

/// The rows the counting rules read, as `Counting`'s facts, for both backends: the columns each
/// rule needs and nothing it decides (what counts is `Counting`'s).
enum RollupFacts {
    /// An install's columns for `InstallFact`, its click joined as `c` (`LEFT JOIN clicks c ON
    /// c.click_id = i.click_id`); the two flags follow as columns 14 and 15.
    static let installColumns = installColumns(click: "c.click_id IS NOT NULL, c.referer")

    /// The same without the click, for the writes that change neither the install's click nor
    /// the tallies it is counted in (events, payments, a user set).
    static let installColumnsWithoutClick = installColumns(click: "FALSE, NULL")

    /// Only what an install's own counters read (`Counting.ownCounters`), for the writes that
    /// change nothing else of it (an event, a user set): its platform, system and country are its
    /// install tallies', which these never touch, and are not read (NULL).
    static let installCounterColumns = """
        i.project_id, i.created_at, i.is_test, i.attributed, i.link_id, i.match_type, i.matched_factors = '["apple_ads"]', i.confidence,
        i.signed_up, NULL, NULL, NULL, FALSE, NULL
        """

    /// The two flags for an event with revenue: the install's payments are read only where it has
    /// no such event yet, since an install that has one pays before and after the event whatever
    /// its payments (then "no live payment" stands for "not read").
    static let installFlagsForRevenueEvent = """
        CASE WHEN i.has_revenue_event THEN FALSE ELSE EXISTS (SELECT 1 FROM payments p WHERE p.install_id = i.id AND p.removed_at IS NULL) END,
        i.has_revenue_event
        """

    private static func installColumns(click: String) -> String {
        """
        i.project_id, i.created_at, i.is_test, i.attributed, i.link_id, i.match_type, i.matched_factors = '["apple_ads"]', i.confidence,
        i.signed_up, i.platform, i.os_version, i.country, \(click)
        """
    }

    /// Whether the install has a live payment, and an event with revenue (kept on its row,
    /// migration 0043: set by its first such event, `refreshRevenueFlag` where events go).
    static let installFlags = """
        EXISTS (SELECT 1 FROM payments p WHERE p.install_id = i.id AND p.removed_at IS NULL), i.has_revenue_event
        """

    /// The install's event-with-revenue flag set (its first such event).
    static let markRevenueEvent = "UPDATE installs SET has_revenue_event = TRUE WHERE id = ? AND NOT has_revenue_event"

    /// The flag recomputed from the install's events, after some were deleted.
    static let refreshRevenueFlag = """
        UPDATE installs SET has_revenue_event = EXISTS (SELECT 1 FROM events e WHERE e.install_id = installs.id AND e.revenue IS NOT NULL)
        WHERE id = ?
        """

    /// Every flag of a project's installs recomputed (`rollups rebuild`, after hand edits); the
    /// installs whose flag was wrong.
    static let refreshProjectRevenueFlags = """
        UPDATE installs SET has_revenue_event = NOT has_revenue_event
        WHERE project_id = ? AND has_revenue_event <> EXISTS (SELECT 1 FROM events e WHERE e.install_id = installs.id AND e.revenue IS NOT NULL)
        """

    /// How many of a project's installs have the flag wrong (`rollups check`).
    static let wrongRevenueFlags = """
        SELECT count(*) FROM installs i
        WHERE i.project_id = ? AND i.has_revenue_event <> EXISTS (SELECT 1 FROM events e WHERE e.install_id = i.id AND e.revenue IS NOT NULL)
        """

    static func install(_ row: some ColumnReader, offset: Int32 = 0, hasLivePayment: Bool, hasRevenueEvent: Bool) -> InstallFact {
        InstallFact(
            projectID: row.string(offset), createdAt: row.int(offset + 1), isTest: row.bool(offset + 2), attributed: row.bool(offset + 3),
            linkID: row.optionalString(offset + 4), matchType: row.string(offset + 5), appleAds: row.bool(offset + 6),
            confidence: row.double(offset + 7), signedUp: row.bool(offset + 8), hasLivePayment: hasLivePayment, hasRevenueEvent: hasRevenueEvent,
            platform: row.optionalString(offset + 9), osVersion: row.optionalString(offset + 10), country: row.optionalString(offset + 11),
            click: row.bool(offset + 12) ? InstallFact.Click(referer: row.optionalString(offset + 13)) : nil)
    }

    /// The install with its two flags read by `installFlags`.
    static func install(flaggedRow row: some ColumnReader, offset: Int32 = 0) -> InstallFact {
        install(row, offset: offset, hasLivePayment: row.bool(offset + 14), hasRevenueEvent: row.bool(offset + 15))
    }

    /// The install as its events, payments and user count it (columns and flags), by id.
    static let installByID = "SELECT \(installColumnsWithoutClick), \(installFlags) FROM installs i WHERE i.id = ?"

    static let eventColumns = "coalesce(e.charted_at, e.received_at), e.name, e.currency, e.revenue"
    static func event(_ row: some ColumnReader, offset: Int32 = 0) -> EventFact {
        EventFact(
            at: row.int(offset), name: row.string(offset + 1), currency: row.optionalString(offset + 2), revenue: row.optionalDouble(offset + 3))
    }

    static let paymentColumns = "p.created_at, p.currency, p.amount"
    static func payment(_ row: some ColumnReader, offset: Int32 = 0) -> PaymentFact {
        PaymentFact(at: row.int(offset), currency: row.string(offset + 1), amount: row.double(offset + 2))
    }

    /// A window's value as the tallies name it: the fine value as text, else the coarse one.
    static let skanColumns = #"s."window", coalesce(CAST(s.fine AS TEXT), s.coarse)"#

    /// Everything of one install that counts, read in the caller's transaction; nil when unknown.
    static func state(ofInstall installID: String, _ connection: some StoreSession) throws -> InstallState? {
        guard
            let install = try connection.queryOne(
                "SELECT \(installColumns) FROM installs i LEFT JOIN clicks c ON c.click_id = i.click_id WHERE i.id = ?", installID,
                map: { install($0, hasLivePayment: false, hasRevenueEvent: false) })
        else { return nil }
        let events = try connection.query("SELECT \(eventColumns) FROM events e WHERE e.install_id = ? ORDER BY e.id", installID) { event($0) }
        let payments = try connection.query(
            "SELECT \(paymentColumns) FROM payments p WHERE p.install_id = ? AND p.removed_at IS NULL ORDER BY p.id", installID
        ) { payment($0) }
        let skan = try connection.query(
            "SELECT \(skanColumns) FROM skan_state s WHERE s.install_id = ? AND (s.fine IS NOT NULL OR s.coarse IS NOT NULL) ORDER BY 1", installID
        ) { SKANFact(window: Int($0.int(0)), value: $0.string(1)) }
        return completed(InstallState(install: install, events: events, payments: payments, skan: skan))
    }

    /// A click as it is stored.
    static func click(_ click: Click) -> ClickFact {
        ClickFact(
            projectID: click.projectID, at: click.createdAt.milliseconds, linkID: click.linkID, isBot: click.isBot,
            platform: click.platform?.rawValue, osVersion: click.osVersion, country: click.country, referer: click.referer)
    }

    /// The install's flags from the rows read with it.
    static func completed(_ state: InstallState) -> InstallState {
        var state = state
        state.install.hasLivePayment = !state.payments.isEmpty
        state.install.hasRevenueEvent = state.events.contains { $0.revenue != nil }
        return state
    }
}
