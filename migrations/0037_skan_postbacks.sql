-- Apple's postback copies (SKAdNetwork and AdAttributionKit) for a project's app, stored once
-- verified: every field of both shapes, the raw body (forwarded unchanged, kept for audit) and
-- when it arrived. `dedupe_key` is SKAN's transaction-id or AdAttributionKit's
-- postback-identifier: Apple's device retries for days, a repeat changes nothing.
CREATE TABLE skan_postbacks (
    id                 TEXT PRIMARY KEY,
    project_id         TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    framework          TEXT NOT NULL,
    version            TEXT,
    key_id             TEXT NOT NULL,
    development        INTEGER NOT NULL,
    dedupe_key         TEXT NOT NULL,
    ad_network_id      TEXT NOT NULL,
    source_identifier  TEXT,
    campaign_id        INTEGER,
    app_id             INTEGER NOT NULL,
    source_app_id      INTEGER,
    source_domain      TEXT,
    fidelity_type      INTEGER,
    interaction_type   TEXT,
    impression_type    TEXT,
    conversion_type    TEXT NOT NULL,
    redownload         INTEGER NOT NULL,
    did_win            INTEGER,
    sequence_index     INTEGER NOT NULL,
    fine_value         INTEGER,
    coarse_value       TEXT,
    country            TEXT,
    marketplace        TEXT,
    publisher_item_id  INTEGER,
    raw_body           TEXT NOT NULL,
    received_at        INTEGER NOT NULL
);
CREATE UNIQUE INDEX skan_postbacks_dedupe ON skan_postbacks (project_id, framework, dedupe_key);
CREATE INDEX skan_postbacks_by_time ON skan_postbacks (project_id, received_at, id);

-- The App Store id Apple's postbacks name the app by (taken from ios_store_url when not set),
-- and where verified copies are forwarded (a JSON array of URLs).
ALTER TABLE projects ADD COLUMN ios_app_store_id INTEGER;
ALTER TABLE projects ADD COLUMN skan_forwarding TEXT;
