-- Counting leaves the database: every rule of what a fact adds to the rollups is Swift
-- (Sources/Counting), applied by the writer to what it writes (docs/storage.md, "Counting").
-- The triggers that counted go, and with them the pending tables where a connection without
-- the writer's collector left its deltas; what they hold is added up first, as the writer did at
-- its start. A row changed by hand (sqlite3) is counted by `attributiond rollups rebuild`.

INSERT INTO rollup_link_days (project_id, day, link_id, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
SELECT project_id, at / 86400000, link_id, sum(clicks), sum(bot_clicks), sum(installs), sum(attributed_installs), sum(apple_ads_installs), sum(deterministic_installs), sum(probabilistic_installs), sum(organic_installs), sum(events), sum(signups), sum(paying_installs) FROM rollup_pending WHERE at / 3600000 <= (SELECT through_hour FROM rollup_folded) GROUP BY 1, 2, 3
ON CONFLICT DO UPDATE SET clicks = clicks + excluded.clicks, bot_clicks = bot_clicks + excluded.bot_clicks, installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs, events = events + excluded.events, signups = signups + excluded.signups, paying_installs = paying_installs + excluded.paying_installs;

INSERT INTO rollup_project_hours (project_id, hour, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
SELECT project_id, at / 3600000, sum(clicks), sum(bot_clicks), sum(installs), sum(attributed_installs), sum(apple_ads_installs), sum(deterministic_installs), sum(probabilistic_installs), sum(organic_installs), sum(events), sum(signups), sum(paying_installs) FROM rollup_pending WHERE in_hours AND at / 3600000 <= (SELECT through_hour FROM rollup_folded) GROUP BY 1, 2
ON CONFLICT DO UPDATE SET clicks = clicks + excluded.clicks, bot_clicks = bot_clicks + excluded.bot_clicks, installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs, events = events + excluded.events, signups = signups + excluded.signups, paying_installs = paying_installs + excluded.paying_installs;

INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
SELECT project_id, 'day', at / 86400000, link_id, kind, currency, sum(amount), sum(entries) FROM rollup_pending_money
WHERE at / 3600000 <= (SELECT through_hour FROM rollup_folded) GROUP BY 1, 2, 3, 4, 5, 6 ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;

INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
SELECT project_id, 'hour', at / 3600000, '', kind, currency, sum(amount), sum(entries) FROM rollup_pending_money
WHERE in_hours AND at / 3600000 <= (SELECT through_hour FROM rollup_folded) GROUP BY 1, 2, 3, 4, 5, 6 ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;

INSERT INTO rollup_link_hours (project_id, hour, link_id, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
SELECT project_id, at / 3600000, link_id, sum(clicks), sum(bot_clicks), sum(installs), sum(attributed_installs), sum(apple_ads_installs), sum(deterministic_installs), sum(probabilistic_installs), sum(organic_installs), sum(events), sum(signups), sum(paying_installs) FROM rollup_pending WHERE true GROUP BY 1, 2, 3
ON CONFLICT DO UPDATE SET clicks = clicks + excluded.clicks, bot_clicks = bot_clicks + excluded.bot_clicks, installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs, events = events + excluded.events, signups = signups + excluded.signups, paying_installs = paying_installs + excluded.paying_installs;

INSERT INTO rollup_link_hour_money (project_id, hour, link_id, kind, currency, amount, entries)
SELECT project_id, at / 3600000, link_id, kind, currency, sum(amount), sum(entries) FROM rollup_pending_money WHERE true
GROUP BY 1, 2, 3, 4, 5 ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;

INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT project_id, dimension, at / 3600000, value, sum(installs) FROM rollup_pending_tallies WHERE true GROUP BY 1, 2, 3, 4
ON CONFLICT DO UPDATE SET installs = installs + excluded.installs;

DROP TRIGGER IF EXISTS rollup_click_insert;
DROP TRIGGER IF EXISTS breakdown_click_insert;
DROP TRIGGER IF EXISTS rollup_event_insert;
DROP TRIGGER IF EXISTS rollup_event_delete;
DROP TRIGGER IF EXISTS breakdown_event_insert;
DROP TRIGGER IF EXISTS breakdown_event_delete;
DROP TRIGGER IF EXISTS rollup_install_insert;
DROP TRIGGER IF EXISTS rollup_install_update;
DROP TRIGGER IF EXISTS rollup_install_delete;
DROP TRIGGER IF EXISTS rollup_install_signup;
DROP TRIGGER IF EXISTS tally_install_insert;
DROP TRIGGER IF EXISTS tally_install_update;
DROP TRIGGER IF EXISTS tally_install_delete;
DROP TRIGGER IF EXISTS breakdown_install_insert;
DROP TRIGGER IF EXISTS breakdown_install_click;
DROP TRIGGER IF EXISTS breakdown_install_delete;
DROP TRIGGER IF EXISTS rollup_link_delete;
DROP TRIGGER IF EXISTS rollup_payment_insert;
DROP TRIGGER IF EXISTS rollup_payment_removed;
DROP TRIGGER IF EXISTS rollup_payment_delete;
DROP TRIGGER IF EXISTS rollup_first_payment;
DROP TRIGGER IF EXISTS rollup_last_payment_removed;
DROP TRIGGER IF EXISTS rollup_last_payment_deleted;
DROP TRIGGER IF EXISTS tally_skan_insert;
DROP TRIGGER IF EXISTS tally_skan_update;
DROP TRIGGER IF EXISTS tally_skan_delete;

DROP TABLE rollup_pending;
DROP TABLE rollup_pending_money;
DROP TABLE rollup_pending_tallies;

-- Where retention pruned a project's clicks ('': every project not in test mode): a recount
-- keeps the rollups' click counts before it. A database that pruned before this table existed
-- is taken to have pruned up to its oldest stored click.
CREATE TABLE clicks_pruned (
    project_id TEXT PRIMARY KEY,
    pruned_before INTEGER NOT NULL
);
INSERT INTO clicks_pruned (project_id, pruned_before) SELECT project_id, min(created_at) FROM clicks GROUP BY project_id;

-- Paying installs now also count an install with an event with revenue (LinkForty's and
-- WarpLink's SDKs have no payment call): those without a payment not removed are added to the
-- rollups already stored. From here on `Counting.isPaying` decides.
CREATE TEMP TABLE newly_paying AS
SELECT i.project_id AS project_id, i.created_at AS at, CASE WHEN i.attributed AND i.link_id IS NOT NULL THEN i.link_id ELSE '' END AS link_id
    FROM installs i WHERE NOT i.is_test
        AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.install_id = i.id AND p.removed_at IS NULL)
        AND EXISTS (SELECT 1 FROM events e WHERE e.install_id = i.id AND e.revenue IS NOT NULL);
INSERT INTO rollup_link_hours (project_id, hour, link_id, paying_installs)
SELECT project_id, at / 3600000, link_id, count(*) FROM newly_paying GROUP BY 1, 2, 3
ON CONFLICT DO UPDATE SET paying_installs = paying_installs + excluded.paying_installs;
INSERT INTO rollup_link_days (project_id, day, link_id, paying_installs)
SELECT project_id, at / 86400000, link_id, count(*) FROM newly_paying WHERE at / 3600000 <= (SELECT through_hour FROM rollup_folded) GROUP BY 1, 2, 3
ON CONFLICT DO UPDATE SET paying_installs = paying_installs + excluded.paying_installs;
INSERT INTO rollup_project_hours (project_id, hour, paying_installs)
SELECT project_id, at / 3600000, count(*) FROM newly_paying WHERE at / 3600000 <= (SELECT through_hour FROM rollup_folded) GROUP BY 1, 2
ON CONFLICT DO UPDATE SET paying_installs = paying_installs + excluded.paying_installs;
DROP TABLE newly_paying;

-- "Has the install an event with revenue" (does it pay) is one seek: an entry per such event.
CREATE INDEX events_with_revenue ON events(install_id) WHERE revenue IS NOT NULL;
