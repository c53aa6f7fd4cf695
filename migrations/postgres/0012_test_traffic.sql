-- SQLite's migration 0031: installs reported in a client's test mode (a WarpLink wl_test_ key,
-- Linkrunner's debug) are stored marked, and neither they nor their events, payments and SKAN
-- values are counted in the rollups; the functions that count them step aside.

ALTER TABLE installs ADD COLUMN is_test BOOLEAN NOT NULL DEFAULT false;

CREATE OR REPLACE FUNCTION rollup_install_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    attributed INT := NEW.attributed::int;
BEGIN
    IF rollup_paused() OR NEW.is_test THEN RETURN NULL; END IF;
    INSERT INTO rollup_count_deltas (project_id, at, link_id, in_hours, counts)
    VALUES (NEW.project_id, NEW.created_at, rollup_link(NEW.attributed, NEW.link_id), true, ARRAY[0, 0, 1, attributed,
        (NEW.attributed AND NEW.matched_factors = '["apple_ads"]')::int,
        (NEW.attributed AND NEW.match_type = 'deterministic')::int, (NEW.attributed AND NEW.match_type = 'probabilistic')::int,
        1 - attributed, 0, NEW.signed_up::int,
        (EXISTS (SELECT 1 FROM payments p WHERE p.install_id = NEW.id AND p.removed_at IS NULL))::int]::bigint[]);
    IF NEW.attributed THEN
        INSERT INTO rollup_tally_deltas (project_id, at, dimension, value, installs)
        VALUES (NEW.project_id, NEW.created_at, 'confidence', confidence_band(NEW.confidence), 1);
    END IF;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION rollup_install_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.is_test THEN RETURN NULL; END IF;
    IF OLD.attributed IS DISTINCT FROM NEW.attributed OR OLD.link_id IS DISTINCT FROM NEW.link_id
        OR OLD.match_type IS DISTINCT FROM NEW.match_type OR OLD.matched_factors IS DISTINCT FROM NEW.matched_factors THEN
        PERFORM rollup_install(OLD, -1);
        PERFORM rollup_install(NEW, 1);
        PERFORM rollup_install_facts(OLD, -1, false);
        PERFORM rollup_install_facts(NEW, 1, false);
    ELSIF OLD.signed_up <> NEW.signed_up THEN
        PERFORM rollup_count(NEW.project_id, NEW.created_at, rollup_link(NEW.attributed, NEW.link_id), true,
                             ARRAY[0, 0, 0, 0, 0, 0, 0, 0, 0, NEW.signed_up::int - OLD.signed_up::int, 0]::bigint[]);
    END IF;
    IF OLD.attributed IS DISTINCT FROM NEW.attributed OR OLD.confidence IS DISTINCT FROM NEW.confidence THEN
        IF OLD.attributed THEN PERFORM rollup_add_tally(OLD.project_id, OLD.created_at, 'confidence', confidence_band(OLD.confidence), -1); END IF;
        IF NEW.attributed THEN PERFORM rollup_add_tally(NEW.project_id, NEW.created_at, 'confidence', confidence_band(NEW.confidence), 1); END IF;
    END IF;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION rollup_install_delete() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    s RECORD;
BEGIN
    IF OLD.is_test THEN RETURN OLD; END IF;
    PERFORM rollup_install(OLD, -1);
    PERFORM rollup_install_facts(OLD, -1, true);
    IF OLD.attributed THEN PERFORM rollup_add_tally(OLD.project_id, OLD.created_at, 'confidence', confidence_band(OLD.confidence), -1); END IF;
    FOR s IN SELECT "window", coalesce(CAST(fine AS TEXT), coarse) AS value FROM skan_state
             WHERE install_id = OLD.id AND coalesce(CAST(fine AS TEXT), coarse) IS NOT NULL LOOP
        PERFORM rollup_add_tally(OLD.project_id, OLD.created_at, 'skan' || s."window", s.value, -1);
    END LOOP;
    RETURN OLD;
END $$;

CREATE OR REPLACE FUNCTION rollup_event_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    e events := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    s BIGINT := CASE WHEN TG_OP = 'DELETE' THEN -1 ELSE 1 END;
    link TEXT;
    test BOOLEAN := false;
BEGIN
    SELECT rollup_link(i.attributed, i.link_id), i.is_test INTO link, test FROM installs i WHERE i.id = e.install_id;
    IF NOT FOUND THEN
        IF TG_OP = 'DELETE' THEN RETURN NULL; END IF;  -- went with its install (counted there)
        link := '';
    END IF;
    IF NOT rollup_paused() AND NOT test THEN
        INSERT INTO rollup_count_deltas (project_id, at, link_id, in_hours, counts)
        VALUES (e.project_id, e.charted_at, link, true, ARRAY[0, 0, 0, 0, 0, 0, 0, 0, s, 0, 0]::bigint[]);
        IF e.revenue IS NOT NULL THEN
            INSERT INTO rollup_money_deltas (project_id, at, link_id, in_hours, kind, currency, amount, entries)
            VALUES (e.project_id, e.charted_at, link, true, 'event', coalesce(e.currency, ''), s * e.revenue, s);
        END IF;
    END IF;
    IF TG_OP = 'INSERT' AND e.user_id IS NOT NULL THEN  -- SQLite's events_note_user_install (0006)
        INSERT INTO user_event_installs (project_id, user_id, install_id) VALUES (e.project_id, e.user_id, e.install_id) ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION rollup_payments_changed(changed payments[], s BIGINT) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    p payments;
    i installs;
    group_row RECORD;
    remaining BIGINT;
BEGIN
    FOR group_row IN SELECT install_id, count(*) AS n FROM unnest(changed) GROUP BY install_id ORDER BY install_id LOOP
        SELECT * INTO i FROM installs WHERE id = group_row.install_id FOR UPDATE;
        CONTINUE WHEN NOT FOUND;  -- went with its install (counted there)
        CONTINUE WHEN i.is_test;
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

CREATE OR REPLACE FUNCTION rollup_skan_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    i installs;
BEGIN
    SELECT * INTO i FROM installs WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.install_id ELSE NEW.install_id END;
    IF NOT FOUND OR i.is_test THEN RETURN NULL; END IF;
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
