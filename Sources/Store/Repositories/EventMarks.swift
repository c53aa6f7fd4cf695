import Attribution

/// What counting an event reads of its install's other events, kept beside them (migration 0045,
/// PostgreSQL's 0027): the earliest charted time of each event name, and the active cohort days
/// (`EventTallies.activeDays`) the install has an event on. Each is written the first time it is
/// true; an index entry of every event (`events_by_install_name`) was read for both before.
enum EventMarks {
    /// The install's earliest event of the name bound first, as a column of a read of `installs i`.
    static let earliestOfName = "(SELECT f.first_at FROM install_event_names f WHERE f.install_id = i.id AND f.name = ?)"

    /// Parameters: install, name, charted time. Moves an earlier time in, never a later one.
    static let noteName = """
        INSERT INTO install_event_names (install_id, name, first_at) VALUES (?, ?, ?)
        ON CONFLICT (install_id, name) DO UPDATE SET first_at = excluded.first_at WHERE excluded.first_at < install_event_names.first_at
        """

    /// Parameters: install, day after install. Changes no row when the day had an event already.
    static let noteActiveDay = "INSERT INTO install_active_days (install_id, day) VALUES (?, ?) ON CONFLICT DO NOTHING"

    private static let activeDayList = EventTallies.activeDays.sorted().map(String.init).joined(separator: ", ")

    /// The marks of the installs `scope` picks (a condition on `i`, its parameters bound by the
    /// caller once per statement) written again from their events.
    static func recomputed(_ scope: String) -> [String] {
        [
            "DELETE FROM install_event_names WHERE install_id IN (SELECT i.id FROM installs i WHERE \(scope))",
            """
            INSERT INTO install_event_names (install_id, name, first_at)
            SELECT e.install_id, e.name, min(e.charted_at) FROM events e JOIN installs i ON i.id = e.install_id WHERE \(scope)
            GROUP BY e.install_id, e.name
            """,
            "DELETE FROM install_active_days WHERE install_id IN (SELECT i.id FROM installs i WHERE \(scope))",
            """
            INSERT INTO install_active_days (install_id, day)
            SELECT DISTINCT e.install_id, (e.charted_at - i.created_at) / 86400000 FROM events e JOIN installs i ON i.id = e.install_id
            WHERE \(scope) AND e.charted_at >= i.created_at AND (e.charted_at - i.created_at) / 86400000 IN (\(activeDayList))
            """,
        ]
    }

    /// One install's marks from its events (after some were erased).
    static let recomputeInstall = recomputed("i.id = ?")
    /// A project's (`rollups rebuild`, after hand edits).
    static let recomputeProject = recomputed("i.project_id = ?")
}
