-- The admin key a server made for itself on its first start (no admin key configured, no
-- project yet): only its SHA-256, as the configured key is kept in memory. One row at most.
CREATE TABLE server_admin_key (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    key_hash   BLOB NOT NULL,
    created_at INTEGER NOT NULL
);
