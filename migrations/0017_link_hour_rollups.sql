-- Per link and hour, beside per link and day (0015): a range that does not start and end on UTC
-- midnights — the last 24 hours, days in a project's own time zone — takes its whole days from
-- rollup_link_days and the hours at either end from here, instead of counting a day of clicks
-- (docs/dashboard.md, "Fast at scale"). The triggers of 0015 are unchanged: the writer's collector
-- adds each delta to both tables (RollupDeltas.swift). Money per link and hour has its own table
-- (rollup_money's scope check allows 'hour' and 'day' only, and a check cannot be altered).

CREATE TABLE rollup_link_hours (
    project_id TEXT NOT NULL,
    hour INTEGER NOT NULL,
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
    PRIMARY KEY (project_id, hour, link_id)
) WITHOUT ROWID;

CREATE TABLE rollup_link_hour_money (
    project_id TEXT NOT NULL,
    hour INTEGER NOT NULL,
    link_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('payment', 'event')),
    currency TEXT NOT NULL,
    amount REAL NOT NULL,
    entries INTEGER NOT NULL,
    PRIMARY KEY (project_id, hour, link_id, kind, currency)
) WITHOUT ROWID;

-- A deleted link's clicks move to '' hour by hour now, so that both tables move alike (the
-- collector adds a move to the day and to the hour it names).
DROP TRIGGER rollup_link_delete;
CREATE TRIGGER rollup_link_delete AFTER DELETE ON links BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT project_id, hour * 3600000, '', 0, clicks, bot_clicks, 0, 0, 0, 0, 0, 0, 0, 0, 0 FROM rollup_link_hours
    WHERE project_id = OLD.project_id AND link_id = OLD.id AND (clicks <> 0 OR bot_clicks <> 0) AND NOT rollup_count(project_id, hour * 3600000, '', 0, clicks, bot_clicks, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    DELETE FROM rollup_link_days WHERE project_id = OLD.project_id AND link_id = OLD.id;
    DELETE FROM rollup_link_hours WHERE project_id = OLD.project_id AND link_id = OLD.id;
    DELETE FROM rollup_money WHERE project_id = OLD.project_id AND scope = 'day' AND link_id = OLD.id;
    DELETE FROM rollup_link_hour_money WHERE project_id = OLD.project_id AND link_id = OLD.id;
END;

-- What the database already holds, from its rows. Clicks that retention deleted before this
-- migration stay counted in the days and are missing from these hours (docs/dashboard.md).
INSERT INTO rollup_link_hours (project_id, hour, link_id, clicks, bot_clicks)
SELECT project_id, created_at / 3600000, coalesce(link_id, ''), sum(is_bot = 0), sum(is_bot <> 0) FROM clicks WHERE true GROUP BY 1, 2, 3
ON CONFLICT DO UPDATE SET clicks = clicks + excluded.clicks, bot_clicks = bot_clicks + excluded.bot_clicks;
INSERT INTO rollup_link_hours (project_id, hour, link_id, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, signups, paying_installs)
SELECT i.project_id, i.created_at / 3600000, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, count(*), sum(i.attributed <> 0), sum(i.attributed <> 0 AND i.matched_factors = '["apple_ads"]'), sum(i.attributed <> 0 AND i.match_type = 'deterministic'), sum(i.attributed <> 0 AND i.match_type = 'probabilistic'), sum(i.attributed = 0), sum(i.user_id IS NOT NULL), sum(EXISTS (SELECT 1 FROM payments p WHERE p.install_id = i.id AND p.removed_at IS NULL))
FROM installs i WHERE true GROUP BY 1, 2, 3
ON CONFLICT DO UPDATE SET installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs, signups = signups + excluded.signups, paying_installs = paying_installs + excluded.paying_installs;
INSERT INTO rollup_link_hours (project_id, hour, link_id, events)
SELECT e.project_id, e.received_at / 3600000, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, count(*)
FROM events e JOIN installs i ON i.id = e.install_id WHERE true GROUP BY 1, 2, 3
ON CONFLICT DO UPDATE SET events = events + excluded.events;
INSERT INTO rollup_link_hour_money (project_id, hour, link_id, kind, currency, amount, entries)
SELECT e.project_id, e.received_at / 3600000, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, 'event', coalesce(e.currency, ''), sum(e.revenue), count(*)
FROM events e JOIN installs i ON i.id = e.install_id WHERE e.revenue IS NOT NULL GROUP BY 1, 2, 3, 4, 5
ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
INSERT INTO rollup_link_hour_money (project_id, hour, link_id, kind, currency, amount, entries)
SELECT p.project_id, p.created_at / 3600000, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END, 'payment', p.currency, sum(p.amount), count(*)
FROM payments p JOIN installs i ON i.id = p.install_id WHERE p.removed_at IS NULL GROUP BY 1, 2, 3, 4, 5
ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
