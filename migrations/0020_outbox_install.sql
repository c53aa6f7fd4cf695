-- The install a job is about, so that an install's page lists its webhook and postback deliveries.
-- Indexed in outbox_jobs only: jobs reach it from outbox_new a batch at a time.
ALTER TABLE outbox_new ADD COLUMN install_id TEXT;
ALTER TABLE outbox_jobs ADD COLUMN install_id TEXT;
CREATE INDEX outbox_jobs_by_install ON outbox_jobs (install_id, created_at) WHERE install_id IS NOT NULL;
