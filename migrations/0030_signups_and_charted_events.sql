-- Two corrections to what the dashboard counts (docs/dashboard.md, "What the numbers count").
--
-- Signups: an install signed up once it has a user (Linkrunner's signup/login, set-user-data) or a
-- `signup` event (LinkForty's and WarpLink's apps send one). `installs.signed_up` keeps that, set
-- by the triggers below whichever way it happens; the rollups count it where they counted a user.
--
-- Events are charted at `charted_at`: the time the app says the event happened, held between the
-- install's creation and the event's arrival (ChartedTime), where they were charted on the hour
-- they arrived. Events stored before this migration keep their arrival time, as the rollups
-- already count them there.

ALTER TABLE installs ADD COLUMN signed_up INTEGER NOT NULL DEFAULT 0;
UPDATE installs SET signed_up = 1 WHERE user_id IS NOT NULL;

ALTER TABLE events ADD COLUMN charted_at INTEGER;
UPDATE events SET charted_at = received_at;
DROP INDEX events_by_project;
CREATE INDEX events_by_project ON events(project_id, charted_at);

-- A writer that does not set charted_at (a sqlite3 shell, a tool) charts at arrival.
CREATE TRIGGER events_charted_at_arrival AFTER INSERT ON events WHEN NEW.charted_at IS NULL BEGIN
    UPDATE events SET charted_at = NEW.received_at WHERE rowid = NEW.rowid;
END;

DROP TRIGGER rollup_install_insert;
DROP TRIGGER rollup_install_update;
DROP TRIGGER rollup_install_delete;
DROP TRIGGER rollup_install_signup;
DROP TRIGGER rollup_event_insert;
DROP TRIGGER rollup_event_delete;

CREATE TRIGGER rollup_install_insert AFTER INSERT ON installs BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT NEW.project_id, NEW.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 1, 0, 0, 1, (NEW.attributed <> 0), (NEW.attributed <> 0 AND NEW.matched_factors = '["apple_ads"]'), (NEW.attributed <> 0 AND NEW.match_type = 'deterministic'), (NEW.attributed <> 0 AND NEW.match_type = 'probabilistic'), (NEW.attributed = 0), 0, NEW.signed_up, EXISTS (SELECT 1 FROM payments p WHERE p.install_id = NEW.id AND p.removed_at IS NULL)
    WHERE NOT rollup_count(NEW.project_id, NEW.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 1, 0, 0, 1, (NEW.attributed <> 0), (NEW.attributed <> 0 AND NEW.matched_factors = '["apple_ads"]'), (NEW.attributed <> 0 AND NEW.match_type = 'deterministic'), (NEW.attributed <> 0 AND NEW.match_type = 'probabilistic'), (NEW.attributed = 0), 0, NEW.signed_up, EXISTS (SELECT 1 FROM payments p WHERE p.install_id = NEW.id AND p.removed_at IS NULL));
END;

CREATE TRIGGER rollup_install_update AFTER UPDATE OF attributed, link_id, match_type, matched_factors ON installs
WHEN OLD.attributed IS NOT NEW.attributed OR OLD.link_id IS NOT NEW.link_id OR OLD.match_type IS NOT NEW.match_type
    OR OLD.matched_factors IS NOT NEW.matched_factors BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT OLD.project_id, OLD.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 0, 0, -1, -(OLD.attributed <> 0), -(OLD.attributed <> 0 AND OLD.matched_factors = '["apple_ads"]'), -(OLD.attributed <> 0 AND OLD.match_type = 'deterministic'), -(OLD.attributed <> 0 AND OLD.match_type = 'probabilistic'), -(OLD.attributed = 0), 0, -OLD.signed_up, -EXISTS (SELECT 1 FROM payments p WHERE p.install_id = OLD.id AND p.removed_at IS NULL)
    WHERE NOT rollup_count(OLD.project_id, OLD.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 0, 0, -1, -(OLD.attributed <> 0), -(OLD.attributed <> 0 AND OLD.matched_factors = '["apple_ads"]'), -(OLD.attributed <> 0 AND OLD.match_type = 'deterministic'), -(OLD.attributed <> 0 AND OLD.match_type = 'probabilistic'), -(OLD.attributed = 0), 0, -OLD.signed_up, -EXISTS (SELECT 1 FROM payments p WHERE p.install_id = OLD.id AND p.removed_at IS NULL));
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT NEW.project_id, NEW.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 1, 0, 0, 1, (NEW.attributed <> 0), (NEW.attributed <> 0 AND NEW.matched_factors = '["apple_ads"]'), (NEW.attributed <> 0 AND NEW.match_type = 'deterministic'), (NEW.attributed <> 0 AND NEW.match_type = 'probabilistic'), (NEW.attributed = 0), 0, NEW.signed_up, EXISTS (SELECT 1 FROM payments p WHERE p.install_id = NEW.id AND p.removed_at IS NULL)
    WHERE NOT rollup_count(NEW.project_id, NEW.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 1, 0, 0, 1, (NEW.attributed <> 0), (NEW.attributed <> 0 AND NEW.matched_factors = '["apple_ads"]'), (NEW.attributed <> 0 AND NEW.match_type = 'deterministic'), (NEW.attributed <> 0 AND NEW.match_type = 'probabilistic'), (NEW.attributed = 0), 0, NEW.signed_up, EXISTS (SELECT 1 FROM payments p WHERE p.install_id = NEW.id AND p.removed_at IS NULL));
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT e.project_id, e.charted_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0 FROM events e
    WHERE e.install_id = OLD.id AND NOT rollup_count(e.project_id, e.charted_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT e.project_id, e.charted_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 0, 'event', coalesce(e.currency, ''), -e.revenue, -1 FROM events e
    WHERE e.install_id = OLD.id AND e.revenue IS NOT NULL AND NOT rollup_money(e.project_id, e.charted_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 0, 'event', coalesce(e.currency, ''), -e.revenue, -1);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT p.project_id, p.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 0, 'payment', p.currency, -p.amount, -1 FROM payments p
    WHERE p.install_id = OLD.id AND p.removed_at IS NULL AND NOT rollup_money(p.project_id, p.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 0, 'payment', p.currency, -p.amount, -1);
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT e.project_id, e.charted_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0 FROM events e
    WHERE e.install_id = NEW.id AND NOT rollup_count(e.project_id, e.charted_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT e.project_id, e.charted_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 0, 'event', coalesce(e.currency, ''), e.revenue, 1 FROM events e
    WHERE e.install_id = NEW.id AND e.revenue IS NOT NULL AND NOT rollup_money(e.project_id, e.charted_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 0, 'event', coalesce(e.currency, ''), e.revenue, 1);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT p.project_id, p.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 0, 'payment', p.currency, p.amount, 1 FROM payments p
    WHERE p.install_id = NEW.id AND p.removed_at IS NULL AND NOT rollup_money(p.project_id, p.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 0, 'payment', p.currency, p.amount, 1);
END;

CREATE TRIGGER rollup_install_delete BEFORE DELETE ON installs BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT OLD.project_id, OLD.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 0, 0, -1, -(OLD.attributed <> 0), -(OLD.attributed <> 0 AND OLD.matched_factors = '["apple_ads"]'), -(OLD.attributed <> 0 AND OLD.match_type = 'deterministic'), -(OLD.attributed <> 0 AND OLD.match_type = 'probabilistic'), -(OLD.attributed = 0), 0, -OLD.signed_up, -EXISTS (SELECT 1 FROM payments p WHERE p.install_id = OLD.id AND p.removed_at IS NULL)
    WHERE NOT rollup_count(OLD.project_id, OLD.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 0, 0, -1, -(OLD.attributed <> 0), -(OLD.attributed <> 0 AND OLD.matched_factors = '["apple_ads"]'), -(OLD.attributed <> 0 AND OLD.match_type = 'deterministic'), -(OLD.attributed <> 0 AND OLD.match_type = 'probabilistic'), -(OLD.attributed = 0), 0, -OLD.signed_up, -EXISTS (SELECT 1 FROM payments p WHERE p.install_id = OLD.id AND p.removed_at IS NULL));
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT e.project_id, e.charted_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0 FROM events e
    WHERE e.install_id = OLD.id AND NOT rollup_count(e.project_id, e.charted_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT e.project_id, e.charted_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 'event', coalesce(e.currency, ''), -e.revenue, -1 FROM events e
    WHERE e.install_id = OLD.id AND e.revenue IS NOT NULL AND NOT rollup_money(e.project_id, e.charted_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 'event', coalesce(e.currency, ''), -e.revenue, -1);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT p.project_id, p.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 'payment', p.currency, -p.amount, -1 FROM payments p
    WHERE p.install_id = OLD.id AND p.removed_at IS NULL AND NOT rollup_money(p.project_id, p.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 'payment', p.currency, -p.amount, -1);
END;

CREATE TRIGGER rollup_install_signup AFTER UPDATE OF signed_up ON installs
WHEN OLD.signed_up <> NEW.signed_up BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT NEW.project_id, NEW.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, NEW.signed_up - OLD.signed_up, 0
    WHERE NOT rollup_count(NEW.project_id, NEW.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, NEW.signed_up - OLD.signed_up, 0);
END;

CREATE TRIGGER rollup_event_insert AFTER INSERT ON events WHEN NOT rollup_counted_by_caller() BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT NEW.project_id, coalesce(NEW.charted_at, NEW.received_at), coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0
    WHERE NOT rollup_count(NEW.project_id, coalesce(NEW.charted_at, NEW.received_at), coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT NEW.project_id, coalesce(NEW.charted_at, NEW.received_at), coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 'event', coalesce(NEW.currency, ''), NEW.revenue, 1
    WHERE NEW.revenue IS NOT NULL AND NOT rollup_money(NEW.project_id, coalesce(NEW.charted_at, NEW.received_at), coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 'event', coalesce(NEW.currency, ''), NEW.revenue, 1);
END;

CREATE TRIGGER rollup_event_delete AFTER DELETE ON events WHEN EXISTS (SELECT 1 FROM installs WHERE id = OLD.install_id) BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT OLD.project_id, coalesce(OLD.charted_at, OLD.received_at), coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = OLD.install_id), ''), 1, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0
    WHERE NOT rollup_count(OLD.project_id, coalesce(OLD.charted_at, OLD.received_at), coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = OLD.install_id), ''), 1, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT OLD.project_id, coalesce(OLD.charted_at, OLD.received_at), coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = OLD.install_id), ''), 1, 'event', coalesce(OLD.currency, ''), -OLD.revenue, -1
    WHERE OLD.revenue IS NOT NULL AND NOT rollup_money(OLD.project_id, coalesce(OLD.charted_at, OLD.received_at), coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = OLD.install_id), ''), 1, 'event', coalesce(OLD.currency, ''), -OLD.revenue, -1);
END;

CREATE TRIGGER installs_signed_up_at_insert AFTER INSERT ON installs WHEN NEW.user_id IS NOT NULL BEGIN
    UPDATE installs SET signed_up = 1 WHERE id = NEW.id;
END;

CREATE TRIGGER installs_signed_up_by_user AFTER UPDATE OF user_id ON installs
WHEN (OLD.user_id IS NULL) <> (NEW.user_id IS NULL) BEGIN
    UPDATE installs SET signed_up = (NEW.user_id IS NOT NULL OR EXISTS (SELECT 1 FROM events WHERE install_id = NEW.id AND name = 'signup'))
    WHERE id = NEW.id;
END;

CREATE TRIGGER installs_signed_up_by_event AFTER INSERT ON events WHEN NEW.name = 'signup' BEGIN
    UPDATE installs SET signed_up = 1 WHERE id = NEW.install_id AND signed_up = 0;
END;

CREATE TRIGGER installs_signup_event_deleted AFTER DELETE ON events WHEN OLD.name = 'signup' BEGIN
    UPDATE installs SET signed_up = (user_id IS NOT NULL OR EXISTS (SELECT 1 FROM events WHERE install_id = OLD.install_id AND name = 'signup'))
    WHERE id = OLD.install_id;
END;

-- Installs with a `signup` event and no user were not counted as signups: counted now (through
-- rollup_install_signup, added up when the writer starts).
UPDATE installs SET signed_up = 1 WHERE signed_up = 0 AND EXISTS (SELECT 1 FROM events e WHERE e.install_id = installs.id AND e.name = 'signup');
