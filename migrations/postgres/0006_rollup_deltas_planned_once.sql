-- The delta appenders of 0003 rewritten in PL/pgSQL. PostgreSQL 15 plans a LANGUAGE sql function's
-- statements again on every call that it cannot inline (an INSERT never is), so every install,
-- event and payment planned its delta INSERT afresh inside its triggers; PL/pgSQL keeps each
-- statement's plan for the session. Same arguments, same rows (docs/performance.md, "PostgreSQL").

CREATE OR REPLACE FUNCTION rollup_count(p TEXT, at BIGINT, link TEXT, in_hours BOOLEAN, c BIGINT[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF NOT rollup_paused() THEN
        INSERT INTO rollup_count_deltas (project_id, at, link_id, in_hours, counts) VALUES (p, at, link, in_hours, c);
    END IF;
END $$;

CREATE OR REPLACE FUNCTION rollup_add_money(p TEXT, at BIGINT, link TEXT, in_hours BOOLEAN, v_kind TEXT, v_currency TEXT,
                                            v_amount DOUBLE PRECISION, v_entries BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF NOT rollup_paused() THEN
        INSERT INTO rollup_money_deltas (project_id, at, link_id, in_hours, kind, currency, amount, entries)
        VALUES (p, at, link, in_hours, v_kind, v_currency, v_amount, v_entries);
    END IF;
END $$;

CREATE OR REPLACE FUNCTION rollup_add_tally(p TEXT, at BIGINT, v_dimension TEXT, v_value TEXT, v_installs BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF NOT rollup_paused() THEN
        INSERT INTO rollup_tally_deltas (project_id, at, dimension, value, installs) VALUES (p, at, v_dimension, v_value, v_installs);
    END IF;
END $$;

-- The two triggers every install and every event fires, with their deltas written in place: a
-- PERFORM of a PL/pgSQL function is an executor start-up of its own, and rollup_install_insert's
-- chain of two cost 56 of the ~63 µs it took per install (pg_stat_statements, track = all).
CREATE OR REPLACE FUNCTION rollup_install_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    attributed INT := NEW.attributed::int;
BEGIN
    IF rollup_paused() THEN RETURN NULL; END IF;
    INSERT INTO rollup_count_deltas (project_id, at, link_id, in_hours, counts)
    VALUES (NEW.project_id, NEW.created_at, rollup_link(NEW.attributed, NEW.link_id), true, ARRAY[0, 0, 1, attributed,
        (NEW.attributed AND NEW.matched_factors = '["apple_ads"]')::int,
        (NEW.attributed AND NEW.match_type = 'deterministic')::int, (NEW.attributed AND NEW.match_type = 'probabilistic')::int,
        1 - attributed, 0, (NEW.user_id IS NOT NULL)::int,
        (EXISTS (SELECT 1 FROM payments p WHERE p.install_id = NEW.id AND p.removed_at IS NULL))::int]::bigint[]);
    IF NEW.attributed THEN
        INSERT INTO rollup_tally_deltas (project_id, at, dimension, value, installs)
        VALUES (NEW.project_id, NEW.created_at, 'confidence', confidence_band(NEW.confidence), 1);
    END IF;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION rollup_event_change() RETURNS trigger LANGUAGE plpgsql AS $$
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
    IF NOT rollup_paused() THEN
        INSERT INTO rollup_count_deltas (project_id, at, link_id, in_hours, counts)
        VALUES (e.project_id, e.received_at, link, true, ARRAY[0, 0, 0, 0, 0, 0, 0, 0, s, 0, 0]::bigint[]);
        IF e.revenue IS NOT NULL THEN
            INSERT INTO rollup_money_deltas (project_id, at, link_id, in_hours, kind, currency, amount, entries)
            VALUES (e.project_id, e.received_at, link, true, 'event', coalesce(e.currency, ''), s * e.revenue, s);
        END IF;
    END IF;
    IF TG_OP = 'INSERT' AND e.user_id IS NOT NULL THEN  -- SQLite's events_note_user_install (0006)
        INSERT INTO user_event_installs (project_id, user_id, install_id) VALUES (e.project_id, e.user_id, e.install_id) ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END $$;
