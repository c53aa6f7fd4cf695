-- Rollups for stats and the dashboard (docs/dashboard.md, "Fast at scale"): counts per project and
-- hour, and per link and day, kept by triggers in the same transaction as the rows they count, so
-- every write path (SDK APIs, admin, Apple Ads, erasure) keeps them exact without knowing of them.
-- link_id '' is "no link": clicks whose link was deleted, installs not attributed to a link, and
-- the events and payments of those installs. Money is per currency; an event's currency '' is
-- "the project's", resolved when read (as the raw query does). Hours and days are UTC, numbered
-- from the epoch (created_at / 3,600,000 and / 86,400,000).
--
-- Clicks deleted by retention stay counted: the dashboard keeps its history when the rows that
-- matching needs are pruned (docs/dashboard.md).

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
    -- rows summed: a currency with rows shows even when they add up to 0, as the raw query shows it
    entries INTEGER NOT NULL,
    PRIMARY KEY (project_id, scope, period, link_id, kind, currency)
) WITHOUT ROWID;

CREATE TRIGGER rollup_click_insert AFTER INSERT ON clicks BEGIN
    INSERT INTO rollup_project_hours (project_id, hour, clicks, bot_clicks)
    VALUES (NEW.project_id, NEW.created_at / 3600000, 1 - (NEW.is_bot <> 0), (NEW.is_bot <> 0))
    ON CONFLICT DO UPDATE SET clicks = clicks + excluded.clicks, bot_clicks = bot_clicks + excluded.bot_clicks;
    INSERT INTO rollup_link_days (project_id, day, link_id, clicks, bot_clicks)
    VALUES (NEW.project_id, NEW.created_at / 86400000, coalesce(NEW.link_id, ''), 1 - (NEW.is_bot <> 0), (NEW.is_bot <> 0))
    ON CONFLICT DO UPDATE SET clicks = clicks + excluded.clicks, bot_clicks = bot_clicks + excluded.bot_clicks;
END;

-- A deleted link's clicks count as unlinked from then on (the foreign key sets clicks.link_id to
-- NULL without a trigger of ours; installs move through rollup_install_update).
CREATE TRIGGER rollup_link_delete AFTER DELETE ON links BEGIN
    INSERT INTO rollup_link_days (project_id, day, link_id, clicks, bot_clicks)
    SELECT project_id, day, '', clicks, bot_clicks FROM rollup_link_days
    WHERE project_id = OLD.project_id AND link_id = OLD.id AND (clicks <> 0 OR bot_clicks <> 0)
    ON CONFLICT DO UPDATE SET clicks = clicks + excluded.clicks, bot_clicks = bot_clicks + excluded.bot_clicks;
    DELETE FROM rollup_link_days WHERE project_id = OLD.project_id AND link_id = OLD.id;
    DELETE FROM rollup_money WHERE project_id = OLD.project_id AND scope = 'day' AND link_id = OLD.id;
END;

CREATE TRIGGER rollup_install_insert AFTER INSERT ON installs BEGIN
    INSERT INTO rollup_project_hours (project_id, hour, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs)
    VALUES (NEW.project_id, NEW.created_at / 3600000, 1, (NEW.attributed <> 0), (NEW.attributed <> 0 AND NEW.matched_factors = '["apple_ads"]'), (NEW.attributed <> 0 AND NEW.match_type = 'deterministic'), (NEW.attributed <> 0 AND NEW.match_type = 'probabilistic'), (NEW.attributed = 0))
    ON CONFLICT DO UPDATE SET installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs;
    INSERT INTO rollup_link_days (project_id, day, link_id, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs)
    VALUES (NEW.project_id, NEW.created_at / 86400000, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 1, (NEW.attributed <> 0), (NEW.attributed <> 0 AND NEW.matched_factors = '["apple_ads"]'), (NEW.attributed <> 0 AND NEW.match_type = 'deterministic'), (NEW.attributed <> 0 AND NEW.match_type = 'probabilistic'), (NEW.attributed = 0))
    ON CONFLICT DO UPDATE SET installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs;
END;

CREATE TRIGGER rollup_install_update AFTER UPDATE OF attributed, link_id, match_type, matched_factors ON installs
WHEN OLD.attributed IS NOT NEW.attributed OR OLD.link_id IS NOT NEW.link_id OR OLD.match_type IS NOT NEW.match_type
    OR OLD.matched_factors IS NOT NEW.matched_factors BEGIN
    INSERT INTO rollup_project_hours (project_id, hour, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs)
    VALUES (OLD.project_id, OLD.created_at / 3600000, -1, -(OLD.attributed <> 0), -(OLD.attributed <> 0 AND OLD.matched_factors = '["apple_ads"]'), -(OLD.attributed <> 0 AND OLD.match_type = 'deterministic'), -(OLD.attributed <> 0 AND OLD.match_type = 'probabilistic'), -(OLD.attributed = 0))
    ON CONFLICT DO UPDATE SET installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs;
    INSERT INTO rollup_link_days (project_id, day, link_id, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs)
    VALUES (OLD.project_id, OLD.created_at / 86400000, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, -1, -(OLD.attributed <> 0), -(OLD.attributed <> 0 AND OLD.matched_factors = '["apple_ads"]'), -(OLD.attributed <> 0 AND OLD.match_type = 'deterministic'), -(OLD.attributed <> 0 AND OLD.match_type = 'probabilistic'), -(OLD.attributed = 0))
    ON CONFLICT DO UPDATE SET installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs;
    INSERT INTO rollup_project_hours (project_id, hour, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs)
    VALUES (NEW.project_id, NEW.created_at / 3600000, 1, (NEW.attributed <> 0), (NEW.attributed <> 0 AND NEW.matched_factors = '["apple_ads"]'), (NEW.attributed <> 0 AND NEW.match_type = 'deterministic'), (NEW.attributed <> 0 AND NEW.match_type = 'probabilistic'), (NEW.attributed = 0))
    ON CONFLICT DO UPDATE SET installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs;
    INSERT INTO rollup_link_days (project_id, day, link_id, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs)
    VALUES (NEW.project_id, NEW.created_at / 86400000, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 1, (NEW.attributed <> 0), (NEW.attributed <> 0 AND NEW.matched_factors = '["apple_ads"]'), (NEW.attributed <> 0 AND NEW.match_type = 'deterministic'), (NEW.attributed <> 0 AND NEW.match_type = 'probabilistic'), (NEW.attributed = 0))
    ON CONFLICT DO UPDATE SET installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs;
    INSERT INTO rollup_link_days (project_id, day, link_id, events)
    SELECT e.project_id, e.received_at / 86400000, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, -count(*) AS n FROM events e WHERE e.install_id = NEW.id GROUP BY 1, 2
    ON CONFLICT DO UPDATE SET events = events + excluded.events;
    INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
    SELECT e.project_id, 'day', e.received_at / 86400000, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 'event', coalesce(e.currency, ''), -sum(e.revenue), -count(*) FROM events e
    WHERE e.install_id = NEW.id AND e.revenue IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6
    ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
    INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
    SELECT p.project_id, 'day', p.created_at / 86400000, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 'payment', p.currency, -sum(p.amount), -count(*) FROM payments p
    WHERE p.install_id = NEW.id AND p.removed_at IS NULL GROUP BY 1, 2, 3, 4, 5, 6
    ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
    INSERT INTO rollup_link_days (project_id, day, link_id, events)
    SELECT e.project_id, e.received_at / 86400000, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, count(*) AS n FROM events e WHERE e.install_id = NEW.id GROUP BY 1, 2
    ON CONFLICT DO UPDATE SET events = events + excluded.events;
    INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
    SELECT e.project_id, 'day', e.received_at / 86400000, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 'event', coalesce(e.currency, ''), sum(e.revenue), count(*) FROM events e
    WHERE e.install_id = NEW.id AND e.revenue IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6
    ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
    INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
    SELECT p.project_id, 'day', p.created_at / 86400000, CASE WHEN NEW.attributed AND NEW.link_id IS NOT NULL THEN NEW.link_id ELSE '' END, 'payment', p.currency, sum(p.amount), count(*) FROM payments p
    WHERE p.install_id = NEW.id AND p.removed_at IS NULL GROUP BY 1, 2, 3, 4, 5, 6
    ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
END;

-- BEFORE: the install's events and payments are still there (the cascade deletes them after the
-- install row, when their own triggers can no longer find its link).
CREATE TRIGGER rollup_install_delete BEFORE DELETE ON installs BEGIN
    INSERT INTO rollup_project_hours (project_id, hour, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs)
    VALUES (OLD.project_id, OLD.created_at / 3600000, -1, -(OLD.attributed <> 0), -(OLD.attributed <> 0 AND OLD.matched_factors = '["apple_ads"]'), -(OLD.attributed <> 0 AND OLD.match_type = 'deterministic'), -(OLD.attributed <> 0 AND OLD.match_type = 'probabilistic'), -(OLD.attributed = 0))
    ON CONFLICT DO UPDATE SET installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs;
    INSERT INTO rollup_link_days (project_id, day, link_id, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs)
    VALUES (OLD.project_id, OLD.created_at / 86400000, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, -1, -(OLD.attributed <> 0), -(OLD.attributed <> 0 AND OLD.matched_factors = '["apple_ads"]'), -(OLD.attributed <> 0 AND OLD.match_type = 'deterministic'), -(OLD.attributed <> 0 AND OLD.match_type = 'probabilistic'), -(OLD.attributed = 0))
    ON CONFLICT DO UPDATE SET installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs;
    INSERT INTO rollup_project_hours (project_id, hour, events)
    SELECT e.project_id, e.received_at / 3600000, -count(*) AS n FROM events e WHERE e.install_id = OLD.id GROUP BY 1, 2
    ON CONFLICT DO UPDATE SET events = events + excluded.events;
    INSERT INTO rollup_link_days (project_id, day, link_id, events)
    SELECT e.project_id, e.received_at / 86400000, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, -count(*) AS n FROM events e WHERE e.install_id = OLD.id GROUP BY 1, 2
    ON CONFLICT DO UPDATE SET events = events + excluded.events;
    INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
    SELECT e.project_id, 'hour', e.received_at / 3600000, '', 'event', coalesce(e.currency, ''), -sum(e.revenue), -count(*) FROM events e
    WHERE e.install_id = OLD.id AND e.revenue IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6
    ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
    INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
    SELECT p.project_id, 'hour', p.created_at / 3600000, '', 'payment', p.currency, -sum(p.amount), -count(*) FROM payments p
    WHERE p.install_id = OLD.id AND p.removed_at IS NULL GROUP BY 1, 2, 3, 4, 5, 6
    ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
    INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
    SELECT e.project_id, 'day', e.received_at / 86400000, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 'event', coalesce(e.currency, ''), -sum(e.revenue), -count(*) FROM events e
    WHERE e.install_id = OLD.id AND e.revenue IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6
    ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
    INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
    SELECT p.project_id, 'day', p.created_at / 86400000, CASE WHEN OLD.attributed AND OLD.link_id IS NOT NULL THEN OLD.link_id ELSE '' END, 'payment', p.currency, -sum(p.amount), -count(*) FROM payments p
    WHERE p.install_id = OLD.id AND p.removed_at IS NULL GROUP BY 1, 2, 3, 4, 5, 6
    ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
END;

CREATE TRIGGER rollup_event_insert AFTER INSERT ON events BEGIN
    INSERT INTO rollup_project_hours (project_id, hour, events)
    VALUES (NEW.project_id, NEW.received_at / 3600000, 1)
    ON CONFLICT DO UPDATE SET events = events + excluded.events;
    INSERT INTO rollup_link_days (project_id, day, link_id, events)
    VALUES (NEW.project_id, NEW.received_at / 86400000, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 1)
    ON CONFLICT DO UPDATE SET events = events + excluded.events;
END;

CREATE TRIGGER rollup_event_revenue AFTER INSERT ON events WHEN NEW.revenue IS NOT NULL BEGIN
    INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
    VALUES (NEW.project_id, 'hour', NEW.received_at / 3600000, '', 'event', coalesce(NEW.currency, ''), NEW.revenue, 1)
    ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
    INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
    VALUES (NEW.project_id, 'day', NEW.received_at / 86400000, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 'event', coalesce(NEW.currency, ''), NEW.revenue, 1)
    ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
END;

-- Events deleted on their own (a user's erasure); those of a deleted install went with it above.
CREATE TRIGGER rollup_event_delete AFTER DELETE ON events WHEN EXISTS (SELECT 1 FROM installs WHERE id = OLD.install_id) BEGIN
    INSERT INTO rollup_project_hours (project_id, hour, events)
    VALUES (OLD.project_id, OLD.received_at / 3600000, -1)
    ON CONFLICT DO UPDATE SET events = events + excluded.events;
    INSERT INTO rollup_link_days (project_id, day, link_id, events)
    VALUES (OLD.project_id, OLD.received_at / 86400000, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = OLD.install_id), ''), -1)
    ON CONFLICT DO UPDATE SET events = events + excluded.events;
    INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
    SELECT OLD.project_id, 'hour', OLD.received_at / 3600000, '', 'event', coalesce(OLD.currency, ''), -OLD.revenue, -1 WHERE OLD.revenue IS NOT NULL
    ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
    INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
    SELECT OLD.project_id, 'day', OLD.received_at / 86400000, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = OLD.install_id), ''), 'event', coalesce(OLD.currency, ''), -OLD.revenue, -1 WHERE OLD.revenue IS NOT NULL
    ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
END;

CREATE TRIGGER rollup_payment_insert AFTER INSERT ON payments WHEN NEW.removed_at IS NULL BEGIN
    INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
    VALUES (NEW.project_id, 'hour', NEW.created_at / 3600000, '', 'payment', NEW.currency, NEW.amount, 1)
    ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
    INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
    VALUES (NEW.project_id, 'day', NEW.created_at / 86400000, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 'payment', NEW.currency, NEW.amount, 1)
    ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
END;

CREATE TRIGGER rollup_payment_removed AFTER UPDATE OF removed_at ON payments WHEN OLD.removed_at IS NULL AND NEW.removed_at IS NOT NULL BEGIN
    INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
    VALUES (NEW.project_id, 'hour', NEW.created_at / 3600000, '', 'payment', NEW.currency, -NEW.amount, -1)
    ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
    INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
    VALUES (NEW.project_id, 'day', NEW.created_at / 86400000, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = NEW.install_id), ''), 'payment', NEW.currency, -NEW.amount, -1)
    ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
END;

CREATE TRIGGER rollup_payment_delete AFTER DELETE ON payments
WHEN OLD.removed_at IS NULL AND EXISTS (SELECT 1 FROM installs WHERE id = OLD.install_id) BEGIN
    INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
    VALUES (OLD.project_id, 'hour', OLD.created_at / 3600000, '', 'payment', OLD.currency, -OLD.amount, -1)
    ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
    INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
    VALUES (OLD.project_id, 'day', OLD.created_at / 86400000, coalesce((SELECT CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END FROM installs i WHERE i.id = OLD.install_id), ''), 'payment', OLD.currency, -OLD.amount, -1)
    ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
END;

-- What the database already holds.
INSERT INTO rollup_project_hours (project_id, hour, clicks, bot_clicks)
SELECT project_id, created_at / 3600000, sum(is_bot = 0), sum(is_bot <> 0) FROM clicks GROUP BY 1, 2;
INSERT INTO rollup_link_days (project_id, day, link_id, clicks, bot_clicks)
SELECT project_id, created_at / 86400000, coalesce(link_id, ''), sum(is_bot = 0), sum(is_bot <> 0) FROM clicks GROUP BY 1, 2, 3;
INSERT INTO rollup_project_hours (project_id, hour, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs)
SELECT i.project_id, i.created_at / 3600000, count(*), sum((i.attributed <> 0)), sum((i.attributed <> 0 AND i.matched_factors = '["apple_ads"]')), sum((i.attributed <> 0 AND i.match_type = 'deterministic')), sum((i.attributed <> 0 AND i.match_type = 'probabilistic')), sum((i.attributed = 0)) FROM installs i WHERE true GROUP BY 1, 2
ON CONFLICT DO UPDATE SET installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs;
INSERT INTO rollup_link_days (project_id, day, link_id, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs)
SELECT i.project_id, i.created_at / 86400000, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, count(*), sum((i.attributed <> 0)), sum((i.attributed <> 0 AND i.matched_factors = '["apple_ads"]')), sum((i.attributed <> 0 AND i.match_type = 'deterministic')), sum((i.attributed <> 0 AND i.match_type = 'probabilistic')), sum((i.attributed = 0)) FROM installs i WHERE true GROUP BY 1, 2, 3
ON CONFLICT DO UPDATE SET installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs;
INSERT INTO rollup_project_hours (project_id, hour, events)
SELECT e.project_id, e.received_at / 3600000, count(*) FROM events e JOIN installs i ON i.id = e.install_id WHERE true GROUP BY 1, 2
ON CONFLICT DO UPDATE SET events = events + excluded.events;
INSERT INTO rollup_link_days (project_id, day, link_id, events)
SELECT e.project_id, e.received_at / 86400000, coalesce(CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, ''), count(*) FROM events e JOIN installs i ON i.id = e.install_id WHERE true GROUP BY 1, 2, 3
ON CONFLICT DO UPDATE SET events = events + excluded.events;
INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
SELECT e.project_id, 'hour', e.received_at / 3600000, '', 'event', coalesce(e.currency, ''), sum(e.revenue), count(*)
FROM events e JOIN installs i ON i.id = e.install_id WHERE e.revenue IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6;
INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
SELECT p.project_id, 'hour', p.created_at / 3600000, '', 'payment', p.currency, sum(p.amount), count(*)
FROM payments p JOIN installs i ON i.id = p.install_id WHERE p.removed_at IS NULL GROUP BY 1, 2, 3, 4, 5, 6;
INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
SELECT e.project_id, 'day', e.received_at / 86400000, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, 'event', coalesce(e.currency, ''), sum(e.revenue), count(*)
FROM events e JOIN installs i ON i.id = e.install_id WHERE e.revenue IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6;
INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
SELECT p.project_id, 'day', p.created_at / 86400000, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, 'payment', p.currency, sum(p.amount), count(*)
FROM payments p JOIN installs i ON i.id = p.install_id WHERE p.removed_at IS NULL GROUP BY 1, 2, 3, 4, 5, 6;
