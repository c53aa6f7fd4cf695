-- Counting leaves the database, as SQLite's 0042: every rule of what a fact adds to the rollups
-- is Swift (Sources/Counting); each write adds its deltas to the delta tables of 0003 itself, and
-- rollup_fold adds them up as before. The triggers that counted go, with their functions.

DROP TRIGGER rollup_clicks_inserted ON clicks;
DROP TRIGGER breakdown_clicks_inserted ON clicks;
DROP TRIGGER rollup_link_delete ON links;
DROP TRIGGER rollup_install_insert ON installs;
DROP TRIGGER rollup_install_update ON installs;
DROP TRIGGER rollup_install_delete ON installs;
DROP TRIGGER breakdown_install_insert ON installs;
DROP TRIGGER breakdown_install_click ON installs;
DROP TRIGGER breakdown_install_delete ON installs;
DROP TRIGGER rollup_event_change ON events;
DROP TRIGGER breakdown_event_change ON events;
DROP TRIGGER rollup_payments_inserted ON payments;
DROP TRIGGER rollup_payments_deleted ON payments;
DROP TRIGGER rollup_payments_removed ON payments;
DROP TRIGGER rollup_skan_change ON skan_state;

DROP FUNCTION rollup_clicks_inserted();
DROP FUNCTION breakdown_clicks_inserted();
DROP FUNCTION rollup_link_delete();
DROP FUNCTION rollup_install_insert();
DROP FUNCTION rollup_install_update();
DROP FUNCTION rollup_install_delete();
DROP FUNCTION breakdown_install_change();
DROP FUNCTION rollup_event_change();
DROP FUNCTION breakdown_event_change();
DROP FUNCTION rollup_payments_inserted();
DROP FUNCTION rollup_payments_deleted();
DROP FUNCTION rollup_payments_removed();
DROP FUNCTION rollup_skan_change();
DROP FUNCTION rollup_payments_changed(payments[], BIGINT);
DROP FUNCTION rollup_install_facts(installs, BIGINT, BOOLEAN);
DROP FUNCTION rollup_install(installs, BIGINT);
DROP FUNCTION breakdown_install(installs, BIGINT);
DROP FUNCTION rollup_count(TEXT, BIGINT, TEXT, BOOLEAN, BIGINT[]);
DROP FUNCTION rollup_add_money(TEXT, BIGINT, TEXT, BOOLEAN, TEXT, TEXT, DOUBLE PRECISION, BIGINT);
DROP FUNCTION rollup_add_tally(TEXT, BIGINT, TEXT, TEXT, BIGINT);
DROP FUNCTION rollup_link(BOOLEAN, TEXT);
DROP FUNCTION rollup_paused();
DROP FUNCTION confidence_band(DOUBLE PRECISION);
DROP FUNCTION referrer_host(TEXT);
DROP FUNCTION breakdown_os(TEXT, TEXT);
DROP FUNCTION cohort_bucket(BIGINT);
DROP FUNCTION revenue_micros(DOUBLE PRECISION);

-- As SQLite's 0042: where retention pruned a project's clicks, which a recount keeps counted.
CREATE TABLE clicks_pruned (
    project_id TEXT PRIMARY KEY,
    pruned_before BIGINT NOT NULL
);
INSERT INTO clicks_pruned (project_id, pruned_before) SELECT project_id, min(created_at) FROM clicks GROUP BY project_id;

-- SQLite's events_note_user_install (0006), which rollup_event_change also did: the installs a
-- user's events are on, for the user's erasure.
CREATE FUNCTION events_note_user_install() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO user_event_installs (project_id, user_id, install_id) VALUES (NEW.project_id, NEW.user_id, NEW.install_id) ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;
CREATE TRIGGER events_note_user_install AFTER INSERT ON events FOR EACH ROW WHEN (NEW.user_id IS NOT NULL)
EXECUTE FUNCTION events_note_user_install();

-- As SQLite's 0042: an install with an event with revenue counts as paying, added to the rollups
-- already stored for those without a payment not removed.
CREATE TEMP TABLE newly_paying AS
SELECT i.project_id AS project_id, i.created_at AS at, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END AS link_id
    FROM installs i WHERE NOT i.is_test
        AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.install_id = i.id AND p.removed_at IS NULL)
        AND EXISTS (SELECT 1 FROM events e WHERE e.install_id = i.id AND e.revenue IS NOT NULL);
INSERT INTO rollup_link_hours AS r (project_id, hour, link_id, paying_installs)
SELECT project_id, at / 3600000, link_id, count(*) FROM newly_paying GROUP BY 1, 2, 3
ON CONFLICT (project_id, hour, link_id) DO UPDATE SET paying_installs = r.paying_installs + excluded.paying_installs;
INSERT INTO rollup_link_days AS r (project_id, day, link_id, paying_installs)
SELECT project_id, at / 86400000, link_id, count(*) FROM newly_paying GROUP BY 1, 2, 3
ON CONFLICT (project_id, day, link_id) DO UPDATE SET paying_installs = r.paying_installs + excluded.paying_installs;
INSERT INTO rollup_project_hours AS r (project_id, hour, paying_installs)
SELECT project_id, at / 3600000, count(*) FROM newly_paying GROUP BY 1, 2
ON CONFLICT (project_id, hour) DO UPDATE SET paying_installs = r.paying_installs + excluded.paying_installs;
DROP TABLE newly_paying;

-- As SQLite's 0042: whether an install has an event with revenue, in one seek.
CREATE INDEX events_with_revenue ON events(install_id) WHERE revenue IS NOT NULL;
