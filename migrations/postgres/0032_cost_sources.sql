-- As SQLite's 0050: each project's connections to the networks' reporting APIs, when the next
-- pull is due and the lease of the node pulling now.
CREATE TABLE cost_sources (
    project_id     TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    network        TEXT NOT NULL,
    settings       TEXT NOT NULL DEFAULT '{}',
    secrets        TEXT NOT NULL DEFAULT '{}',
    backfill_days  BIGINT NOT NULL DEFAULT 7,
    next_pull_at   BIGINT NOT NULL,
    claimed_by     TEXT,
    claimed_until  BIGINT,
    last_pulled_at BIGINT,
    last_result    TEXT,
    updated_at     BIGINT NOT NULL,
    PRIMARY KEY (project_id, network)
);
CREATE INDEX cost_sources_due ON cost_sources (next_pull_at);
