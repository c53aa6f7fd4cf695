-- Webhook endpoints and the outbox (docs/outbound.md). A job row is written in the same
-- transaction as the fact that causes it (into outbox_new); a worker moves new jobs into
-- outbox_jobs in batches, claims due ones with a lease and records every attempt on the row.

CREATE TABLE webhook_endpoints (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    -- JSON array of event types; NULL: every type.
    events TEXT,
    enabled INTEGER NOT NULL DEFAULT 1,
    -- whsec_<base64>: kept (not hashed) because every delivery is signed with it.
    secret TEXT NOT NULL,
    -- After a rotation the old secret signs too, until previous_secret_until.
    previous_secret TEXT,
    previous_secret_until INTEGER,
    -- Why the server turned the endpoint off (a 410 Gone answer); NULL when enabled by hand.
    disabled_reason TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX webhook_endpoints_by_project ON webhook_endpoints (project_id, created_at);

CREATE TABLE outbox_jobs (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    -- webhook | postback | apple_ads
    kind TEXT NOT NULL,
    -- The webhook endpoint (or postback template) the job is for.
    target_id TEXT,
    target_url TEXT NOT NULL,
    -- Stable across retries and replays (webhook-id), so receivers can drop repeats.
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    payload TEXT NOT NULL,
    -- pending | delivered | failed
    status TEXT NOT NULL DEFAULT 'pending',
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    lease_until INTEGER,
    last_status_code INTEGER,
    last_error TEXT,
    -- The first kilobyte of the last answer's body.
    last_response TEXT,
    created_at INTEGER NOT NULL,
    delivered_at INTEGER
) WITHOUT ROWID;  -- rows live in the primary key's tree: one tree fewer to write per job
-- Jobs as the facts' transactions write them: an append-only table without indexes, so that a
-- request writes one row into one tree. The worker moves them into outbox_jobs a few thousand at
-- a time, where each index's pages are then written once per batch instead of once per commit.
CREATE TABLE outbox_new (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    target_id TEXT,
    target_url TEXT NOT NULL,
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at INTEGER NOT NULL
);

-- The worker's query: due pending jobs, oldest first.
CREATE INDEX outbox_jobs_due ON outbox_jobs (status, next_attempt_at);
-- The deliveries list and a project's deletion. No index on target_id: nothing looks jobs up by
-- target, and every index is one more write per job on the request's transaction.
CREATE INDEX outbox_jobs_by_project ON outbox_jobs (project_id, created_at);
