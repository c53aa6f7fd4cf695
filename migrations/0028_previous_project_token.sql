-- A rotated project token stays accepted until previous_token_expires_at, so apps already shipped
-- with it keep reporting while an update rolls out (POST /admin/v1/projects/{id}/token).
ALTER TABLE projects ADD COLUMN previous_token_hash BLOB;
ALTER TABLE projects ADD COLUMN previous_token_expires_at INTEGER;
CREATE INDEX projects_by_previous_token ON projects(previous_token_hash) WHERE previous_token_hash IS NOT NULL;
