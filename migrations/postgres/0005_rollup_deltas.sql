-- Rollup deltas instead of rollup upserts in the writing transaction (postgres/0003 as first
-- written): every event of a project lands on the same rollup rows (its hour, its link), so each
-- writing transaction held those rows' locks until its COMMIT, and a node's writer lanes, and the
-- nodes, committed one after another: 2,400 events/s where SQLite takes 33,000 (docs/performance.md,
-- "PostgreSQL"). Now the triggers append each fact's signed counts to a delta table, which takes no
-- lock anyone else waits for, and rollup_fold() adds the deltas up into the rollups: every second
-- on some node, and before the stats and the dashboard read the rollups, so that a read sees every
-- write committed before it, as on SQLite.

CREATE TABLE rollup_count_deltas (
    project_id TEXT NOT NULL,
    at BIGINT NOT NULL,
    link_id TEXT NOT NULL,
    in_hours BOOLEAN NOT NULL,
    counts BIGINT[] NOT NULL
);
CREATE TABLE rollup_money_deltas (
    project_id TEXT NOT NULL,
    at BIGINT NOT NULL,
    link_id TEXT NOT NULL,
    in_hours BOOLEAN NOT NULL,
    kind TEXT NOT NULL,
    currency TEXT NOT NULL,
    amount DOUBLE PRECISION NOT NULL,
    entries BIGINT NOT NULL
);
CREATE TABLE rollup_tally_deltas (
    project_id TEXT NOT NULL,
    at BIGINT NOT NULL,
    dimension TEXT NOT NULL,
    value TEXT NOT NULL,
    installs BIGINT NOT NULL
);

CREATE OR REPLACE FUNCTION rollup_count(p TEXT, at BIGINT, link TEXT, in_hours BOOLEAN, c BIGINT[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO rollup_count_deltas (project_id, at, link_id, in_hours, counts) SELECT p, at, link, in_hours, c WHERE NOT rollup_paused()
$$;

CREATE OR REPLACE FUNCTION rollup_add_money(p TEXT, at BIGINT, link TEXT, in_hours BOOLEAN, v_kind TEXT, v_currency TEXT,
                                            v_amount DOUBLE PRECISION, v_entries BIGINT) RETURNS void LANGUAGE sql AS $$
    INSERT INTO rollup_money_deltas (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT p, at, link, in_hours, v_kind, v_currency, v_amount, v_entries WHERE NOT rollup_paused()
$$;

CREATE OR REPLACE FUNCTION rollup_add_tally(p TEXT, at BIGINT, v_dimension TEXT, v_value TEXT, v_installs BIGINT) RETURNS void LANGUAGE sql AS $$
    INSERT INTO rollup_tally_deltas (project_id, at, dimension, value, installs) SELECT p, at, v_dimension, v_value, v_installs WHERE NOT rollup_paused()
$$;

-- Adds every committed delta into the rollups and removes it, in one statement per kind (a delta
-- committed meanwhile stays for the next fold). One fold at a time: `wait` false returns at once
-- when another is under way (the periodic fold); true waits for it (a read must see its writes).
CREATE FUNCTION rollup_fold(wait BOOLEAN DEFAULT true) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF wait THEN
        PERFORM pg_advisory_xact_lock(7235937298661158400);
    ELSIF NOT pg_try_advisory_xact_lock(7235937298661158400) THEN
        RETURN;
    END IF;
    WITH moved AS (DELETE FROM rollup_count_deltas RETURNING *),
    days AS (
        INSERT INTO rollup_link_days AS r (project_id, day, link_id, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
        SELECT project_id, at / 86400000, link_id, sum(counts[1]), sum(counts[2]), sum(counts[3]), sum(counts[4]), sum(counts[5]), sum(counts[6]), sum(counts[7]), sum(counts[8]), sum(counts[9]), sum(counts[10]), sum(counts[11])
        FROM moved GROUP BY 1, 2, 3
        ON CONFLICT (project_id, day, link_id) DO UPDATE SET clicks = r.clicks + excluded.clicks, bot_clicks = r.bot_clicks + excluded.bot_clicks, installs = r.installs + excluded.installs, attributed_installs = r.attributed_installs + excluded.attributed_installs, apple_ads_installs = r.apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = r.deterministic_installs + excluded.deterministic_installs, probabilistic_installs = r.probabilistic_installs + excluded.probabilistic_installs, organic_installs = r.organic_installs + excluded.organic_installs, events = r.events + excluded.events, signups = r.signups + excluded.signups, paying_installs = r.paying_installs + excluded.paying_installs
    ),
    link_hours AS (
        INSERT INTO rollup_link_hours AS r (project_id, hour, link_id, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
        SELECT project_id, at / 3600000, link_id, sum(counts[1]), sum(counts[2]), sum(counts[3]), sum(counts[4]), sum(counts[5]), sum(counts[6]), sum(counts[7]), sum(counts[8]), sum(counts[9]), sum(counts[10]), sum(counts[11])
        FROM moved GROUP BY 1, 2, 3
        ON CONFLICT (project_id, hour, link_id) DO UPDATE SET clicks = r.clicks + excluded.clicks, bot_clicks = r.bot_clicks + excluded.bot_clicks, installs = r.installs + excluded.installs, attributed_installs = r.attributed_installs + excluded.attributed_installs, apple_ads_installs = r.apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = r.deterministic_installs + excluded.deterministic_installs, probabilistic_installs = r.probabilistic_installs + excluded.probabilistic_installs, organic_installs = r.organic_installs + excluded.organic_installs, events = r.events + excluded.events, signups = r.signups + excluded.signups, paying_installs = r.paying_installs + excluded.paying_installs
    )
    INSERT INTO rollup_project_hours AS r (project_id, hour, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT project_id, at / 3600000, sum(counts[1]), sum(counts[2]), sum(counts[3]), sum(counts[4]), sum(counts[5]), sum(counts[6]), sum(counts[7]), sum(counts[8]), sum(counts[9]), sum(counts[10]), sum(counts[11])
    FROM moved WHERE in_hours GROUP BY 1, 2
    ON CONFLICT (project_id, hour) DO UPDATE SET clicks = r.clicks + excluded.clicks, bot_clicks = r.bot_clicks + excluded.bot_clicks, installs = r.installs + excluded.installs, attributed_installs = r.attributed_installs + excluded.attributed_installs, apple_ads_installs = r.apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = r.deterministic_installs + excluded.deterministic_installs, probabilistic_installs = r.probabilistic_installs + excluded.probabilistic_installs, organic_installs = r.organic_installs + excluded.organic_installs, events = r.events + excluded.events, signups = r.signups + excluded.signups, paying_installs = r.paying_installs + excluded.paying_installs;

    WITH moved AS (DELETE FROM rollup_money_deltas RETURNING *),
    link_hours AS (
        INSERT INTO rollup_link_hour_money AS r (project_id, hour, link_id, kind, currency, amount, entries)
        SELECT project_id, at / 3600000, link_id, kind, currency, sum(amount), sum(entries) FROM moved GROUP BY 1, 2, 3, 4, 5
        ON CONFLICT (project_id, hour, link_id, kind, currency) DO UPDATE SET amount = r.amount + excluded.amount, entries = r.entries + excluded.entries
    )
    INSERT INTO rollup_money AS r (project_id, scope, period, link_id, kind, currency, amount, entries)
    SELECT project_id, 'day', at / 86400000, link_id, kind, currency, sum(amount), sum(entries) FROM moved GROUP BY 1, 2, 3, 4, 5, 6
    UNION ALL
    SELECT project_id, 'hour', at / 3600000, '', kind, currency, sum(amount), sum(entries) FROM moved WHERE in_hours GROUP BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (project_id, scope, period, link_id, kind, currency) DO UPDATE SET amount = r.amount + excluded.amount, entries = r.entries + excluded.entries;

    WITH moved AS (DELETE FROM rollup_tally_deltas RETURNING *)
    INSERT INTO rollup_tallies AS r (project_id, dimension, hour, value, installs)
    SELECT project_id, dimension, at / 3600000, value, sum(installs) FROM moved GROUP BY 1, 2, 3, 4
    ON CONFLICT (project_id, dimension, hour, value) DO UPDATE SET installs = r.installs + excluded.installs;
END $$;

-- A deleted link's rows are read and removed: the deltas waiting for them are added first.
CREATE OR REPLACE FUNCTION rollup_link_delete() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    h RECORD;
BEGIN
    UPDATE installs SET link_id = NULL WHERE link_id = OLD.id;
    PERFORM rollup_fold();
    FOR h IN SELECT hour, clicks, bot_clicks FROM rollup_link_hours
             WHERE project_id = OLD.project_id AND link_id = OLD.id AND (clicks <> 0 OR bot_clicks <> 0) LOOP
        PERFORM rollup_count(OLD.project_id, h.hour * 3600000, '', false, ARRAY[h.clicks, h.bot_clicks, 0, 0, 0, 0, 0, 0, 0, 0, 0]::bigint[]);
    END LOOP;
    DELETE FROM rollup_link_days WHERE project_id = OLD.project_id AND link_id = OLD.id;
    DELETE FROM rollup_link_hours WHERE project_id = OLD.project_id AND link_id = OLD.id;
    DELETE FROM rollup_money WHERE project_id = OLD.project_id AND scope = 'day' AND link_id = OLD.id;
    DELETE FROM rollup_link_hour_money WHERE project_id = OLD.project_id AND link_id = OLD.id;
    RETURN OLD;
END $$;
