-- Ad platforms (docs/ad-platforms/): each project's connection to Google Ads, Meta, TikTok and Snap,
-- the consent and ad signals an install brought, and the platforms' claims on installs.

CREATE TABLE ad_platform_connections (
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    -- google | meta | tiktok | snap
    platform TEXT NOT NULL,
    -- JSON objects of strings: what names the app at the platform, and the credentials (kept, not
    -- hashed: every delivery sends them; the API never shows them whole).
    settings TEXT NOT NULL DEFAULT '{}',
    secrets TEXT NOT NULL DEFAULT '{}',
    -- JSON object: our event name -> the platform's (null: never sent).
    event_mapping TEXT NOT NULL DEFAULT '{}',
    enabled INTEGER NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, platform)
);

CREATE TABLE ad_platform_claims (
    install_id TEXT NOT NULL REFERENCES installs (id) ON DELETE CASCADE,
    -- google_ads | meta_install_referrer
    source TEXT NOT NULL,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    campaign_id TEXT,
    campaign_name TEXT,
    ad_group_id TEXT,
    ad_group_name TEXT,
    ad_id TEXT,
    interaction TEXT,
    engaged_at INTEGER,
    ad_event_id TEXT,
    -- The platform's answer (Google) or the decrypted referrer (Meta), as it came.
    payload TEXT NOT NULL,
    won INTEGER NOT NULL DEFAULT 0,
    received_at INTEGER NOT NULL,
    PRIMARY KEY (install_id, source)
);

CREATE INDEX ad_platform_claims_by_project ON ad_platform_claims (project_id);

-- The last request an ad-platform job sent, credentials redacted (its payload is only the fact).
ALTER TABLE outbox_jobs ADD COLUMN last_request TEXT;

-- JSON objects (Consent, AdSignals); NULL: nothing told.
ALTER TABLE installs ADD COLUMN consent TEXT;
ALTER TABLE installs ADD COLUMN ad_signals TEXT;
-- What an install that told nothing is taken to have agreed to.
ALTER TABLE projects ADD COLUMN default_consent TEXT;

CREATE TRIGGER change_log_ad_platform_connections_insert AFTER INSERT ON ad_platform_connections BEGIN
    INSERT INTO change_log (table_name) VALUES ('ad_platform_connections');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;

CREATE TRIGGER change_log_ad_platform_connections_update AFTER UPDATE ON ad_platform_connections BEGIN
    INSERT INTO change_log (table_name) VALUES ('ad_platform_connections');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;

CREATE TRIGGER change_log_ad_platform_connections_delete AFTER DELETE ON ad_platform_connections BEGIN
    INSERT INTO change_log (table_name) VALUES ('ad_platform_connections');
    DELETE FROM change_log WHERE seq <= (SELECT max(seq) FROM change_log) - 256;
END;
