-- Store-verified revenue (docs/revenue.md). Each project's sources (App Store Server
-- Notifications, Google Play's notifications, RevenueCat): what names the app there and the
-- credentials, as JSON objects of strings (kept, not hashed: some are sent on; the API never shows
-- them whole). Every notification once by its id, with what it did. A verified purchase is a row
-- of `payments` (its transaction id the payment id, so the SDK's payment of the same transaction
-- is the same row) that says which source verified it.
CREATE TABLE revenue_sources (
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    -- app-store | google-play | revenuecat
    source     TEXT NOT NULL,
    settings   TEXT NOT NULL DEFAULT '{}',
    secrets    TEXT NOT NULL DEFAULT '{}',
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, source)
);

CREATE TABLE store_notifications (
    project_id      TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    source          TEXT NOT NULL,
    notification_id TEXT NOT NULL,
    type            TEXT NOT NULL,
    transaction_id  TEXT NOT NULL,
    -- The install it named (NULL: none of the project's); not a reference, so that erasing the
    -- install keeps the notification's audit row without it.
    install_id      TEXT,
    outcome         TEXT NOT NULL,
    received_at     INTEGER NOT NULL,
    PRIMARY KEY (project_id, source, notification_id)
);

ALTER TABLE payments ADD COLUMN verified_by TEXT;
CREATE INDEX payments_verified ON payments (project_id, created_at) WHERE verified_by IS NOT NULL;
