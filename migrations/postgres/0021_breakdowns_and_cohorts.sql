-- SQLite's migration 0039: breakdowns (clicks and installs by platform, OS, country and referring
-- site; events by name, first-time installs and revenue) and cohorts (events, revenue and active
-- installs by day after install) as more dimensions of rollup_tallies, the same rows from the
-- same facts; see 0039 for what each dimension holds. The deltas go to rollup_tally_deltas and
-- rollup_fold adds them up, as 0003's do.

-- ReferrerHost.swift step by step (ASCII lower case, after '://', before '/', '?', '#', after the
-- last '@', before ':', without 'www.'), so that both backends group a referrer alike. One SQL
-- expression, which the planner inlines into the click trigger's statement.
CREATE FUNCTION referrer_host(r TEXT) RETURNS TEXT IMMUTABLE LANGUAGE sql AS $$
    SELECT coalesce(regexp_replace(split_part(regexp_replace(split_part(split_part(split_part(
        CASE WHEN strpos(translate(r, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), '://') > 0 THEN substr(translate(r, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), strpos(translate(r, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), '://') + 3) ELSE translate(r, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') END,
        '/', 1), '?', 1), '#', 1), '^.*@', ''), ':', 1), '^www\.', ''), '')
$$;

CREATE FUNCTION breakdown_os(platform TEXT, version TEXT) RETURNS TEXT IMMUTABLE LANGUAGE sql AS $$
    SELECT coalesce(platform, '') || CASE WHEN coalesce(version, '') = '' THEN '' ELSE ' ' || split_part(version, '.', 1) END
$$;

-- Days 0 and 1, then 2-3, 4-7, 8-14 and 15-30, named by their last day.
CREATE FUNCTION cohort_bucket(n BIGINT) RETURNS TEXT IMMUTABLE LANGUAGE sql AS $$
    SELECT CAST(CASE WHEN n <= 1 THEN n WHEN n <= 3 THEN 3 WHEN n <= 7 THEN 7 WHEN n <= 14 THEN 14 ELSE 30 END AS TEXT)
$$;

-- Millionths, rounded half away from zero as SQLite's round() is.
CREATE FUNCTION revenue_micros(r DOUBLE PRECISION) RETURNS BIGINT IMMUTABLE LANGUAGE sql AS $$
    SELECT round((r * 1000000)::numeric)::bigint
$$;

CREATE FUNCTION breakdown_clicks_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF rollup_paused() THEN RETURN NULL; END IF;
    INSERT INTO rollup_tally_deltas (project_id, at, dimension, value, installs)
    SELECT c.project_id, c.created_at / 3600000 * 3600000, d.dimension, d.value, count(*)
    FROM inserted c CROSS JOIN LATERAL (VALUES ('click_platform', coalesce(c.platform, '')), ('click_os', breakdown_os(c.platform, c.os_version)),
        ('click_country', coalesce(c.country, '')), ('click_referrer', referrer_host(c.referer))) d(dimension, value)
    WHERE NOT c.is_bot GROUP BY 1, 2, 3, 4;
    RETURN NULL;
END $$;
CREATE TRIGGER breakdown_clicks_inserted AFTER INSERT ON clicks REFERENCING NEW TABLE AS inserted
FOR EACH STATEMENT EXECUTE FUNCTION breakdown_clicks_inserted();

-- An install's own dimensions, counted (s = 1) or taken back.
CREATE FUNCTION breakdown_install(i installs, s BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO rollup_tally_deltas (project_id, at, dimension, value, installs)
    VALUES (i.project_id, i.created_at, 'install_platform', coalesce(i.platform, ''), s),
           (i.project_id, i.created_at, 'install_os', breakdown_os(i.platform, i.os_version), s),
           (i.project_id, i.created_at, 'install_country', coalesce(i.country, ''), s);
    INSERT INTO rollup_tally_deltas (project_id, at, dimension, value, installs)
    SELECT i.project_id, i.created_at, 'install_referrer', referrer_host(c.referer), s FROM clicks c WHERE c.click_id = i.click_id;
END $$;

CREATE FUNCTION breakdown_install_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF rollup_paused() OR OLD.is_test THEN RETURN OLD; END IF;
        -- BEFORE, like rollup_install_delete: the install's events are still there.
        PERFORM breakdown_install(OLD, -1);
        INSERT INTO rollup_tally_deltas (project_id, at, dimension, value, installs)
        SELECT e.project_id, coalesce(e.charted_at, e.received_at), 'event', e.name, -1 FROM events e WHERE e.install_id = OLD.id
        UNION ALL
        SELECT e.project_id, coalesce(e.charted_at, e.received_at), 'event_revenue', coalesce(e.currency, '') || ':' || e.name, -revenue_micros(e.revenue) FROM events e
        WHERE e.install_id = OLD.id AND e.revenue IS NOT NULL
        UNION ALL
        SELECT OLD.project_id, min(coalesce(e.charted_at, e.received_at)), 'event_installs', e.name, -1 FROM events e WHERE e.install_id = OLD.id GROUP BY e.name
        UNION ALL
        SELECT OLD.project_id, OLD.created_at, 'cohort_events', cohort_bucket(((coalesce(e.charted_at, e.received_at) - OLD.created_at) / 86400000)), -1 FROM events e
        WHERE e.install_id = OLD.id AND ((coalesce(e.charted_at, e.received_at) - OLD.created_at) / 86400000) BETWEEN 0 AND 30
        UNION ALL
        SELECT OLD.project_id, OLD.created_at, 'cohort_revenue', coalesce(e.currency, '') || ':' || cohort_bucket(((coalesce(e.charted_at, e.received_at) - OLD.created_at) / 86400000)), -revenue_micros(e.revenue)
        FROM events e WHERE e.install_id = OLD.id AND e.revenue IS NOT NULL AND ((coalesce(e.charted_at, e.received_at) - OLD.created_at) / 86400000) BETWEEN 0 AND 30
        UNION ALL
        SELECT DISTINCT OLD.project_id, OLD.created_at, 'cohort_active', CAST(((coalesce(e.charted_at, e.received_at) - OLD.created_at) / 86400000) AS TEXT), -1::bigint FROM events e
        WHERE e.install_id = OLD.id AND ((coalesce(e.charted_at, e.received_at) - OLD.created_at) / 86400000) IN (1, 3, 7, 14, 30);
        RETURN OLD;
    END IF;
    IF rollup_paused() OR NEW.is_test THEN RETURN NULL; END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO rollup_tally_deltas (project_id, at, dimension, value, installs)
        VALUES (NEW.project_id, NEW.created_at, 'install_platform', coalesce(NEW.platform, ''), 1),
               (NEW.project_id, NEW.created_at, 'install_os', breakdown_os(NEW.platform, NEW.os_version), 1),
               (NEW.project_id, NEW.created_at, 'install_country', coalesce(NEW.country, ''), 1);
        IF NEW.click_id IS NOT NULL THEN
            INSERT INTO rollup_tally_deltas (project_id, at, dimension, value, installs)
            SELECT NEW.project_id, NEW.created_at, 'install_referrer', referrer_host(c.referer), 1 FROM clicks c WHERE c.click_id = NEW.click_id;
        END IF;
    ELSE  -- Apple Ads taking the install over clears its click: its referrer goes with it.
        INSERT INTO rollup_tally_deltas (project_id, at, dimension, value, installs)
        SELECT OLD.project_id, OLD.created_at, 'install_referrer', referrer_host(c.referer), -1 FROM clicks c WHERE c.click_id = OLD.click_id
        UNION ALL
        SELECT NEW.project_id, NEW.created_at, 'install_referrer', referrer_host(c.referer), 1 FROM clicks c WHERE c.click_id = NEW.click_id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER breakdown_install_insert AFTER INSERT ON installs FOR EACH ROW EXECUTE FUNCTION breakdown_install_change();
CREATE TRIGGER breakdown_install_click AFTER UPDATE OF click_id ON installs
FOR EACH ROW WHEN (OLD.click_id IS DISTINCT FROM NEW.click_id) EXECUTE FUNCTION breakdown_install_change();
CREATE TRIGGER breakdown_install_delete BEFORE DELETE ON installs FOR EACH ROW EXECUTE FUNCTION breakdown_install_change();

-- "The first of its name" and "another event on that day" read this index alone (PostgreSQL: with
-- the id beside it), one seek each, where a scan of the install's events grew with each event.
CREATE INDEX events_by_install_name ON events(install_id, name, charted_at) INCLUDE (id);

-- "First of its name" and "active on day N" look at the install's other events: the install's
-- events take turns here (an advisory lock for the transaction, no row written), so two nodes
-- storing events of one install at once cannot both count the first.
CREATE FUNCTION breakdown_event_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    e events := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    i installs;
    v_at BIGINT;
    v_n BIGINT;
BEGIN
    IF rollup_paused() THEN RETURN NULL; END IF;
    SELECT * INTO i FROM installs WHERE id = e.install_id;
    IF NOT FOUND OR i.is_test THEN RETURN NULL; END IF;  -- a deleted one went with its install (counted there)
    PERFORM pg_advisory_xact_lock(2039, hashtext(e.install_id));
    v_at := coalesce(e.charted_at, e.received_at);
    v_n := (v_at - i.created_at) / 86400000;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO rollup_tally_deltas (project_id, at, dimension, value, installs)
        SELECT e.project_id, v_at, 'event', e.name, 1
        UNION ALL
        SELECT e.project_id, v_at, 'event_installs', e.name, 1
        WHERE NOT EXISTS (SELECT 1 FROM events o WHERE o.install_id = e.install_id AND o.name = e.name AND o.charted_at <= v_at AND o.id <> e.id)
        UNION ALL
        SELECT e.project_id, earliest.at, 'event_installs', e.name, -1 FROM (
            SELECT o.charted_at AS at FROM events o WHERE o.install_id = e.install_id AND o.name = e.name AND o.id <> e.id ORDER BY o.charted_at LIMIT 1
        ) earliest WHERE earliest.at > v_at
        UNION ALL
        SELECT e.project_id, v_at, 'event_revenue', coalesce(e.currency, '') || ':' || e.name, revenue_micros(e.revenue) WHERE e.revenue IS NOT NULL
        UNION ALL
        SELECT e.project_id, i.created_at, 'cohort_events', cohort_bucket(v_n), 1 WHERE v_n BETWEEN 0 AND 30
        UNION ALL
        SELECT e.project_id, i.created_at, 'cohort_revenue', coalesce(e.currency, '') || ':' || cohort_bucket(v_n), revenue_micros(e.revenue)
        WHERE e.revenue IS NOT NULL AND v_n BETWEEN 0 AND 30
        UNION ALL
        SELECT e.project_id, i.created_at, 'cohort_active', CAST(v_n AS TEXT), 1 WHERE v_n IN (1, 3, 7, 14, 30)
            AND NOT EXISTS (SELECT 1 FROM events o WHERE o.install_id = e.install_id AND o.id <> e.id
                AND o.charted_at >= i.created_at + v_n * 86400000 AND o.charted_at < i.created_at + (v_n + 1) * 86400000);
    ELSE  -- removed on its own (a user's events erased)
        INSERT INTO rollup_tally_deltas (project_id, at, dimension, value, installs)
        SELECT e.project_id, v_at, 'event', e.name, -1
        UNION ALL
        SELECT e.project_id, v_at, 'event_revenue', coalesce(e.currency, '') || ':' || e.name, -revenue_micros(e.revenue) WHERE e.revenue IS NOT NULL
        UNION ALL
        SELECT e.project_id, v_at, 'event_installs', e.name, -1 WHERE NOT EXISTS (SELECT 1 FROM events o WHERE o.install_id = e.install_id AND o.name = e.name AND o.charted_at < v_at)
        UNION ALL
        SELECT e.project_id, earliest.at, 'event_installs', e.name, 1 FROM (
            SELECT o.charted_at AS at FROM events o WHERE o.install_id = e.install_id AND o.name = e.name ORDER BY o.charted_at LIMIT 1
        ) earliest WHERE NOT EXISTS (SELECT 1 FROM events o WHERE o.install_id = e.install_id AND o.name = e.name AND o.charted_at < v_at)
        UNION ALL
        SELECT e.project_id, i.created_at, 'cohort_events', cohort_bucket(v_n), -1 WHERE v_n BETWEEN 0 AND 30
        UNION ALL
        SELECT e.project_id, i.created_at, 'cohort_revenue', coalesce(e.currency, '') || ':' || cohort_bucket(v_n), -revenue_micros(e.revenue)
        WHERE e.revenue IS NOT NULL AND v_n BETWEEN 0 AND 30
        UNION ALL
        SELECT e.project_id, i.created_at, 'cohort_active', CAST(v_n AS TEXT), -1 WHERE v_n IN (1, 3, 7, 14, 30)
            AND NOT EXISTS (SELECT 1 FROM events o WHERE o.install_id = e.install_id
                AND o.charted_at >= i.created_at + v_n * 86400000 AND o.charted_at < i.created_at + (v_n + 1) * 86400000);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER breakdown_event_change AFTER INSERT OR DELETE ON events FOR EACH ROW EXECUTE FUNCTION breakdown_event_change();

-- What the database already holds.
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT c.project_id, 'click_platform', c.created_at / 3600000, coalesce(c.platform, ''), count(*) FROM clicks c WHERE NOT c.is_bot GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT c.project_id, 'click_os', c.created_at / 3600000, breakdown_os(c.platform, c.os_version), count(*) FROM clicks c WHERE NOT c.is_bot GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT c.project_id, 'click_country', c.created_at / 3600000, coalesce(c.country, ''), count(*) FROM clicks c WHERE NOT c.is_bot GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT c.project_id, 'click_referrer', c.created_at / 3600000, referrer_host(c.referer), count(*) FROM clicks c WHERE NOT c.is_bot GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT i.project_id, 'install_platform', i.created_at / 3600000, coalesce(i.platform, ''), count(*) FROM installs i WHERE NOT i.is_test GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT i.project_id, 'install_os', i.created_at / 3600000, breakdown_os(i.platform, i.os_version), count(*) FROM installs i WHERE NOT i.is_test GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT i.project_id, 'install_country', i.created_at / 3600000, coalesce(i.country, ''), count(*) FROM installs i WHERE NOT i.is_test GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT i.project_id, 'install_referrer', i.created_at / 3600000, referrer_host(c.referer), count(*) FROM installs i
JOIN clicks c ON c.click_id = i.click_id WHERE NOT i.is_test GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT e.project_id, 'event', coalesce(e.charted_at, e.received_at) / 3600000, e.name, count(*) FROM events e JOIN installs i ON i.id = e.install_id WHERE NOT i.is_test GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT e.project_id, 'event_revenue', coalesce(e.charted_at, e.received_at) / 3600000, coalesce(e.currency, '') || ':' || e.name, sum(revenue_micros(e.revenue))
FROM events e JOIN installs i ON i.id = e.install_id WHERE NOT i.is_test AND e.revenue IS NOT NULL GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT project_id, 'event_installs', first / 3600000, name, count(*) FROM (
    SELECT e.project_id, e.name, min(coalesce(e.charted_at, e.received_at)) AS first FROM events e JOIN installs i ON i.id = e.install_id WHERE NOT i.is_test GROUP BY e.project_id, e.install_id, e.name
) firsts GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT i.project_id, 'cohort_events', i.created_at / 3600000, cohort_bucket(((coalesce(e.charted_at, e.received_at) - i.created_at) / 86400000)), count(*)
FROM events e JOIN installs i ON i.id = e.install_id WHERE NOT i.is_test AND ((coalesce(e.charted_at, e.received_at) - i.created_at) / 86400000) BETWEEN 0 AND 30 GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT i.project_id, 'cohort_revenue', i.created_at / 3600000, coalesce(e.currency, '') || ':' || cohort_bucket(((coalesce(e.charted_at, e.received_at) - i.created_at) / 86400000)), sum(revenue_micros(e.revenue))
FROM events e JOIN installs i ON i.id = e.install_id WHERE NOT i.is_test AND e.revenue IS NOT NULL AND ((coalesce(e.charted_at, e.received_at) - i.created_at) / 86400000) BETWEEN 0 AND 30 GROUP BY 1, 2, 3, 4;
INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
SELECT project_id, 'cohort_active', hour, CAST(day AS TEXT), count(*) FROM (
    SELECT DISTINCT i.project_id, i.created_at / 3600000 AS hour, e.install_id, ((coalesce(e.charted_at, e.received_at) - i.created_at) / 86400000) AS day
    FROM events e JOIN installs i ON i.id = e.install_id WHERE NOT i.is_test AND ((coalesce(e.charted_at, e.received_at) - i.created_at) / 86400000) IN (1, 3, 7, 14, 30)
) active GROUP BY 1, 2, 3, 4;
