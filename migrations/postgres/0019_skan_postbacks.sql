-- Apple's postback copies (SKAdNetwork and AdAttributionKit), stored once verified (SQLite: 0037).
CREATE TABLE skan_postbacks (
    id                 TEXT PRIMARY KEY,
    project_id         TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    framework          TEXT NOT NULL,
    version            TEXT,
    key_id             TEXT NOT NULL,
    development        BOOLEAN NOT NULL,
    dedupe_key         TEXT NOT NULL,
    ad_network_id      TEXT NOT NULL,
    source_identifier  TEXT,
    campaign_id        BIGINT,
    app_id             BIGINT NOT NULL,
    source_app_id      BIGINT,
    source_domain      TEXT,
    fidelity_type      INTEGER,
    interaction_type   TEXT,
    impression_type    TEXT,
    conversion_type    TEXT NOT NULL,
    redownload         BOOLEAN NOT NULL,
    did_win            BOOLEAN,
    sequence_index     INTEGER NOT NULL,
    fine_value         INTEGER,
    coarse_value       TEXT,
    country            TEXT,
    marketplace        TEXT,
    publisher_item_id  BIGINT,
    raw_body           TEXT NOT NULL,
    received_at        BIGINT NOT NULL
);
CREATE UNIQUE INDEX skan_postbacks_dedupe ON skan_postbacks (project_id, framework, dedupe_key);
CREATE INDEX skan_postbacks_by_time ON skan_postbacks (project_id, received_at, id);

ALTER TABLE projects ADD COLUMN ios_app_store_id BIGINT;
ALTER TABLE projects ADD COLUMN skan_forwarding TEXT;
