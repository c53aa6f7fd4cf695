-- The dashboard's people and sign-ins. A user belongs to one project with a role (admin: every
-- page and setting of that project; viewer: reads only). Sign-ins with the server's admin key
-- have no user and see every project.

CREATE TABLE dashboard_users (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    email TEXT NOT NULL COLLATE NOCASE,
    -- pbkdf2-sha256$<iterations>$<salt, base64>$<key, base64> (docs/dashboard.md).
    password_hash TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('admin', 'viewer')),
    created_at INTEGER NOT NULL,
    UNIQUE (project_id, email)
) WITHOUT ROWID;

CREATE INDEX dashboard_users_by_email ON dashboard_users (email);

-- A session is known by the SHA-256 of its cookie's token, so a copy of the database signs no
-- one in. user_id NULL: signed in with the admin key.
CREATE TABLE dashboard_sessions (
    token_hash BLOB PRIMARY KEY,
    user_id TEXT REFERENCES dashboard_users (id) ON DELETE CASCADE,
    csrf_token TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    revoked_at INTEGER
) WITHOUT ROWID;

CREATE INDEX dashboard_sessions_by_user ON dashboard_sessions (user_id) WHERE user_id IS NOT NULL;
