-- Breakdowns and cohorts for the dashboard (docs/dashboard.md, "Breakdowns" and "Cohorts"), as
-- more dimensions of rollup_tallies (0018), whose `installs` column then holds the dimension's own
-- count: clicks by platform, OS and major version, country and referring site (bots left out);
-- installs by the same (the referring site of the click they were credited to); events by name,
-- the installs that did each for the first time, and their revenue in millionths of the event's
-- currency ('' is the project's) keyed `currency:name`; and cohorts, counted at the hour of the
-- install: events and revenue by the day after install they came on (days 0 and 1, then 2-3, 4-7,
-- 8-14 and 15-30, named by their last day), and the installs active on day 1, 3, 7, 14 and 30 (any
-- event in that 24-hour period since the install). Test installs count in none of them, as in 0031.
-- Counted like 0018's: the writer's collector takes each delta (`rollup_tally` answers 1), any
-- other connection leaves it in rollup_pending_tallies. PostgreSQL: postgres/0021, alike.
--
-- A click's referrer and an install's come from `referrer_host` (ReferrerHost.swift), registered
-- on every connection. Clicks deleted by retention stay counted; an install erased after its click
-- was deleted stays counted under its referrer (the site cannot be read again).

-- A click is handed to the writer's collector whole (rollup_click_tally, one call where four
-- tallies cost the click 21,000 instructions), which groups it as the SQL below does.
-- "The first of its name" and "another event on that day" read this index alone: one seek each,
-- where a scan of the install's events grew with every event it sent.
CREATE INDEX events_by_install_name ON events(install_id, name, charted_at);

CREATE TRIGGER breakdown_click_insert AFTER INSERT ON clicks
WHEN NOT NEW.is_bot AND NOT rollup_click_tally(NEW.project_id, NEW.created_at, NEW.platform, NEW.os_version, NEW.country, NEW.referer) BEGIN
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    VALUES (NEW.project_id, NEW.created_at, 'click_platform', coalesce(NEW.platform, ''), 1),
        (NEW.project_id, NEW.created_at, 'click_os', coalesce(NEW.platform, '') || CASE WHEN coalesce(NEW.os_version, '') = '' THEN '' ELSE ' ' || substr(NEW.os_version, 1, instr(NEW.os_version || '.', '.') - 1) END, 1),
        (NEW.project_id, NEW.created_at, 'click_country', coalesce(NEW.country, ''), 1),
        (NEW.project_id, NEW.created_at, 'click_referrer', referrer_host(NEW.referer), 1);
END;

CREATE TRIGGER breakdown_install_insert AFTER INSERT ON installs WHEN NOT NEW.is_test BEGIN
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT NEW.project_id, NEW.created_at, d.column1, d.column2, 1 FROM (VALUES ('install_platform', coalesce(NEW.platform, '')), ('install_os', coalesce(NEW.platform, '') || CASE WHEN coalesce(NEW.os_version, '') = '' THEN '' ELSE ' ' || substr(NEW.os_version, 1, instr(NEW.os_version || '.', '.') - 1) END), ('install_country', coalesce(NEW.country, ''))) d
    WHERE NOT rollup_tally(NEW.project_id, NEW.created_at, d.column1, d.column2, 1);
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT NEW.project_id, NEW.created_at, 'install_referrer', referrer_host(c.referer), 1 FROM clicks c
    WHERE c.click_id = NEW.click_id AND NOT rollup_tally(NEW.project_id, NEW.created_at, 'install_referrer', referrer_host(c.referer), 1);
END;

-- Apple Ads taking an install over clears its click: its referrer goes with it.
CREATE TRIGGER breakdown_install_click AFTER UPDATE OF click_id ON installs
WHEN OLD.click_id IS NOT NEW.click_id AND NOT NEW.is_test BEGIN
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT OLD.project_id, OLD.created_at, 'install_referrer', referrer_host(c.referer), -1 FROM clicks c
    WHERE c.click_id = OLD.click_id AND NOT rollup_tally(OLD.project_id, OLD.created_at, 'install_referrer', referrer_host(c.referer), -1);
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT NEW.project_id, NEW.created_at, 'install_referrer', referrer_host(c.referer), 1 FROM clicks c
    WHERE c.click_id = NEW.click_id AND NOT rollup_tally(NEW.project_id, NEW.created_at, 'install_referrer', referrer_host(c.referer), 1);
END;

-- On the writer, one call hands the event and what the trigger read of its install's other events to
-- the collector (rollup_event_tally, EventTallies.swift), which makes the rows the SQL below would.
CREATE TRIGGER breakdown_event_insert AFTER INSERT ON events
WHEN NOT coalesce((
    SELECT rollup_event_tally(NEW.project_id, coalesce(NEW.charted_at, NEW.received_at), NEW.name, NEW.currency, NEW.revenue, i.created_at,
        (SELECT e.charted_at FROM events e WHERE e.install_id = NEW.install_id AND e.name = NEW.name AND e.rowid <> NEW.rowid
            ORDER BY e.charted_at LIMIT 1),
        ((coalesce(NEW.charted_at, NEW.received_at) - i.created_at) / 86400000) IN (1, 3, 7, 14, 30) AND NOT EXISTS (SELECT 1 FROM events e WHERE e.install_id = NEW.install_id AND e.rowid <> NEW.rowid
            AND e.charted_at >= i.created_at + ((coalesce(NEW.charted_at, NEW.received_at) - i.created_at) / 86400000) * 86400000 AND e.charted_at < i.created_at + (((coalesce(NEW.charted_at, NEW.received_at) - i.created_at) / 86400000) + 1) * 86400000))
    FROM installs i WHERE i.id = NEW.install_id AND NOT i.is_test), 1) BEGIN
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT t.project_id, t.at, t.dimension, t.value, t.n FROM (
        SELECT NEW.project_id AS project_id, coalesce(NEW.charted_at, NEW.received_at) AS at, 'event' AS dimension, NEW.name AS value, 1 AS n
        FROM installs i WHERE i.id = NEW.install_id AND NOT i.is_test
        UNION ALL
        SELECT NEW.project_id, coalesce(NEW.charted_at, NEW.received_at), 'event_installs', NEW.name, 1 FROM installs i WHERE i.id = NEW.install_id AND NOT i.is_test
            AND NOT EXISTS (SELECT 1 FROM events e WHERE e.install_id = NEW.install_id AND e.name = NEW.name AND e.rowid <> NEW.rowid
                AND e.charted_at <= coalesce(NEW.charted_at, NEW.received_at))
        UNION ALL
        SELECT NEW.project_id, earliest.at, 'event_installs', NEW.name, -1 FROM installs i, (
            SELECT e.charted_at AS at FROM events e WHERE e.install_id = NEW.install_id AND e.name = NEW.name AND e.rowid <> NEW.rowid
            ORDER BY e.charted_at LIMIT 1
        ) earliest WHERE i.id = NEW.install_id AND NOT i.is_test AND earliest.at > coalesce(NEW.charted_at, NEW.received_at)
        UNION ALL
        SELECT NEW.project_id, coalesce(NEW.charted_at, NEW.received_at), 'event_revenue', coalesce(NEW.currency, '') || ':' || NEW.name, CAST(round(NEW.revenue * 1000000) AS INTEGER)
        FROM installs i WHERE i.id = NEW.install_id AND NOT i.is_test AND NEW.revenue IS NOT NULL
        UNION ALL
        SELECT NEW.project_id, i.created_at, 'cohort_events', CAST(CASE WHEN ((coalesce(NEW.charted_at, NEW.received_at) - i.created_at) / 86400000) <= 1 THEN ((coalesce(NEW.charted_at, NEW.received_at) - i.created_at) / 86400000) WHEN ((coalesce(NEW.charted_at, NEW.received_at) - i.created_at) / 86400000) <= 3 THEN 3 WHEN ((coalesce(NEW.charted_at, NEW.received_at) - i.created_at) / 86400000) <= 7 THEN 7 WHEN ((coalesce(NEW.charted_at, NEW.received_at) - i.created_at) / 86400000) <= 14 THEN 14 ELSE 30 END AS TEXT), 1
        FROM installs i WHERE i.id = NEW.install_id AND NOT i.is_test AND ((coalesce(NEW.charted_at, NEW.received_at) - i.created_at) / 86400000) BETWEEN 0 AND 30
        UNION ALL
        SELECT NEW.project_id, i.created_at, 'cohort_revenue', coalesce(NEW.currency, '') || ':' || CAST(CASE WHEN ((coalesce(NEW.charted_at, NEW.received_at) - i.created_at) / 86400000) <= 1 THEN ((coalesce(NEW.charted_at, NEW.received_at) - i.created_at) / 86400000) WHEN ((coalesce(NEW.charted_at, NEW.received_at) - i.created_at) / 86400000) <= 3 THEN 3 WHEN ((coalesce(NEW.charted_at, NEW.received_at) - i.created_at) / 86400000) <= 7 THEN 7 WHEN ((coalesce(NEW.charted_at, NEW.received_at) - i.created_at) / 86400000) <= 14 THEN 14 ELSE 30 END AS TEXT), CAST(round(NEW.revenue * 1000000) AS INTEGER)
        FROM installs i WHERE i.id = NEW.install_id AND NOT i.is_test AND NEW.revenue IS NOT NULL AND ((coalesce(NEW.charted_at, NEW.received_at) - i.created_at) / 86400000) BETWEEN 0 AND 30
        UNION ALL
        SELECT NEW.project_id, i.created_at, 'cohort_active', CAST(((coalesce(NEW.charted_at, NEW.received_at) - i.created_at) / 86400000) AS TEXT), 1
        FROM installs i WHERE i.id = NEW.install_id AND NOT i.is_test AND ((coalesce(NEW.charted_at, NEW.received_at) - i.created_at) / 86400000) IN (1, 3, 7, 14, 30)
            AND NOT EXISTS (SELECT 1 FROM events e WHERE e.install_id = NEW.install_id AND e.rowid <> NEW.rowid
                AND e.charted_at >= i.created_at + ((coalesce(NEW.charted_at, NEW.received_at) - i.created_at) / 86400000) * 86400000 AND e.charted_at < i.created_at + (((coalesce(NEW.charted_at, NEW.received_at) - i.created_at) / 86400000) + 1) * 86400000)
    ) t
    WHERE NOT rollup_tally(t.project_id, t.at, t.dimension, t.value, t.n);
END;

-- An event removed on its own (a user's events erased): the first of its name for the install moves
-- to the next one, and the day it was on stays active while another event is on it.
CREATE TRIGGER breakdown_event_delete AFTER DELETE ON events
WHEN EXISTS (SELECT 1 FROM installs WHERE id = OLD.install_id AND NOT is_test) BEGIN
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT t.project_id, t.at, t.dimension, t.value, t.n FROM (
        SELECT OLD.project_id AS project_id, coalesce(OLD.charted_at, OLD.received_at) AS at, 'event' AS dimension, OLD.name AS value, -1 AS n
        UNION ALL
        SELECT OLD.project_id, coalesce(OLD.charted_at, OLD.received_at), 'event_revenue', coalesce(OLD.currency, '') || ':' || OLD.name, -CAST(round(OLD.revenue * 1000000) AS INTEGER) WHERE OLD.revenue IS NOT NULL
        UNION ALL
        SELECT OLD.project_id, coalesce(OLD.charted_at, OLD.received_at), 'event_installs', OLD.name, -1 WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.install_id = OLD.install_id AND e.name = OLD.name AND e.charted_at < coalesce(OLD.charted_at, OLD.received_at))
        UNION ALL
        SELECT OLD.project_id, next.at, 'event_installs', OLD.name, 1 FROM (
            SELECT e.charted_at AS at FROM events e WHERE e.install_id = OLD.install_id AND e.name = OLD.name ORDER BY e.charted_at LIMIT 1
        ) next WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.install_id = OLD.install_id AND e.name = OLD.name AND e.charted_at < coalesce(OLD.charted_at, OLD.received_at))
        UNION ALL
        SELECT OLD.project_id, i.created_at, 'cohort_events', CAST(CASE WHEN ((coalesce(OLD.charted_at, OLD.received_at) - i.created_at) / 86400000) <= 1 THEN ((coalesce(OLD.charted_at, OLD.received_at) - i.created_at) / 86400000) WHEN ((coalesce(OLD.charted_at, OLD.received_at) - i.created_at) / 86400000) <= 3 THEN 3 WHEN ((coalesce(OLD.charted_at, OLD.received_at) - i.created_at) / 86400000) <= 7 THEN 7 WHEN ((coalesce(OLD.charted_at, OLD.received_at) - i.created_at) / 86400000) <= 14 THEN 14 ELSE 30 END AS TEXT), -1 FROM installs i WHERE i.id = OLD.install_id AND ((coalesce(OLD.charted_at, OLD.received_at) - i.created_at) / 86400000) BETWEEN 0 AND 30
        UNION ALL
        SELECT OLD.project_id, i.created_at, 'cohort_revenue', coalesce(OLD.currency, '') || ':' || CAST(CASE WHEN ((coalesce(OLD.charted_at, OLD.received_at) - i.created_at) / 86400000) <= 1 THEN ((coalesce(OLD.charted_at, OLD.received_at) - i.created_at) / 86400000) WHEN ((coalesce(OLD.charted_at, OLD.received_at) - i.created_at) / 86400000) <= 3 THEN 3 WHEN ((coalesce(OLD.charted_at, OLD.received_at) - i.created_at) / 86400000) <= 7 THEN 7 WHEN ((coalesce(OLD.charted_at, OLD.received_at) - i.created_at) / 86400000) <= 14 THEN 14 ELSE 30 END AS TEXT), -CAST(round(OLD.revenue * 1000000) AS INTEGER)
        FROM installs i WHERE i.id = OLD.install_id AND OLD.revenue IS NOT NULL AND ((coalesce(OLD.charted_at, OLD.received_at) - i.created_at) / 86400000) BETWEEN 0 AND 30
        UNION ALL
        SELECT OLD.project_id, i.created_at, 'cohort_active', CAST(((coalesce(OLD.charted_at, OLD.received_at) - i.created_at) / 86400000) AS TEXT), -1
        FROM installs i WHERE i.id = OLD.install_id AND ((coalesce(OLD.charted_at, OLD.received_at) - i.created_at) / 86400000) IN (1, 3, 7, 14, 30)
            AND NOT EXISTS (SELECT 1 FROM events e WHERE e.install_id = OLD.install_id
                AND e.charted_at >= i.created_at + ((coalesce(OLD.charted_at, OLD.received_at) - i.created_at) / 86400000) * 86400000 AND e.charted_at < i.created_at + (((coalesce(OLD.charted_at, OLD.received_at) - i.created_at) / 86400000) + 1) * 86400000)
    ) t
    WHERE NOT rollup_tally(t.project_id, t.at, t.dimension, t.value, t.n);
END;

-- BEFORE, like rollup_install_delete: the install's events are still there.
CREATE TRIGGER breakdown_install_delete BEFORE DELETE ON installs WHEN NOT OLD.is_test BEGIN
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT OLD.project_id, OLD.created_at, d.column1, d.column2, -1 FROM (VALUES ('install_platform', coalesce(OLD.platform, '')), ('install_os', coalesce(OLD.platform, '') || CASE WHEN coalesce(OLD.os_version, '') = '' THEN '' ELSE ' ' || substr(OLD.os_version, 1, instr(OLD.os_version || '.', '.') - 1) END), ('install_country', coalesce(OLD.country, ''))) d
    WHERE NOT rollup_tally(OLD.project_id, OLD.created_at, d.column1, d.column2, -1);
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT OLD.project_id, OLD.created_at, 'install_referrer', referrer_host(c.referer), -1 FROM clicks c
    WHERE c.click_id = OLD.click_id AND NOT rollup_tally(OLD.project_id, OLD.created_at, 'install_referrer', referrer_host(c.referer), -1);
    INSERT INTO rollup_pending_tallies (project_id, at, dimension, value, installs)
    SELECT t.project_id, t.at, t.dimension, t.value, t.n FROM (
        SELECT e.project_id AS project_id, coalesce(e.charted_at, e.received_at) AS at, 'event' AS dimension, e.name AS value, -1 AS n FROM events e WHERE e.install_id = OLD.id
        UNION ALL
        SELECT e.project_id, coalesce(e.charted_at, e.received_at), 'event_revenue', coalesce(e.currency, '') || ':' || e.name, -CAST(round(e.revenue * 1000000) AS INTEGER) FROM events e
        WHERE e.install_id = OLD.id AND e.revenue IS NOT NULL
        UNION ALL
        SELECT OLD.project_id, min(coalesce(e.charted_at, e.received_at)), 'event_installs', e.name, -1 FROM events e WHERE e.install_id = OLD.id GROUP BY e.name
        UNION ALL
        SELECT OLD.project_id, OLD.created_at, 'cohort_events', CAST(CASE WHEN ((coalesce(e.charted_at, e.received_at) - OLD.created_at) / 86400000) <= 1 THEN ((coalesce(e.charted_at, e.received_at) - OLD.created_at) / 86400000) WHEN ((coalesce(e.charted_at, e.received_at) - OLD.created_at) / 86400000) <= 3 THEN 3 WHEN ((coalesce(e.charted_at, e.received_at) - OLD.created_at) / 86400000) <= 7 THEN 7 WHEN ((coalesce(e.charted_at, e.received_at) - OLD.created_at) / 86400000) <= 14 THEN 14 ELSE 30 END AS TEXT), -1 FROM events e
        WHERE e.install_id = OLD.id AND ((coalesce(e.charted_at, e.received_at) - OLD.created_at) / 86400000) BETWEEN 0 AND 30
        UNION ALL
        SELECT OLD.project_id, OLD.created_at, 'cohort_revenue', coalesce(e.currency, '') || ':' || CAST(CASE WHEN ((coalesce(e.charted_at, e.received_at) - OLD.created_at) / 86400000) <= 1 THEN ((coalesce(e.charted_at, e.received_at) - OLD.created_at) / 86400000) WHEN ((coalesce(e.charted_at, e.received_at) - OLD.created_at) / 86400000) <= 3 THEN 3 WHEN ((coalesce(e.charted_at, e.received_at) - OLD.created_at) / 86400000) <= 7 THEN 7 WHEN ((coalesce(e.charted_at, e.received_at) - OLD.created_at) / 86400000) <= 14 THEN 14 ELSE 30 END AS TEXT), -CAST(round(e.revenue * 1000000) AS INTEGER) FROM events e
        WHERE e.install_id = OLD.id AND e.revenue IS NOT NULL AND ((coalesce(e.charted_at, e.received_at) - OLD.created_at) / 86400000) BETWEEN 0 AND 30
        UNION ALL
        SELECT DISTINCT OLD.project_id, OLD.created_at, 'cohort_active', CAST(((coalesce(e.charted_at, e.received_at) - OLD.created_at) / 86400000) AS TEXT), -1 FROM events e
        WHERE e.install_id = OLD.id AND ((coalesce(e.charted_at, e.received_at) - OLD.created_at) / 86400000) IN (1, 3, 7, 14, 30)
    ) t
    WHERE NOT rollup_tally(t.project_id, t.at, t.dimension, t.value, t.n);
END;

-- What the database already holds.
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT c.project_id, 'click_platform', c.created_at / 3600000, coalesce(c.platform, ''), count(*) FROM clicks c WHERE NOT c.is_bot GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT c.project_id, 'click_os', c.created_at / 3600000, coalesce(c.platform, '') || CASE WHEN coalesce(c.os_version, '') = '' THEN '' ELSE ' ' || substr(c.os_version, 1, instr(c.os_version || '.', '.') - 1) END, count(*) FROM clicks c WHERE NOT c.is_bot GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT c.project_id, 'click_country', c.created_at / 3600000, coalesce(c.country, ''), count(*) FROM clicks c WHERE NOT c.is_bot GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT c.project_id, 'click_referrer', c.created_at / 3600000, referrer_host(c.referer), count(*) FROM clicks c WHERE NOT c.is_bot GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT i.project_id, 'install_platform', i.created_at / 3600000, coalesce(i.platform, ''), count(*) FROM installs i WHERE NOT i.is_test GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT i.project_id, 'install_os', i.created_at / 3600000, coalesce(i.platform, '') || CASE WHEN coalesce(i.os_version, '') = '' THEN '' ELSE ' ' || substr(i.os_version, 1, instr(i.os_version || '.', '.') - 1) END, count(*) FROM installs i WHERE NOT i.is_test GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT i.project_id, 'install_country', i.created_at / 3600000, coalesce(i.country, ''), count(*) FROM installs i WHERE NOT i.is_test GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT i.project_id, 'install_referrer', i.created_at / 3600000, referrer_host(c.referer), count(*) FROM installs i
JOIN clicks c ON c.click_id = i.click_id WHERE NOT i.is_test GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT e.project_id, 'event', coalesce(e.charted_at, e.received_at) / 3600000, e.name, count(*) FROM events e JOIN installs i ON i.id = e.install_id WHERE NOT i.is_test GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT e.project_id, 'event_revenue', coalesce(e.charted_at, e.received_at) / 3600000, coalesce(e.currency, '') || ':' || e.name, sum(CAST(round(e.revenue * 1000000) AS INTEGER))
FROM events e JOIN installs i ON i.id = e.install_id WHERE NOT i.is_test AND e.revenue IS NOT NULL GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT project_id, 'event_installs', first / 3600000, name, count(*) FROM (
    SELECT e.project_id, e.name, min(coalesce(e.charted_at, e.received_at)) AS first FROM events e JOIN installs i ON i.id = e.install_id WHERE NOT i.is_test GROUP BY e.install_id, e.name
) GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT i.project_id, 'cohort_events', i.created_at / 3600000, CAST(CASE WHEN ((coalesce(e.charted_at, e.received_at) - i.created_at) / 86400000) <= 1 THEN ((coalesce(e.charted_at, e.received_at) - i.created_at) / 86400000) WHEN ((coalesce(e.charted_at, e.received_at) - i.created_at) / 86400000) <= 3 THEN 3 WHEN ((coalesce(e.charted_at, e.received_at) - i.created_at) / 86400000) <= 7 THEN 7 WHEN ((coalesce(e.charted_at, e.received_at) - i.created_at) / 86400000) <= 14 THEN 14 ELSE 30 END AS TEXT), count(*)
FROM events e JOIN installs i ON i.id = e.install_id WHERE NOT i.is_test AND ((coalesce(e.charted_at, e.received_at) - i.created_at) / 86400000) BETWEEN 0 AND 30 GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT i.project_id, 'cohort_revenue', i.created_at / 3600000, coalesce(e.currency, '') || ':' || CAST(CASE WHEN ((coalesce(e.charted_at, e.received_at) - i.created_at) / 86400000) <= 1 THEN ((coalesce(e.charted_at, e.received_at) - i.created_at) / 86400000) WHEN ((coalesce(e.charted_at, e.received_at) - i.created_at) / 86400000) <= 3 THEN 3 WHEN ((coalesce(e.charted_at, e.received_at) - i.created_at) / 86400000) <= 7 THEN 7 WHEN ((coalesce(e.charted_at, e.received_at) - i.created_at) / 86400000) <= 14 THEN 14 ELSE 30 END AS TEXT), sum(CAST(round(e.revenue * 1000000) AS INTEGER))
FROM events e JOIN installs i ON i.id = e.install_id WHERE NOT i.is_test AND e.revenue IS NOT NULL AND ((coalesce(e.charted_at, e.received_at) - i.created_at) / 86400000) BETWEEN 0 AND 30 GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT project_id, 'cohort_active', hour, CAST(day AS TEXT), count(*) FROM (
    SELECT DISTINCT i.project_id, i.created_at / 3600000 AS hour, e.install_id, ((coalesce(e.charted_at, e.received_at) - i.created_at) / 86400000) AS day
    FROM events e JOIN installs i ON i.id = e.install_id WHERE NOT i.is_test AND ((coalesce(e.charted_at, e.received_at) - i.created_at) / 86400000) IN (1, 3, 7, 14, 30)
) GROUP BY 1, 2, 3, 4;
