-- What counting an event reads of its install's other events is kept beside them, one row per
-- install and event name (the earliest charted time of that name) and per install and active
-- cohort day (1, 3, 7, 14, 30) that has an event, written the first time each is true, instead of
-- `events_by_install_name`, an index entry every event wrote for two seeks. Erasing a user's events
-- recomputes an install's rows; `attributiond rollups rebuild` recomputes a project's (after hand
-- edits). Deleted with their install.
CREATE TABLE install_event_names (
    install_id TEXT NOT NULL REFERENCES installs(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    first_at   INTEGER NOT NULL,
    PRIMARY KEY (install_id, name)
) WITHOUT ROWID;
CREATE TABLE install_active_days (
    install_id TEXT NOT NULL REFERENCES installs(id) ON DELETE CASCADE,
    day        INTEGER NOT NULL,
    PRIMARY KEY (install_id, day)
) WITHOUT ROWID;
INSERT INTO install_event_names (install_id, name, first_at)
SELECT install_id, name, min(charted_at) FROM events GROUP BY install_id, name;
INSERT INTO install_active_days (install_id, day)
SELECT DISTINCT e.install_id, (e.charted_at - i.created_at) / 86400000 FROM events e JOIN installs i ON i.id = e.install_id
WHERE e.charted_at >= i.created_at AND (e.charted_at - i.created_at) / 86400000 IN (1, 3, 7, 14, 30);
DROP INDEX events_by_install_name;
