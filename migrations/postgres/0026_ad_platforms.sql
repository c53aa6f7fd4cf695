-- As SQLite's 0044: ad-platform connections, install consent and ad signals, platform claims.

CREATE TABLE ad_platform_connections (
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    platform TEXT NOT NULL,
    settings TEXT NOT NULL DEFAULT '{}',
    secrets TEXT NOT NULL DEFAULT '{}',
    event_mapping TEXT NOT NULL DEFAULT '{}',
    enabled BOOLEAN NOT NULL DEFAULT true,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (project_id, platform)
);

CREATE TABLE ad_platform_claims (
    install_id TEXT NOT NULL REFERENCES installs (id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    campaign_id TEXT,
    campaign_name TEXT,
    ad_group_id TEXT,
    ad_group_name TEXT,
    ad_id TEXT,
    interaction TEXT,
    engaged_at BIGINT,
    ad_event_id TEXT,
    payload TEXT NOT NULL,
    won BOOLEAN NOT NULL DEFAULT false,
    received_at BIGINT NOT NULL,
    PRIMARY KEY (install_id, source)
);

CREATE INDEX ad_platform_claims_by_project ON ad_platform_claims (project_id);

-- The last request an ad-platform job sent, credentials redacted (its payload is only the fact).
ALTER TABLE outbox_jobs ADD COLUMN last_request TEXT;

ALTER TABLE installs ADD COLUMN consent TEXT;
ALTER TABLE installs ADD COLUMN ad_signals TEXT;
ALTER TABLE projects ADD COLUMN default_consent TEXT;

CREATE TRIGGER ad_platform_connections_changed AFTER INSERT OR UPDATE OR DELETE ON ad_platform_connections
    FOR EACH STATEMENT EXECUTE FUNCTION attributiond_notify_change();
