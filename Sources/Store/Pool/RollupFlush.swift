/// Adds the rollup deltas the triggers of migration 0015 appended in this transaction into the
/// rollups, and empties the pending tables: run by the writer before each COMMIT whose writes
/// appended any (the migration runs the same statements once, on what it found).
enum RollupFlush {
    /// Tables the triggers append to; a write to either makes the batch flush.
    static let pendingTables = ["rollup_pending", "rollup_pending_money"]

    static let statements = [
        """
        INSERT INTO rollup_link_days (project_id, day, link_id, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
        SELECT project_id, at / 86400000, link_id, sum(clicks), sum(bot_clicks), sum(installs), sum(attributed_installs), sum(apple_ads_installs), sum(deterministic_installs), sum(probabilistic_installs), sum(organic_installs), sum(events), sum(signups), sum(paying_installs) FROM rollup_pending WHERE true GROUP BY 1, 2, 3
        ON CONFLICT DO UPDATE SET clicks = clicks + excluded.clicks, bot_clicks = bot_clicks + excluded.bot_clicks, installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs, events = events + excluded.events, signups = signups + excluded.signups, paying_installs = paying_installs + excluded.paying_installs
        """,
        """
        INSERT INTO rollup_project_hours (project_id, hour, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
        SELECT project_id, at / 3600000, sum(clicks), sum(bot_clicks), sum(installs), sum(attributed_installs), sum(apple_ads_installs), sum(deterministic_installs), sum(probabilistic_installs), sum(organic_installs), sum(events), sum(signups), sum(paying_installs) FROM rollup_pending WHERE in_hours GROUP BY 1, 2
        ON CONFLICT DO UPDATE SET clicks = clicks + excluded.clicks, bot_clicks = bot_clicks + excluded.bot_clicks, installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs, events = events + excluded.events, signups = signups + excluded.signups, paying_installs = paying_installs + excluded.paying_installs
        """,
        """
        INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
        SELECT project_id, 'day', at / 86400000, link_id, kind, currency, sum(amount), sum(entries) FROM rollup_pending_money WHERE true
        GROUP BY 1, 2, 3, 4, 5, 6 ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries
        """,
        """
        INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
        SELECT project_id, 'hour', at / 3600000, '', kind, currency, sum(amount), sum(entries) FROM rollup_pending_money WHERE in_hours
        GROUP BY 1, 2, 3, 4, 5, 6 ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries
        """,
        """
        DELETE FROM rollup_pending
        """,
        """
        DELETE FROM rollup_pending_money
        """
    ]

    static func run(_ connection: SQLiteConnection) throws {
        for statement in statements { try connection.run(statement) }
    }
}
