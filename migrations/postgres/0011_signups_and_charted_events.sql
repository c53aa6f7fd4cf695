-- SQLite's migration 0030: an install signed up once it has a user or a `signup` event
-- (installs.signed_up, counted where the rollups counted a user), and events charted at
-- charted_at, the time the app says they happened held inside the install's lifetime
-- (ChartedTime), where they were charted on the hour they arrived.

ALTER TABLE installs ADD COLUMN signed_up BOOLEAN NOT NULL DEFAULT false;
UPDATE installs SET signed_up = true WHERE user_id IS NOT NULL;

ALTER TABLE events ADD COLUMN charted_at BIGINT;
UPDATE events SET charted_at = received_at;
ALTER TABLE events ALTER COLUMN charted_at SET NOT NULL;
DROP INDEX events_by_project;
CREATE INDEX events_by_project ON events(project_id, charted_at);

-- A writer that does not set charted_at (psql, a tool) charts at arrival.
CREATE FUNCTION events_charted_at_arrival() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.charted_at := coalesce(NEW.charted_at, NEW.received_at);
    RETURN NEW;
END $$;
CREATE TRIGGER events_charted_at_arrival BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION events_charted_at_arrival();

-- signed_up follows the user (BEFORE: the AFTER trigger below sees the new value) ...
CREATE FUNCTION installs_signed_up_by_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        NEW.signed_up := NEW.signed_up OR NEW.user_id IS NOT NULL;
    ELSIF (OLD.user_id IS NULL) <> (NEW.user_id IS NULL) THEN
        NEW.signed_up := NEW.user_id IS NOT NULL OR EXISTS (SELECT 1 FROM events WHERE install_id = NEW.id AND name = 'signup');
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER installs_signed_up_by_user BEFORE INSERT OR UPDATE OF user_id ON installs
FOR EACH ROW EXECUTE FUNCTION installs_signed_up_by_user();

-- ... and the `signup` events.
CREATE FUNCTION installs_signed_up_by_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE installs SET signed_up = true WHERE id = NEW.install_id AND NOT signed_up;
    ELSE
        UPDATE installs SET signed_up = (user_id IS NOT NULL OR EXISTS (SELECT 1 FROM events WHERE install_id = OLD.install_id AND name = 'signup'))
        WHERE id = OLD.install_id AND signed_up;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER installs_signed_up_by_event AFTER INSERT ON events
FOR EACH ROW WHEN (NEW.name = 'signup') EXECUTE FUNCTION installs_signed_up_by_event();
CREATE TRIGGER installs_signup_event_deleted AFTER DELETE ON events
FOR EACH ROW WHEN (OLD.name = 'signup') EXECUTE FUNCTION installs_signed_up_by_event();

CREATE OR REPLACE FUNCTION rollup_install(i installs, s BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM rollup_count(i.project_id, i.created_at, rollup_link(i.attributed, i.link_id), true, ARRAY[0, 0, s,
        s * i.attributed::int, s * (i.attributed AND i.matched_factors = '["apple_ads"]')::int,
        s * (i.attributed AND i.match_type = 'deterministic')::int, s * (i.attributed AND i.match_type = 'probabilistic')::int,
        s * (NOT i.attributed)::int, 0, s * i.signed_up::int,
        s * (EXISTS (SELECT 1 FROM payments p WHERE p.install_id = i.id AND p.removed_at IS NULL))::int]::bigint[]);
END $$;

CREATE OR REPLACE FUNCTION rollup_install_facts(i installs, s BIGINT, in_hours BOOLEAN) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    link TEXT := rollup_link(i.attributed, i.link_id);
    e RECORD;
BEGIN
    FOR e IN SELECT project_id, charted_at, currency, revenue FROM events WHERE install_id = i.id LOOP
        PERFORM rollup_count(e.project_id, e.charted_at, link, in_hours, ARRAY[0, 0, 0, 0, 0, 0, 0, 0, s, 0, 0]::bigint[]);
        IF e.revenue IS NOT NULL THEN
            PERFORM rollup_add_money(e.project_id, e.charted_at, link, in_hours, 'event', coalesce(e.currency, ''), s * e.revenue, s);
        END IF;
    END LOOP;
    FOR e IN SELECT project_id, created_at, currency, amount FROM payments WHERE install_id = i.id AND removed_at IS NULL LOOP
        PERFORM rollup_add_money(e.project_id, e.created_at, link, in_hours, 'payment', e.currency, s * e.amount, s);
    END LOOP;
END $$;

CREATE OR REPLACE FUNCTION rollup_install_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    attributed INT := NEW.attributed::int;
BEGIN
    IF rollup_paused() THEN RETURN NULL; END IF;
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
-- signed_up listed: a column a BEFORE trigger changes does not fire UPDATE OF on its own.
DROP TRIGGER rollup_install_update ON installs;
CREATE TRIGGER rollup_install_update AFTER UPDATE OF attributed, link_id, match_type, matched_factors, user_id, signed_up, confidence ON installs
FOR EACH ROW EXECUTE FUNCTION rollup_install_update();

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

-- Installs with a `signup` event and no user were not counted as signups: counted now.
UPDATE installs SET signed_up = true WHERE NOT signed_up AND EXISTS (SELECT 1 FROM events e WHERE e.install_id = installs.id AND e.name = 'signup');
