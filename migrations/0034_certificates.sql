-- Certificates the server gets itself for project domains (ACME, RFC 8555), in the database so
-- that every node serves the same ones and any node answers a challenge. Keys are PEM text; the
-- database file is the server's own (created readable by its owner only).
CREATE TABLE acme_accounts (
    directory_url  TEXT PRIMARY KEY,
    key_pem        TEXT NOT NULL,
    account_url    TEXT NOT NULL,
    created_at     INTEGER NOT NULL
);

-- HTTP-01 answers while an order is open: GET /.well-known/acme-challenge/{token}.
CREATE TABLE acme_challenges (
    token              TEXT PRIMARY KEY,
    key_authorization  TEXT NOT NULL,
    domain             TEXT NOT NULL,
    created_at         INTEGER NOT NULL
);

-- One row per domain the server has tried: its certificate once issued, and the failures since.
CREATE TABLE domain_certificates (
    domain           TEXT PRIMARY KEY,
    chain_pem        TEXT,
    key_pem          TEXT,
    not_before       INTEGER,
    not_after        INTEGER,
    issued_at        INTEGER,
    failures         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  INTEGER NOT NULL DEFAULT 0,
    last_error       TEXT,
    updated_at       INTEGER NOT NULL
);
