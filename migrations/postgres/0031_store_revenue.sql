-- As SQLite's 0049: store-verified revenue's sources and notifications, and which source verified
-- a payment.
CREATE TABLE revenue_sources (
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    source     TEXT NOT NULL,
    settings   TEXT NOT NULL DEFAULT '{}',
    secrets    TEXT NOT NULL DEFAULT '{}',
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (project_id, source)
);

CREATE TABLE store_notifications (
    project_id      TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    source          TEXT NOT NULL,
    notification_id TEXT NOT NULL,
    type            TEXT NOT NULL,
    transaction_id  TEXT NOT NULL,
    install_id      TEXT,
    outcome         TEXT NOT NULL,
    received_at     BIGINT NOT NULL,
    PRIMARY KEY (project_id, source, notification_id)
);

ALTER TABLE payments ADD COLUMN verified_by TEXT;
CREATE INDEX payments_verified ON payments (project_id, created_at) WHERE verified_by IS NOT NULL;
