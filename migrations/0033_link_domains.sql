-- Links get the project domain they live on, and short codes become unique per domain (FDL
-- imports bring the same code on several domains). SQLite cannot drop the column's UNIQUE: the
-- table is rebuilt (migrations run with foreign keys off and are checked before commit), with its
-- indexes and triggers as they stood.
CREATE TABLE links_with_domains (
    id                       TEXT PRIMARY KEY,
    project_id               TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    template_id              TEXT REFERENCES templates(id) ON DELETE SET NULL,
    short_code               TEXT NOT NULL,
    title                    TEXT,
    description              TEXT,
    original_url             TEXT,
    ios_url                  TEXT,
    android_url              TEXT,
    web_url                  TEXT,
    app_scheme               TEXT,
    deep_link_path           TEXT,
    deep_link_parameters     TEXT NOT NULL DEFAULT '{}',
    utm_source               TEXT,
    utm_medium               TEXT,
    utm_campaign             TEXT,
    utm_term                 TEXT,
    utm_content              TEXT,
    targeting                TEXT,
    og_title                 TEXT,
    og_description           TEXT,
    og_image                 TEXT,
    attribution_window_hours INTEGER CHECK (attribution_window_hours BETWEEN 1 AND 2160),
    append_click_id          INTEGER NOT NULL DEFAULT 0,
    expires_at               INTEGER,
    max_clicks               INTEGER,
    click_count              INTEGER NOT NULL DEFAULT 0,
    active                   INTEGER NOT NULL DEFAULT 1,
    external_user_id         TEXT,
    options_hash             TEXT,                       -- deduplication of SDK-created links
    created_at               INTEGER NOT NULL,
    updated_at               INTEGER NOT NULL,
    -- The project domain the link lives on ('' for none: served on any other Host).
    domain                   TEXT NOT NULL DEFAULT ''
);
INSERT INTO links_with_domains (id, project_id, template_id, short_code, title, description, original_url, ios_url, android_url, web_url, app_scheme, deep_link_path, deep_link_parameters, utm_source, utm_medium, utm_campaign, utm_term, utm_content, targeting, og_title, og_description, og_image, attribution_window_hours, append_click_id, expires_at, max_clicks, click_count, active, external_user_id, options_hash, created_at, updated_at) SELECT id, project_id, template_id, short_code, title, description, original_url, ios_url, android_url, web_url, app_scheme, deep_link_path, deep_link_parameters, utm_source, utm_medium, utm_campaign, utm_term, utm_content, targeting, og_title, og_description, og_image, attribution_window_hours, append_click_id, expires_at, max_clicks, click_count, active, external_user_id, options_hash, created_at, updated_at FROM links;
DROP TABLE links;
ALTER TABLE links_with_domains RENAME TO links;
CREATE UNIQUE INDEX links_by_domain_code ON links (domain, short_code);
CREATE INDEX links_by_project ON links(project_id, created_at);
CREATE INDEX links_by_external_user ON links(project_id, external_user_id, options_hash) WHERE external_user_id IS NOT NULL;
CREATE INDEX links_by_template ON links(template_id) WHERE template_id IS NOT NULL;
CREATE TRIGGER rollup_link_delete AFTER DELETE ON links BEGIN
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT project_id, hour * 3600000, OLD.id, 0, -clicks, -bot_clicks, 0, 0, 0, 0, 0, 0, 0, 0, 0 FROM rollup_link_hours
    WHERE project_id = OLD.project_id AND link_id = OLD.id AND (clicks <> 0 OR bot_clicks <> 0) AND NOT rollup_count(project_id, hour * 3600000, OLD.id, 0, -clicks, -bot_clicks, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    INSERT INTO rollup_pending (project_id, at, link_id, in_hours, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
    SELECT project_id, hour * 3600000, '', 0, clicks, bot_clicks, 0, 0, 0, 0, 0, 0, 0, 0, 0 FROM rollup_link_hours
    WHERE project_id = OLD.project_id AND link_id = OLD.id AND (clicks <> 0 OR bot_clicks <> 0) AND NOT rollup_count(project_id, hour * 3600000, '', 0, clicks, bot_clicks, 0, 0, 0, 0, 0, 0, 0, 0, 0);
END;
CREATE TRIGGER change_log_links_insert AFTER INSERT ON links BEGIN
    INSERT INTO change_log (table_name, link_code) VALUES ('links', new.short_code);
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;
CREATE TRIGGER change_log_links_update AFTER UPDATE ON links WHEN new.click_count IS old.click_count BEGIN
    INSERT INTO change_log (table_name, link_code) VALUES ('links', new.short_code);
    INSERT INTO change_log (table_name, link_code) VALUES ('links', old.short_code);
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;
CREATE TRIGGER change_log_links_delete AFTER DELETE ON links BEGIN
    INSERT INTO change_log (table_name, link_code) VALUES ('links', old.short_code);
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;
