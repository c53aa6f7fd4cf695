-- Certificates the server gets itself for project domains (ACME, RFC 8555), shared by every node:
-- any node serves them and answers a challenge (SQLite: migration 0034).
CREATE TABLE acme_accounts (
    directory_url  TEXT PRIMARY KEY,
    key_pem        TEXT NOT NULL,
    account_url    TEXT NOT NULL,
    created_at     BIGINT NOT NULL
);

-- HTTP-01 answers while an order is open: GET /.well-known/acme-challenge/{token}.
CREATE TABLE acme_challenges (
    token              TEXT PRIMARY KEY,
    key_authorization  TEXT NOT NULL,
    domain             TEXT NOT NULL,
    created_at         BIGINT NOT NULL
);

-- One row per domain the server has tried: its certificate once issued, and the failures since.
CREATE TABLE domain_certificates (
    domain           TEXT PRIMARY KEY,
    chain_pem        TEXT,
    key_pem          TEXT,
    not_before       BIGINT,
    not_after        BIGINT,
    issued_at        BIGINT,
    failures         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  BIGINT NOT NULL DEFAULT 0,
    last_error       TEXT,
    updated_at       BIGINT NOT NULL
);
