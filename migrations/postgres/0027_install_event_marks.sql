-- As SQLite's 0045: the earliest charted time of each of an install's event names, and the active
-- cohort days (1, 3, 7, 14, 30) it has an event on, kept beside the events, written the first time
-- each is true, instead of an `events_by_install_name` entry for every event.
CREATE TABLE install_event_names (
    install_id TEXT NOT NULL REFERENCES installs(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    first_at   BIGINT NOT NULL,
    PRIMARY KEY (install_id, name)
);
CREATE TABLE install_active_days (
    install_id TEXT NOT NULL REFERENCES installs(id) ON DELETE CASCADE,
    day        BIGINT NOT NULL,
    PRIMARY KEY (install_id, day)
);
INSERT INTO install_event_names (install_id, name, first_at)
SELECT install_id, name, min(charted_at) FROM events GROUP BY install_id, name;
INSERT INTO install_active_days (install_id, day)
SELECT DISTINCT e.install_id, (e.charted_at - i.created_at) / 86400000 FROM events e JOIN installs i ON i.id = e.install_id
WHERE e.charted_at >= i.created_at AND (e.charted_at - i.created_at) / 86400000 IN (1, 3, 7, 14, 30);
DROP INDEX events_by_install_name;
