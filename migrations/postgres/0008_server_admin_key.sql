-- The admin key a server made for itself on its first start (SQLite's migration 0026): only its
-- SHA-256. Every node reads the same row, so the printed key works on all of them.
CREATE TABLE server_admin_key (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    key_hash   BYTEA NOT NULL,
    created_at BIGINT NOT NULL
);
