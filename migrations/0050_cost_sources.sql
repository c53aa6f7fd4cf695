-- Spend pulled from the networks' reporting APIs (docs/cost.md, "Pulled from the networks"):
-- each project's connection to one, its credentials (JSON objects of strings, kept, not hashed:
-- every pull sends them; the API never shows them whole), how many days back each pull asks
-- for again (networks restate spend), when the next pull is due, and the lease of the node
-- pulling now: a node that dies mid-pull leaves the lease to run out and another takes it.
CREATE TABLE cost_sources (
    project_id     TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    -- google-ads | meta
    network        TEXT NOT NULL,
    settings       TEXT NOT NULL DEFAULT '{}',
    secrets        TEXT NOT NULL DEFAULT '{}',
    backfill_days  INTEGER NOT NULL DEFAULT 7,
    next_pull_at   INTEGER NOT NULL,
    claimed_by     TEXT,
    claimed_until  INTEGER,
    last_pulled_at INTEGER,
    -- 'ok: 42 rows', or why the last pull failed
    last_result    TEXT,
    updated_at     INTEGER NOT NULL,
    PRIMARY KEY (project_id, network)
);
CREATE INDEX cost_sources_due ON cost_sources (next_pull_at);
