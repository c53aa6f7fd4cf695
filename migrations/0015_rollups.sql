-- Rollups for stats and the dashboard (docs/dashboard.md, "Fast at scale"): counts per project and
-- hour, and per link and day. Triggers on the counted tables emit a signed delta per fact, in the
-- transaction that writes the rows, so every write path (SDK APIs, admin, Apple Ads, erasure) is
-- covered without knowing of them. The writer's connection collects the deltas in memory
-- (rollup_count / rollup_money, functions of SQLiteConnection that answer 1) and adds them up into
-- the rollups before each COMMIT, a write rolled back taking its deltas with it (RollupDeltas.swift);
-- any other connection's functions answer 0 and the delta goes to rollup_pending, added up at the
-- writer's next start and by this migration. Why not one upsert per fact: docs/performance.md,
-- "Dashboard and rollups".
--
-- link_id '' is "no link": clicks whose link was deleted, installs not attributed to a link, and
-- the events and payments of those installs. Money is per currency; an event's currency '' is
-- "the project's", resolved when read (as the query over rows does). Hours and days are UTC,
-- numbered from the epoch (at / 3,600,000 and / 86,400,000). Clicks deleted by retention stay
-- counted (docs/dashboard.md).

CREATE TABLE rollup_project_hours (
    project_id TEXT NOT NULL,
    hour INTEGER NOT NULL,
    clicks INTEGER NOT NULL DEFAULT 0,
    bot_clicks INTEGER NOT NULL DEFAULT 0,
    installs INTEGER NOT NULL DEFAULT 0,
    attributed_installs INTEGER NOT NULL DEFAULT 0,
    apple_ads_installs INTEGER NOT NULL DEFAULT 0,
    deterministic_installs INTEGER NOT NULL DEFAULT 0,
    probabilistic_installs INTEGER NOT NULL DEFAULT 0,
    organic_installs INTEGER NOT NULL DEFAULT 0,
    events INTEGER NOT NULL DEFAULT 0,
    signups INTEGER NOT NULL DEFAULT 0,
    paying_installs INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (project_id, hour)
) WITHOUT ROWID;

CREATE TABLE rollup_link_days (
    project_id TEXT NOT NULL,
    day INTEGER NOT NULL,
    link_id TEXT NOT NULL,
    clicks INTEGER NOT NULL DEFAULT 0,
    bot_clicks INTEGER NOT NULL DEFAULT 0,
    installs INTEGER NOT NULL DEFAULT 0,
    attributed_installs INTEGER NOT NULL DEFAULT 0,
    apple_ads_installs INTEGER NOT NULL DEFAULT 0,
    deterministic_installs INTEGER NOT NULL DEFAULT 0,
    probabilistic_installs INTEGER NOT NULL DEFAULT 0,
    organic_installs INTEGER NOT NULL DEFAULT 0,
    events INTEGER NOT NULL DEFAULT 0,
    signups INTEGER NOT NULL DEFAULT 0,
    paying_installs INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (project_id, day, link_id)
) WITHOUT ROWID;

CREATE TABLE rollup_money (
    project_id TEXT NOT NULL,
    scope TEXT NOT NULL CHECK (scope IN ('hour', 'day')),
    period INTEGER NOT NULL,
    -- always '' for scope 'hour' (project totals)
    link_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('payment', 'event')),
    currency TEXT NOT NULL,
    amount REAL NOT NULL,
    -- rows summed: a currency with rows shows even when they add up to 0, as the query over rows shows it
    entries INTEGER NOT NULL,
    PRIMARY KEY (project_id, scope, period, link_id, kind, currency)
) WITHOUT ROWID;

-- Deltas of the transaction in progress; empty at every commit. in_hours 0: a move between links
-- (the project's hourly totals do not change).
CREATE TABLE rollup_pending (
    project_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    link_id TEXT NOT NULL,
    in_hours INTEGER NOT NULL,
    clicks INTEGER NOT NULL DEFAULT 0,
    bot_clicks INTEGER NOT NULL DEFAULT 0,
    installs INTEGER NOT NULL DEFAULT 0,
    attributed_installs INTEGER NOT NULL DEFAULT 0,
    apple_ads_installs INTEGER NOT NULL DEFAULT 0,
    deterministic_installs INTEGER NOT NULL DEFAULT 0,
    probabilistic_installs INTEGER NOT NULL DEFAULT 0,
    organic_installs INTEGER NOT NULL DEFAULT 0,
    events INTEGER NOT NULL DEFAULT 0,
    signups INTEGER NOT NULL DEFAULT 0,
    paying_installs INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE rollup_pending_money (
    project_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    link_id TEXT NOT NULL,
    in_hours INTEGER NOT NULL,
    kind TEXT NOT NULL,
    currency TEXT NOT NULL,
    amount REAL NOT NULL,
    entries INTEGER NOT NULL
);

CREATE TRIGGER rollup_click_insert AFTER INSERT ON clicks BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT NEW.project_id, NEW.created_at, coalesce(NEW.link_id, ''), 1, 1 - (NEW.is_bot <> 0), (NEW.is_bot <> 0), 0, 0, 0, 0, 0, 0, 0, 0, 0
    WHERE NOT rollup_count(NEW.project_id, NEW.created_at, coalesce(NEW.link_id, ''), 1, 1 - (NEW.is_bot <> 0), (NEW.is_bot <> 0), 0, 0, 0, 0, 0, 0, 0, 0, 0);
END;

-- A deleted link's clicks count as unlinked from then on (the foreign key sets clicks.link_id to
-- NULL without a trigger of ours; installs move through rollup_install_update).
CREATE TRIGGER rollup_link_delete AFTER DELETE ON links BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT project_id, day * 86400000, '', 0, clicks, bot_clicks, 0, 0, 0, 0, 0, 0, 0, 0, 0 FROM rollup_link_days
    WHERE project_id = OLD.project_id AND link_id = OLD.id AND (clicks <> 0 OR bot_clicks <> 0) AND NOT rollup_count(project_id, day * 86400000, '', 0, clicks, bot_clicks, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    DELETE FROM rollup_link_days WHERE project_id = OLD.project_id AND link_id = OLD.id;
    DELETE FROM rollup_money WHERE project_id = OLD.project_id AND scope = 'day' AND link_id = OLD.id;
END;

CREATE TRIGGER rollup_install_insert AFTER INSERT ON installs BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT NEW.project_id, NEW.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 1, 0, 0, 1, (NEW.attributed <> 0), (NEW.attributed <> 0 AND NEW.matched_factors = '["apple_ads"]'), (NEW.attributed <> 0 AND NEW.match_type = 'deterministic'), (NEW.attributed <> 0 AND NEW.match_type = 'probabilistic'), (NEW.attributed = 0), 0, (NEW.user_id IS NOT NULL), EXISTS (SELECT 1 FROM payments p WHERE p.install_id = NEW.id AND p.removed_at IS NULL)
    WHERE NOT rollup_count(NEW.project_id, NEW.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 1, 0, 0, 1, (NEW.attributed <> 0), (NEW.attributed <> 0 AND NEW.matched_factors = '["apple_ads"]'), (NEW.attributed <> 0 AND NEW.match_type = 'deterministic'), (NEW.attributed <> 0 AND NEW.match_type = 'probabilistic'), (NEW.attributed = 0), 0, (NEW.user_id IS NOT NULL), EXISTS (SELECT 1 FROM payments p WHERE p.install_id = NEW.id AND p.removed_at IS NULL));
END;

-- A re-attributed install (Apple Ads taking over, its link deleted) moves with its events and
-- payments from one link to the other.
CREATE TRIGGER rollup_install_update AFTER UPDATE OF attributed, link_id, match_type, matched_factors ON installs
WHEN OLD.attributed IS NOT NEW.attributed OR OLD.link_id IS NOT NEW.link_id OR OLD.match_type IS NOT NEW.match_type
    OR OLD.matched_factors IS NOT NEW.matched_factors BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT OLD.project_id, OLD.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 0, 0, -1, -(OLD.attributed <> 0), -(OLD.attributed <> 0 AND OLD.matched_factors = '["apple_ads"]'), -(OLD.attributed <> 0 AND OLD.match_type = 'deterministic'), -(OLD.attributed <> 0 AND OLD.match_type = 'probabilistic'), -(OLD.attributed = 0), 0, -(OLD.user_id IS NOT NULL), -EXISTS (SELECT 1 FROM payments p WHERE p.install_id = OLD.id AND p.removed_at IS NULL)
    WHERE NOT rollup_count(OLD.project_id, OLD.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 0, 0, -1, -(OLD.attributed <> 0), -(OLD.attributed <> 0 AND OLD.matched_factors = '["apple_ads"]'), -(OLD.attributed <> 0 AND OLD.match_type = 'deterministic'), -(OLD.attributed <> 0 AND OLD.match_type = 'probabilistic'), -(OLD.attributed = 0), 0, -(OLD.user_id IS NOT NULL), -EXISTS (SELECT 1 FROM payments p WHERE p.install_id = OLD.id AND p.removed_at IS NULL));
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT NEW.project_id, NEW.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 1, 0, 0, 1, (NEW.attributed <> 0), (NEW.attributed <> 0 AND NEW.matched_factors = '["apple_ads"]'), (NEW.attributed <> 0 AND NEW.match_type = 'deterministic'), (NEW.attributed <> 0 AND NEW.match_type = 'probabilistic'), (NEW.attributed = 0), 0, (NEW.user_id IS NOT NULL), EXISTS (SELECT 1 FROM payments p WHERE p.install_id = NEW.id AND p.removed_at IS NULL)
    WHERE NOT rollup_count(NEW.project_id, NEW.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 1, 0, 0, 1, (NEW.attributed <> 0), (NEW.attributed <> 0 AND NEW.matched_factors = '["apple_ads"]'), (NEW.attributed <> 0 AND NEW.match_type = 'deterministic'), (NEW.attributed <> 0 AND NEW.match_type = 'probabilistic'), (NEW.attributed = 0), 0, (NEW.user_id IS NOT NULL), EXISTS (SELECT 1 FROM payments p WHERE p.install_id = NEW.id AND p.removed_at IS NULL));
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT e.project_id, e.received_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0 FROM events e
    WHERE e.install_id = OLD.id AND NOT rollup_count(e.project_id, e.received_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT e.project_id, e.received_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 0, 'event', coalesce(e.currency, ''), -e.revenue, -1 FROM events e
    WHERE e.install_id = OLD.id AND e.revenue IS NOT NULL AND NOT rollup_money(e.project_id, e.received_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 0, 'event', coalesce(e.currency, ''), -e.revenue, -1);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT p.project_id, p.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 0, 'payment', p.currency, -p.amount, -1 FROM payments p
    WHERE p.install_id = OLD.id AND p.removed_at IS NULL AND NOT rollup_money(p.project_id, p.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 0, 'payment', p.currency, -p.amount, -1);
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT e.project_id, e.received_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0 FROM events e
    WHERE e.install_id = NEW.id AND NOT rollup_count(e.project_id, e.received_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT e.project_id, e.received_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 0, 'event', coalesce(e.currency, ''), e.revenue, 1 FROM events e
    WHERE e.install_id = NEW.id AND e.revenue IS NOT NULL AND NOT rollup_money(e.project_id, e.received_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 0, 'event', coalesce(e.currency, ''), e.revenue, 1);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT p.project_id, p.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 0, 'payment', p.currency, p.amount, 1 FROM payments p
    WHERE p.install_id = NEW.id AND p.removed_at IS NULL AND NOT rollup_money(p.project_id, p.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 0, 'payment', p.currency, p.amount, 1);
END;

-- BEFORE: the install's events and payments are still there (the cascade deletes them after the
-- install row, when their own triggers can no longer find its link).
CREATE TRIGGER rollup_install_delete BEFORE DELETE ON installs BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT OLD.project_id, OLD.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 0, 0, -1, -(OLD.attributed <> 0), -(OLD.attributed <> 0 AND OLD.matched_factors = '["apple_ads"]'), -(OLD.attributed <> 0 AND OLD.match_type = 'deterministic'), -(OLD.attributed <> 0 AND OLD.match_type = 'probabilistic'), -(OLD.attributed = 0), 0, -(OLD.user_id IS NOT NULL), -EXISTS (SELECT 1 FROM payments p WHERE p.install_id = OLD.id AND p.removed_at IS NULL)
    WHERE NOT rollup_count(OLD.project_id, OLD.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 0, 0, -1, -(OLD.attributed <> 0), -(OLD.attributed <> 0 AND OLD.matched_factors = '["apple_ads"]'), -(OLD.attributed <> 0 AND OLD.match_type = 'deterministic'), -(OLD.attributed <> 0 AND OLD.match_type = 'probabilistic'), -(OLD.attributed = 0), 0, -(OLD.user_id IS NOT NULL), -EXISTS (SELECT 1 FROM payments p WHERE p.install_id = OLD.id AND p.removed_at IS NULL));
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT e.project_id, e.received_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0 FROM events e
    WHERE e.install_id = OLD.id AND NOT rollup_count(e.project_id, e.received_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT e.project_id, e.received_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 'event', coalesce(e.currency, ''), -e.revenue, -1 FROM events e
    WHERE e.install_id = OLD.id AND e.revenue IS NOT NULL AND NOT rollup_money(e.project_id, e.received_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 'event', coalesce(e.currency, ''), -e.revenue, -1);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT p.project_id, p.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 'payment', p.currency, -p.amount, -1 FROM payments p
    WHERE p.install_id = OLD.id AND p.removed_at IS NULL AND NOT rollup_money(p.project_id, p.created_at, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 1, 'payment', p.currency, -p.amount, -1);
END;

CREATE TRIGGER rollup_event_insert AFTER INSERT ON events BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT NEW.project_id, NEW.received_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0
    WHERE NOT rollup_count(NEW.project_id, NEW.received_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT NEW.project_id, NEW.received_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 'event', coalesce(NEW.currency, ''), NEW.revenue, 1
    WHERE NEW.revenue IS NOT NULL AND NOT rollup_money(NEW.project_id, NEW.received_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 'event', coalesce(NEW.currency, ''), NEW.revenue, 1);
END;

-- Events deleted on their own (a user's erasure); those of a deleted install went with it above.
CREATE TRIGGER rollup_event_delete AFTER DELETE ON events WHEN EXISTS (SELECT 1 FROM installs WHERE id = OLD.install_id) BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT OLD.project_id, OLD.received_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = OLD.install_id), ''), 1, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0
    WHERE NOT rollup_count(OLD.project_id, OLD.received_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = OLD.install_id), ''), 1, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0);
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT OLD.project_id, OLD.received_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = OLD.install_id), ''), 1, 'event', coalesce(OLD.currency, ''), -OLD.revenue, -1
    WHERE OLD.revenue IS NOT NULL AND NOT rollup_money(OLD.project_id, OLD.received_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = OLD.install_id), ''), 1, 'event', coalesce(OLD.currency, ''), -OLD.revenue, -1);
END;

CREATE TRIGGER rollup_payment_insert AFTER INSERT ON payments WHEN NEW.removed_at IS NULL BEGIN
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT NEW.project_id, NEW.created_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 'payment', NEW.currency, NEW.amount, 1
    WHERE NOT rollup_money(NEW.project_id, NEW.created_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 'payment', NEW.currency, NEW.amount, 1);
END;

CREATE TRIGGER rollup_payment_removed AFTER UPDATE OF removed_at ON payments WHEN OLD.removed_at IS NULL AND NEW.removed_at IS NOT NULL BEGIN
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT NEW.project_id, NEW.created_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 'payment', NEW.currency, -NEW.amount, -1
    WHERE NOT rollup_money(NEW.project_id, NEW.created_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1, 'payment', NEW.currency, -NEW.amount, -1);
END;

CREATE TRIGGER rollup_payment_delete AFTER DELETE ON payments
WHEN OLD.removed_at IS NULL AND EXISTS (SELECT 1 FROM installs WHERE id = OLD.install_id) BEGIN
    INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
    SELECT OLD.project_id, OLD.created_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = OLD.install_id), ''), 1, 'payment', OLD.currency, -OLD.amount, -1
    WHERE NOT rollup_money(OLD.project_id, OLD.created_at, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = OLD.install_id), ''), 1, 'payment', OLD.currency, -OLD.amount, -1);
END;

-- The funnel counts an install once it has a user (signups) and once it has a payment that was
-- not removed (paying installs), at the install's own hour and link, like the install itself.
CREATE TRIGGER rollup_install_signup AFTER UPDATE OF user_id ON installs
WHEN (OLD.user_id IS NULL) <> (NEW.user_id IS NULL) BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT NEW.project_id, NEW.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, CASE WHEN NEW.user_id IS NULL THEN -1 ELSE 1 END, 0
    WHERE NOT rollup_count(NEW.project_id, NEW.created_at, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, CASE WHEN NEW.user_id IS NULL THEN -1 ELSE 1 END, 0);
END;

CREATE TRIGGER rollup_first_payment AFTER INSERT ON payments
WHEN NEW.removed_at IS NULL AND (SELECT count(*) FROM payments WHERE install_id = NEW.install_id AND removed_at IS NULL) = 1 BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT i.project_id, i.created_at, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 FROM installs i
    WHERE i.id = NEW.install_id AND NOT rollup_count(i.project_id, i.created_at, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1);
END;

CREATE TRIGGER rollup_last_payment_removed AFTER UPDATE OF removed_at ON payments
WHEN OLD.removed_at IS NULL AND NEW.removed_at IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM payments WHERE install_id = NEW.install_id AND removed_at IS NULL) BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT i.project_id, i.created_at, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1 FROM installs i
    WHERE i.id = NEW.install_id AND NOT rollup_count(i.project_id, i.created_at, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1);
END;

CREATE TRIGGER rollup_last_payment_deleted AFTER DELETE ON payments
WHEN OLD.removed_at IS NULL AND EXISTS (SELECT 1 FROM installs WHERE id = OLD.install_id)
    AND NOT EXISTS (SELECT 1 FROM payments WHERE install_id = OLD.install_id AND removed_at IS NULL) BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT i.project_id, i.created_at, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1 FROM installs i
    WHERE i.id = OLD.install_id AND NOT rollup_count(i.project_id, i.created_at, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1);
END;

-- What the database already holds: through the pending tables, added up by the same statements
-- as every commit's deltas (the migration runs them below).
INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks)
SELECT project_id, created_at, coalesce(link_id, ''), 1, is_bot = 0, is_bot <> 0 FROM clicks;
INSERT INTO rollup_pending (project_id, at, link_id, in_hours, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, signups, paying_installs)
SELECT i.project_id, i.created_at, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, 1, 1, (i.attributed <> 0), (i.attributed <> 0 AND i.matched_factors = '["apple_ads"]'), (i.attributed <> 0 AND i.match_type = 'deterministic'), (i.attributed <> 0 AND i.match_type = 'probabilistic'), (i.attributed = 0), (i.user_id IS NOT NULL), EXISTS (SELECT 1 FROM payments p WHERE p.install_id = i.id AND p.removed_at IS NULL) FROM installs i;
INSERT INTO rollup_pending (project_id, at, link_id, in_hours, events)
SELECT e.project_id, e.received_at, coalesce(CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, ''), 1, 1 FROM events e JOIN installs i ON i.id = e.install_id;
INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
SELECT e.project_id, e.received_at, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, 1, 'event', coalesce(e.currency, ''), e.revenue, 1
FROM events e JOIN installs i ON i.id = e.install_id WHERE e.revenue IS NOT NULL;
INSERT INTO rollup_pending_money (project_id, at, link_id, in_hours, kind, currency, amount, entries)
SELECT p.project_id, p.created_at, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, 1, 'payment', p.currency, p.amount, 1
FROM payments p JOIN installs i ON i.id = p.install_id WHERE p.removed_at IS NULL;
INSERT INTO rollup_link_days (project_id, day, link_id, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
SELECT project_id, at / 86400000, link_id, sum(clicks), sum(bot_clicks), sum(installs), sum(attributed_installs), sum(apple_ads_installs), sum(deterministic_installs), sum(probabilistic_installs), sum(organic_installs), sum(events), sum(signups), sum(paying_installs) FROM rollup_pending WHERE true GROUP BY 1, 2, 3
ON CONFLICT DO UPDATE SET clicks = clicks + excluded.clicks, bot_clicks = bot_clicks + excluded.bot_clicks, installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs, events = events + excluded.events, signups = signups + excluded.signups, paying_installs = paying_installs + excluded.paying_installs;
INSERT INTO rollup_project_hours (project_id, hour, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
SELECT project_id, at / 3600000, sum(clicks), sum(bot_clicks), sum(installs), sum(attributed_installs), sum(apple_ads_installs), sum(deterministic_installs), sum(probabilistic_installs), sum(organic_installs), sum(events), sum(signups), sum(paying_installs) FROM rollup_pending WHERE in_hours GROUP BY 1, 2
ON CONFLICT DO UPDATE SET clicks = clicks + excluded.clicks, bot_clicks = bot_clicks + excluded.bot_clicks, installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs, events = events + excluded.events, signups = signups + excluded.signups, paying_installs = paying_installs + excluded.paying_installs;
INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
SELECT project_id, 'day', at / 86400000, link_id, kind, currency, sum(amount), sum(entries) FROM rollup_pending_money WHERE true
GROUP BY 1, 2, 3, 4, 5, 6 ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
SELECT project_id, 'hour', at / 3600000, '', kind, currency, sum(amount), sum(entries) FROM rollup_pending_money WHERE in_hours
GROUP BY 1, 2, 3, 4, 5, 6 ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
DELETE FROM rollup_pending;
DELETE FROM rollup_pending_money;
