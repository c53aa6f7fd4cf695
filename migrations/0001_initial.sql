-- attributiond schema. Times are integer milliseconds since the Unix epoch, UTC.
-- Identifiers exposed to clients are UUID strings; secrets are stored only as SHA-256 hashes.

CREATE TABLE projects (
    id                       TEXT PRIMARY KEY,
    name                     TEXT NOT NULL UNIQUE,
    token_hash               BLOB NOT NULL UNIQUE,      -- Linkrunner clients send the token in the body
    ios_team_id              TEXT,
    ios_bundle_id            TEXT,
    android_package          TEXT,
    android_sha256           TEXT NOT NULL DEFAULT '[]', -- JSON array of certificate fingerprints
    ios_store_url            TEXT,
    android_store_url        TEXT,
    web_url                  TEXT,
    attribution_window_hours INTEGER NOT NULL DEFAULT 168 CHECK (attribution_window_hours BETWEEN 1 AND 2160),
    min_confidence           REAL NOT NULL DEFAULT 0.30 CHECK (min_confidence BETWEEN 0 AND 1),
    currency                 TEXT NOT NULL DEFAULT 'USD',
    skan_schema              TEXT,                       -- JSON, validated by the domain before it is stored
    signing                  TEXT NOT NULL DEFAULT 'off' CHECK (signing IN ('off', 'optional', 'required')),
    test_mode                INTEGER NOT NULL DEFAULT 0,
    clock_ms                 INTEGER,                    -- a test-mode project's own clock
    created_at               INTEGER NOT NULL,
    updated_at               INTEGER NOT NULL
);

CREATE TABLE api_keys (
    id          TEXT PRIMARY KEY,
    project_id  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    key_hash    BLOB NOT NULL UNIQUE,
    prefix      TEXT NOT NULL,                           -- first characters, to tell keys apart
    created_at  INTEGER NOT NULL,
    revoked_at  INTEGER
);
CREATE INDEX api_keys_by_project ON api_keys(project_id);

CREATE TABLE templates (
    id                       TEXT PRIMARY KEY,
    project_id               TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    slug                     TEXT NOT NULL,
    name                     TEXT NOT NULL,
    ios_url                  TEXT,
    android_url              TEXT,
    web_url                  TEXT,
    app_scheme               TEXT,
    deep_link_path           TEXT,
    deep_link_parameters     TEXT NOT NULL DEFAULT '{}',
    utm                      TEXT NOT NULL DEFAULT '{}',
    attribution_window_hours INTEGER CHECK (attribution_window_hours BETWEEN 1 AND 2160),
    created_at               INTEGER NOT NULL,
    updated_at               INTEGER NOT NULL,
    UNIQUE (project_id, slug)
);

CREATE TABLE links (
    id                       TEXT PRIMARY KEY,
    project_id               TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    template_id              TEXT REFERENCES templates(id) ON DELETE SET NULL,
    short_code               TEXT NOT NULL UNIQUE,
    title                    TEXT,
    description              TEXT,
    original_url             TEXT,
    ios_url                  TEXT,
    android_url              TEXT,
    web_url                  TEXT,
    app_scheme               TEXT,
    deep_link_path           TEXT,
    deep_link_parameters     TEXT NOT NULL DEFAULT '{}',
    utm_source               TEXT,
    utm_medium               TEXT,
    utm_campaign             TEXT,
    utm_term                 TEXT,
    utm_content              TEXT,
    targeting                TEXT,
    og_title                 TEXT,
    og_description           TEXT,
    og_image                 TEXT,
    attribution_window_hours INTEGER CHECK (attribution_window_hours BETWEEN 1 AND 2160),
    append_click_id          INTEGER NOT NULL DEFAULT 0,
    expires_at               INTEGER,
    max_clicks               INTEGER,
    click_count              INTEGER NOT NULL DEFAULT 0,
    active                   INTEGER NOT NULL DEFAULT 1,
    external_user_id         TEXT,
    options_hash             TEXT,                       -- deduplication of SDK-created links
    created_at               INTEGER NOT NULL,
    updated_at               INTEGER NOT NULL
);
CREATE INDEX links_by_project ON links(project_id, created_at);
CREATE INDEX links_by_external_user ON links(project_id, external_user_id, options_hash) WHERE external_user_id IS NOT NULL;

CREATE TABLE clicks (
    id               INTEGER PRIMARY KEY,
    click_id         TEXT NOT NULL UNIQUE,
    project_id       TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    link_id          TEXT REFERENCES links(id) ON DELETE SET NULL,
    source           TEXT NOT NULL DEFAULT 'link' CHECK (source IN ('link', 'resolve', 'app')),
    created_at       INTEGER NOT NULL,
    ip               TEXT,
    ip_key           TEXT,                               -- IPv4 as is, IPv6 as its /64 prefix
    user_agent       TEXT,
    accept_language  TEXT,
    referer          TEXT,
    query            TEXT,                               -- JSON object of the click URL's parameters
    utm_source       TEXT,
    utm_medium       TEXT,
    utm_campaign     TEXT,
    utm_term         TEXT,
    utm_content      TEXT,
    platform         TEXT,                               -- ios, android, desktop, bot
    os_version       TEXT,
    device_class     TEXT,                               -- iphone, ipad, phone, tablet, desktop
    is_bot           INTEGER NOT NULL DEFAULT 0,
    screen_width     REAL,                               -- points (CSS pixels)
    screen_height    REAL,
    pixel_ratio      REAL,
    timezone         TEXT,
    utc_offset_min   INTEGER,                            -- minutes east of UTC
    languages        TEXT,                               -- JSON array
    beacon_at        INTEGER,
    idfv             TEXT,
    advertising_id   TEXT,
    install_id       TEXT,                               -- the install this click attributed (single use)
    claimed_at       INTEGER
);
-- Probabilistic candidates: same project, same IP key, newest first, within a window.
CREATE INDEX clicks_by_ip ON clicks(project_id, ip_key, created_at);
CREATE INDEX clicks_by_idfv ON clicks(project_id, idfv) WHERE idfv IS NOT NULL;
CREATE INDEX clicks_by_advertising_id ON clicks(project_id, advertising_id) WHERE advertising_id IS NOT NULL;
CREATE INDEX clicks_by_link ON clicks(link_id, created_at);
-- No index on created_at alone: clicks are inserted in time order, so retention walks the rowid.

CREATE TABLE installs (
    id                  TEXT PRIMARY KEY,
    project_id          TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    api                 TEXT NOT NULL CHECK (api IN ('linkrunner', 'linkforty')),
    install_instance_id TEXT,                            -- Linkrunner's stable per-install id
    device_id           TEXT,                            -- LinkForty deviceId
    idfv                TEXT,
    advertising_id      TEXT,
    fingerprint         TEXT,                            -- LinkForty tier 0: hash of the device signals
    platform            TEXT,
    os_version          TEXT,
    device_model        TEXT,
    device_class        TEXT,
    app_version         TEXT,
    ip                  TEXT,
    ip_key              TEXT,
    user_agent          TEXT,
    timezone            TEXT,
    utc_offset_min      INTEGER,
    languages           TEXT,
    screen_width        REAL,
    screen_height       REAL,
    created_at          INTEGER NOT NULL,
    last_seen_at        INTEGER NOT NULL,
    match_type          TEXT NOT NULL DEFAULT 'none' CHECK (match_type IN ('deterministic', 'probabilistic', 'none')),
    attributed          INTEGER NOT NULL DEFAULT 0,
    confidence          REAL NOT NULL DEFAULT 0,
    matched_factors     TEXT NOT NULL DEFAULT '[]',
    click_id            TEXT,
    link_id             TEXT REFERENCES links(id) ON DELETE SET NULL,
    clicked_at          INTEGER,
    reinstall           INTEGER NOT NULL DEFAULT 0,
    user_id             TEXT,
    push_token          TEXT,
    integrations        TEXT,
    deeplink_opened_at  INTEGER
);
CREATE UNIQUE INDEX installs_by_instance ON installs(project_id, install_instance_id) WHERE install_instance_id IS NOT NULL;
CREATE INDEX installs_by_device ON installs(project_id, device_id) WHERE device_id IS NOT NULL;
CREATE INDEX installs_by_idfv ON installs(project_id, idfv) WHERE idfv IS NOT NULL;
CREATE INDEX installs_by_advertising_id ON installs(project_id, advertising_id) WHERE advertising_id IS NOT NULL;
CREATE INDEX installs_by_fingerprint ON installs(project_id, fingerprint, created_at) WHERE fingerprint IS NOT NULL;
CREATE INDEX installs_by_user ON installs(project_id, user_id) WHERE user_id IS NOT NULL;
CREATE INDEX installs_by_time ON installs(project_id, created_at);

CREATE TABLE users (
    project_id  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    user_id     TEXT NOT NULL,
    install_id  TEXT REFERENCES installs(id) ON DELETE SET NULL,
    name        TEXT,
    email       TEXT,
    phone       TEXT,
    attributes  TEXT,                                    -- JSON of the remaining user_data keys
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (project_id, user_id)
);

CREATE TABLE events (
    id           TEXT PRIMARY KEY,
    project_id   TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    install_id   TEXT NOT NULL REFERENCES installs(id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    client_event_id TEXT,                                -- deduplication key sent by the client
    user_id      TEXT,
    data         TEXT,                                   -- JSON object
    revenue      REAL,
    currency     TEXT,
    occurred_at  INTEGER NOT NULL,
    received_at  INTEGER NOT NULL
);
CREATE UNIQUE INDEX events_by_client_id ON events(project_id, client_event_id) WHERE client_event_id IS NOT NULL;
CREATE INDEX events_by_install ON events(install_id, occurred_at);
CREATE INDEX events_by_project ON events(project_id, received_at);

CREATE TABLE payments (
    id           TEXT PRIMARY KEY,
    project_id   TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    install_id   TEXT NOT NULL REFERENCES installs(id) ON DELETE CASCADE,
    payment_id   TEXT NOT NULL,
    user_id      TEXT NOT NULL,
    amount       REAL NOT NULL,
    currency     TEXT NOT NULL,
    type         TEXT NOT NULL DEFAULT 'DEFAULT',
    status       TEXT NOT NULL DEFAULT 'PAYMENT_COMPLETED',
    data         TEXT,
    created_at   INTEGER NOT NULL,
    removed_at   INTEGER,                                -- kept for audit, excluded from revenue
    UNIQUE (project_id, payment_id)
);
CREATE INDEX payments_by_install ON payments(install_id, created_at);
CREATE INDEX payments_by_user ON payments(project_id, user_id);

CREATE TABLE skan_state (
    install_id   TEXT NOT NULL REFERENCES installs(id) ON DELETE CASCADE,
    window       INTEGER NOT NULL CHECK (window BETWEEN 1 AND 3),
    fine         INTEGER CHECK (fine BETWEEN 0 AND 63),
    coarse       TEXT CHECK (coarse IN ('low', 'medium', 'high')),
    locked       INTEGER NOT NULL DEFAULT 0,
    updated_at   INTEGER NOT NULL,
    PRIMARY KEY (install_id, window)
);
