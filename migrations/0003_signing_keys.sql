-- Keys for Linkrunner request signing (HMAC-SHA256). Unlike API keys the secret must be kept in
-- clear: verifying an HMAC needs it.
CREATE TABLE signing_keys (
    id          TEXT PRIMARY KEY,
    project_id  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    secret      TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    revoked_at  INTEGER
);
CREATE INDEX signing_keys_by_project ON signing_keys(project_id);
