-- The raw export (docs/export.md): a project's destination, the hours written there (a version
-- per re-export, its manifest once complete), the files of the version under way (so a run
-- after a crash resumes where it stopped), the multipart uploads under way (aborted by that
-- run), and erasures as rows a warehouse can delete by.
CREATE TABLE export_settings (
    project_id        TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    destination       TEXT NOT NULL,
    endpoint          TEXT,
    region            TEXT NOT NULL,
    access_key_id     TEXT,
    secret_access_key TEXT,
    formats           TEXT NOT NULL,
    tables            TEXT NOT NULL,
    first_hour        BIGINT NOT NULL,
    enabled           BOOLEAN NOT NULL DEFAULT true,
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL,
    -- The node running this project's export, until when (several nodes on one database).
    claimed_by        TEXT,
    claimed_until     BIGINT
);

CREATE TABLE export_hours (
    project_id   TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    hour         BIGINT NOT NULL,
    version      BIGINT NOT NULL,
    manifest     TEXT,
    row_counts   TEXT,
    completed_at BIGINT,
    PRIMARY KEY (project_id, hour)
);

CREATE TABLE export_files (
    project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    hour       BIGINT NOT NULL,
    version    BIGINT NOT NULL,
    table_name TEXT NOT NULL,
    format     TEXT NOT NULL,
    path       TEXT NOT NULL,
    row_count  BIGINT NOT NULL,
    bytes      BIGINT NOT NULL,
    sha256     TEXT NOT NULL,
    PRIMARY KEY (project_id, hour, table_name, format)
);

CREATE TABLE export_uploads (
    project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    path       TEXT NOT NULL,
    upload_id  TEXT NOT NULL,
    PRIMARY KEY (project_id, path)
);

-- One row per erased install (kind 'install') and per erased user (kind 'user'): what a
-- warehouse deletes by. Kept 35 days (the export job deletes older ones).
CREATE TABLE erasures (
    id         TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    erased_at  BIGINT NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('install', 'user')),
    install_id TEXT,
    user_id    TEXT
);
CREATE INDEX erasures_by_time ON erasures (project_id, erased_at);

-- An hour of clicks, read in order. By time alone: led by project_id, SQLite's planner (no
-- statistics) took it for every lookup that names a project, the matching cascade's among them.
CREATE INDEX clicks_by_time ON clicks (created_at);

-- The other tables' hours, each read in its index's order (ExportPlanTests). The claims'
-- project index becomes a prefix of the new one.
CREATE INDEX store_notifications_by_time ON store_notifications (project_id, received_at, source, notification_id);
CREATE INDEX cost_rows_by_update ON cost_rows (project_id, updated_at, day, network, campaign_key, adgroup_id, ad_id);
CREATE INDEX apple_ads_claims_by_change ON apple_ads_claims (project_id, (coalesce(answered_at, token_received_at)), install_id);
DROP INDEX ad_platform_claims_by_project;
CREATE INDEX ad_platform_claims_by_time ON ad_platform_claims (project_id, received_at, install_id, source);
