-- A rotated project token stays accepted until previous_token_expires_at (SQLite's migration 0028).
ALTER TABLE projects ADD COLUMN previous_token_hash BYTEA;
ALTER TABLE projects ADD COLUMN previous_token_expires_at BIGINT;
CREATE INDEX projects_by_previous_token ON projects(previous_token_hash) WHERE previous_token_hash IS NOT NULL;
