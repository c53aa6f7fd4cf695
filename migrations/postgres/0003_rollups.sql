-- Rollups on PostgreSQL: the counts SQLite's migrations 0006, 0015, 0017, 0018 and 0021 keep, kept
-- by triggers in the transaction that writes each fact, so every writer is covered (each node, psql;
-- migrate-data's copied rollups already count what it copies, and the triggers step aside then).
-- Where SQLite's triggers hand their deltas to the single writer's collector (RollupDeltas.swift),
-- here they append them to delta tables, which no other writer waits on, and rollup_fold() adds
-- them up into the rollups: every second on some node, and before the stats and the dashboard read
-- the rollups, so that a read sees every write committed before it. Upserting the rollup rows in
-- each writing transaction instead locked a project's hour row until that transaction's COMMIT, and
-- every writer of every node committed one after another (docs/performance.md, "PostgreSQL").
--
-- link '' is "no link", hours and days are UTC numbered from the epoch, as in SQLite's.

CREATE FUNCTION rollup_link(attributed BOOLEAN, link_id TEXT) RETURNS TEXT IMMUTABLE LANGUAGE sql
AS $$ SELECT CASE WHEN attributed AND link_id IS NOT NULL THEN link_id ELSE '' END $$;

-- attributiond.copying is set by migrate-data, whose copied rollups already count the rows it
-- copies; every function that adds to a rollup steps aside then.
CREATE FUNCTION rollup_paused() RETURNS BOOLEAN STABLE LANGUAGE sql
AS $$ SELECT coalesce(current_setting('attributiond.copying', true), '') = 'on' $$;

-- A fact's signed counts, in order: clicks, bot_clicks, installs, attributed_installs,
-- apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events,
-- signups, paying_installs. in_hours false: a move between links (the project's hourly totals do
-- not change). Money per currency and kind; tallies per dimension and value.
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

CREATE FUNCTION rollup_count(p TEXT, at BIGINT, link TEXT, in_hours BOOLEAN, c BIGINT[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO rollup_count_deltas (project_id, at, link_id, in_hours, counts) SELECT p, at, link, in_hours, c WHERE NOT rollup_paused()
$$;

CREATE FUNCTION rollup_add_money(p TEXT, at BIGINT, link TEXT, in_hours BOOLEAN, v_kind TEXT, v_currency TEXT,
                                            v_amount DOUBLE PRECISION, v_entries BIGINT) RETURNS void LANGUAGE sql AS $$
    INSERT INTO rollup_money_deltas (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT p, at, link, in_hours, v_kind, v_currency, v_amount, v_entries WHERE NOT rollup_paused()
$$;

CREATE FUNCTION rollup_add_tally(p TEXT, at BIGINT, v_dimension TEXT, v_value TEXT, v_installs BIGINT) RETURNS void LANGUAGE sql AS $$
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

CREATE FUNCTION confidence_band(confidence DOUBLE PRECISION) RETURNS TEXT IMMUTABLE LANGUAGE sql
AS $$ SELECT CASE WHEN confidence >= 0.8 THEN 'high' WHEN confidence >= 0.6 THEN 'medium' ELSE 'low' END $$;

-- An install counted (s = 1) or taken back (s = -1) at its own hour and link.
CREATE FUNCTION rollup_install(i installs, s BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM rollup_count(i.project_id, i.created_at, rollup_link(i.attributed, i.link_id), true, ARRAY[0, 0, s,
        s * i.attributed::int, s * (i.attributed AND i.matched_factors = '["apple_ads"]')::int,
        s * (i.attributed AND i.match_type = 'deterministic')::int, s * (i.attributed AND i.match_type = 'probabilistic')::int,
        s * (NOT i.attributed)::int, 0, s * (i.user_id IS NOT NULL)::int,
        s * (EXISTS (SELECT 1 FROM payments p WHERE p.install_id = i.id AND p.removed_at IS NULL))::int]::bigint[]);
END $$;

-- The install's events and payments counted (s = 1) or taken back under its link.
CREATE FUNCTION rollup_install_facts(i installs, s BIGINT, in_hours BOOLEAN) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    link TEXT := rollup_link(i.attributed, i.link_id);
    e RECORD;
BEGIN
    FOR e IN SELECT project_id, received_at, currency, revenue FROM events WHERE install_id = i.id LOOP
        PERFORM rollup_count(e.project_id, e.received_at, link, in_hours, ARRAY[0, 0, 0, 0, 0, 0, 0, 0, s, 0, 0]::bigint[]);
        IF e.revenue IS NOT NULL THEN
            PERFORM rollup_add_money(e.project_id, e.received_at, link, in_hours, 'event', coalesce(e.currency, ''), s * e.revenue, s);
        END IF;
    END LOOP;
    FOR e IN SELECT project_id, created_at, currency, amount FROM payments WHERE install_id = i.id AND removed_at IS NULL LOOP
        PERFORM rollup_add_money(e.project_id, e.created_at, link, in_hours, 'payment', e.currency, s * e.amount, s);
    END LOOP;
END $$;

-- Clicks arrive many to a statement (PGClickStore): counted per statement from its transition
-- table, one delta per project, hour and link.
CREATE FUNCTION rollup_clicks_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO rollup_count_deltas (project_id, at, link_id, in_hours, counts)
    SELECT project_id, created_at / 3600000 * 3600000, coalesce(link_id, ''), true,
           ARRAY[count(*) FILTER (WHERE NOT is_bot), count(*) FILTER (WHERE is_bot), 0, 0, 0, 0, 0, 0, 0, 0, 0]::bigint[]
    FROM inserted WHERE NOT rollup_paused() GROUP BY 1, 2, 3;
    RETURN NULL;
END $$;
CREATE TRIGGER rollup_clicks_inserted AFTER INSERT ON clicks REFERENCING NEW TABLE AS inserted
FOR EACH STATEMENT EXECUTE FUNCTION rollup_clicks_inserted();

-- A deleted link's clicks count as unlinked from then on, hour by hour. BEFORE, and its installs'
-- link set to NULL here rather than by the foreign key's action (which runs after this trigger):
-- the installs must move before the link's rows go, and the deltas waiting for those rows are
-- added in first.
CREATE FUNCTION rollup_link_delete() RETURNS trigger LANGUAGE plpgsql AS $$
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
CREATE TRIGGER rollup_link_delete BEFORE DELETE ON links FOR EACH ROW EXECUTE FUNCTION rollup_link_delete();

CREATE FUNCTION rollup_install_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM rollup_install(NEW, 1);
    IF NEW.attributed THEN PERFORM rollup_add_tally(NEW.project_id, NEW.created_at, 'confidence', confidence_band(NEW.confidence), 1); END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER rollup_install_insert AFTER INSERT ON installs FOR EACH ROW EXECUTE FUNCTION rollup_install_insert();

-- A re-attributed install (Apple Ads taking over, its link deleted) moves with its events and
-- payments from one link to the other; a new user or confidence moves its counts too.
CREATE FUNCTION rollup_install_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.attributed IS DISTINCT FROM NEW.attributed OR OLD.link_id IS DISTINCT FROM NEW.link_id
        OR OLD.match_type IS DISTINCT FROM NEW.match_type OR OLD.matched_factors IS DISTINCT FROM NEW.matched_factors THEN
        PERFORM rollup_install(OLD, -1);
        PERFORM rollup_install(NEW, 1);
        PERFORM rollup_install_facts(OLD, -1, false);
        PERFORM rollup_install_facts(NEW, 1, false);
    ELSIF (OLD.user_id IS NULL) <> (NEW.user_id IS NULL) THEN
        PERFORM rollup_count(NEW.project_id, NEW.created_at, rollup_link(NEW.attributed, NEW.link_id), true,
                             ARRAY[0, 0, 0, 0, 0, 0, 0, 0, 0, CASE WHEN NEW.user_id IS NULL THEN -1 ELSE 1 END, 0]::bigint[]);
    END IF;
    IF OLD.attributed IS DISTINCT FROM NEW.attributed OR OLD.confidence IS DISTINCT FROM NEW.confidence THEN
        IF OLD.attributed THEN PERFORM rollup_add_tally(OLD.project_id, OLD.created_at, 'confidence', confidence_band(OLD.confidence), -1); END IF;
        IF NEW.attributed THEN PERFORM rollup_add_tally(NEW.project_id, NEW.created_at, 'confidence', confidence_band(NEW.confidence), 1); END IF;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER rollup_install_update AFTER UPDATE OF attributed, link_id, match_type, matched_factors, user_id, confidence ON installs
FOR EACH ROW EXECUTE FUNCTION rollup_install_update();

-- BEFORE: the install's events, payments and SKAN rows are still there (the cascade deletes them
-- after the install row, when their own triggers no longer find it and step aside).
CREATE FUNCTION rollup_install_delete() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    s RECORD;
BEGIN
    PERFORM rollup_install(OLD, -1);
    PERFORM rollup_install_facts(OLD, -1, true);
    IF OLD.attributed THEN PERFORM rollup_add_tally(OLD.project_id, OLD.created_at, 'confidence', confidence_band(OLD.confidence), -1); END IF;
    FOR s IN SELECT "window", coalesce(CAST(fine AS TEXT), coarse) AS value FROM skan_state
             WHERE install_id = OLD.id AND coalesce(CAST(fine AS TEXT), coarse) IS NOT NULL LOOP
        PERFORM rollup_add_tally(OLD.project_id, OLD.created_at, 'skan' || s."window", s.value, -1);
    END LOOP;
    RETURN OLD;
END $$;
CREATE TRIGGER rollup_install_delete BEFORE DELETE ON installs FOR EACH ROW EXECUTE FUNCTION rollup_install_delete();

-- An event or payment of an install: counted under the install's link.
CREATE FUNCTION rollup_event_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    e events := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    s BIGINT := CASE WHEN TG_OP = 'DELETE' THEN -1 ELSE 1 END;
    link TEXT;
BEGIN
    SELECT rollup_link(i.attributed, i.link_id) INTO link FROM installs i WHERE i.id = e.install_id;
    IF NOT FOUND THEN
        IF TG_OP = 'DELETE' THEN RETURN NULL; END IF;  -- went with its install (counted there)
        link := '';
    END IF;
    PERFORM rollup_count(e.project_id, e.received_at, link, true, ARRAY[0, 0, 0, 0, 0, 0, 0, 0, s, 0, 0]::bigint[]);
    IF e.revenue IS NOT NULL THEN
        PERFORM rollup_add_money(e.project_id, e.received_at, link, true, 'event', coalesce(e.currency, ''), s * e.revenue, s);
    END IF;
    IF TG_OP = 'INSERT' AND e.user_id IS NOT NULL THEN  -- SQLite's events_note_user_install (0006)
        INSERT INTO user_event_installs (project_id, user_id, install_id) VALUES (e.project_id, e.user_id, e.install_id) ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER rollup_event_change AFTER INSERT OR DELETE ON events FOR EACH ROW EXECUTE FUNCTION rollup_event_change();

-- Payments that count (not removed) added or taken away, per statement: one statement may add or
-- remove several payments of one install, and an install becomes paying (or stops) once, which row
-- triggers (fired after the whole statement here, not row by row as in SQLite) cannot tell. The
-- install's row is locked first, so that two nodes capturing its first payments at once agree.
CREATE FUNCTION rollup_payments_changed(changed payments[], s BIGINT) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    p payments;
    i installs;
    group_row RECORD;
    remaining BIGINT;
BEGIN
    FOR group_row IN SELECT install_id, count(*) AS n FROM unnest(changed) GROUP BY install_id ORDER BY install_id LOOP
        SELECT * INTO i FROM installs WHERE id = group_row.install_id FOR UPDATE;
        CONTINUE WHEN NOT FOUND;  -- went with its install (counted there)
        FOR p IN SELECT * FROM unnest(changed) WHERE install_id = group_row.install_id LOOP
            PERFORM rollup_add_money(p.project_id, p.created_at, rollup_link(i.attributed, i.link_id), true, 'payment', p.currency, s * p.amount, s);
        END LOOP;
        SELECT count(*) INTO remaining FROM payments WHERE install_id = group_row.install_id AND removed_at IS NULL;
        -- Paying before the statement: what remains, less what it added or plus what it took.
        IF (remaining > 0) <> (remaining - s * group_row.n > 0) THEN
            PERFORM rollup_count(i.project_id, i.created_at, rollup_link(i.attributed, i.link_id), true, ARRAY[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, s]::bigint[]);
        END IF;
    END LOOP;
END $$;

CREATE FUNCTION rollup_payments_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM rollup_payments_changed(ARRAY(SELECT r::payments FROM inserted r WHERE r.removed_at IS NULL), 1::bigint);
    RETURN NULL;
END $$;
CREATE TRIGGER rollup_payments_inserted AFTER INSERT ON payments REFERENCING NEW TABLE AS inserted
FOR EACH STATEMENT EXECUTE FUNCTION rollup_payments_inserted();

CREATE FUNCTION rollup_payments_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM rollup_payments_changed(ARRAY(SELECT r::payments FROM deleted r WHERE r.removed_at IS NULL), -1::bigint);
    RETURN NULL;
END $$;
CREATE TRIGGER rollup_payments_deleted AFTER DELETE ON payments REFERENCING OLD TABLE AS deleted
FOR EACH STATEMENT EXECUTE FUNCTION rollup_payments_deleted();

-- Removed: removed_at set where it was NULL (payments are never restored).
CREATE FUNCTION rollup_payments_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM rollup_payments_changed(ARRAY(SELECT o::payments FROM before_update o JOIN after_update a ON a.id = o.id
                                          WHERE o.removed_at IS NULL AND a.removed_at IS NOT NULL), -1::bigint);
    RETURN NULL;
END $$;
CREATE TRIGGER rollup_payments_removed AFTER UPDATE ON payments REFERENCING OLD TABLE AS before_update NEW TABLE AS after_update
FOR EACH STATEMENT EXECUTE FUNCTION rollup_payments_removed();

-- SKAN values per window: the fine value, or the coarse one when the window has none.
CREATE FUNCTION rollup_skan_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    i installs;
BEGIN
    SELECT * INTO i FROM installs WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.install_id ELSE NEW.install_id END;
    IF NOT FOUND THEN RETURN NULL; END IF;
    IF TG_OP <> 'INSERT' AND coalesce(CAST(OLD.fine AS TEXT), OLD.coarse) IS NOT NULL THEN
        IF TG_OP = 'DELETE' OR OLD.fine IS DISTINCT FROM NEW.fine OR OLD.coarse IS DISTINCT FROM NEW.coarse THEN
            PERFORM rollup_add_tally(i.project_id, i.created_at, 'skan' || OLD."window", coalesce(CAST(OLD.fine AS TEXT), OLD.coarse), -1);
        END IF;
    END IF;
    IF TG_OP <> 'DELETE' AND coalesce(CAST(NEW.fine AS TEXT), NEW.coarse) IS NOT NULL THEN
        IF TG_OP = 'INSERT' OR OLD.fine IS DISTINCT FROM NEW.fine OR OLD.coarse IS DISTINCT FROM NEW.coarse THEN
            PERFORM rollup_add_tally(i.project_id, i.created_at, 'skan' || NEW."window", coalesce(CAST(NEW.fine AS TEXT), NEW.coarse), 1);
        END IF;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER rollup_skan_change AFTER INSERT OR DELETE OR UPDATE OF fine, coarse ON skan_state FOR EACH ROW EXECUTE FUNCTION rollup_skan_change();
