-- PostgreSQL's schema, the same tables as SQLite's migrations 0001–0021 leave (docs/scale-out.md):
-- timestamps are BIGINT milliseconds since the epoch as there, flags BOOLEAN, blobs BYTEA, REAL
-- DOUBLE PRECISION; clicks and outbox_new number their rows with identity columns; "window" is
-- quoted (a reserved word here); dashboard e-mails are unique case-insensitively through an index
-- on lower(email) (SQLite's COLLATE NOCASE). The rollup tables are the same; their pending tables
-- and triggers are SQLite's way of feeding them and have no counterpart here.

CREATE TABLE projects (
    id                       TEXT PRIMARY KEY,
    name                     TEXT NOT NULL UNIQUE,
    token_hash               BYTEA NOT NULL UNIQUE,      -- Linkrunner clients send the token in the body
    ios_team_id              TEXT,
    ios_bundle_id            TEXT,
    android_package          TEXT,
    android_sha256           TEXT NOT NULL DEFAULT '[]', -- JSON array of certificate fingerprints
    ios_store_url            TEXT,
    android_store_url        TEXT,
    web_url                  TEXT,
    attribution_window_hours BIGINT NOT NULL DEFAULT 168 CHECK (attribution_window_hours BETWEEN 1 AND 2160),
    min_confidence           DOUBLE PRECISION NOT NULL DEFAULT 0.30 CHECK (min_confidence BETWEEN 0 AND 1),
    currency                 TEXT NOT NULL DEFAULT 'USD',
    skan_schema              TEXT,                       -- JSON, validated by the domain before it is stored
    signing                  TEXT NOT NULL DEFAULT 'off' CHECK (signing IN ('off', 'optional', 'required')),
    test_mode                BOOLEAN NOT NULL DEFAULT false,
    clock_ms                 BIGINT,                    -- a test-mode project's own clock
    created_at               BIGINT NOT NULL,
    updated_at               BIGINT NOT NULL,
    matching_policy TEXT,
    sdk_auth TEXT NOT NULL DEFAULT 'open' CHECK (sdk_auth IN ('required', 'open')),
    click_id_parameters TEXT,
    apple_ads BOOLEAN NOT NULL DEFAULT true,
    time_zone TEXT NOT NULL DEFAULT 'UTC'
);
CREATE TABLE api_keys (
    id          TEXT PRIMARY KEY,
    project_id  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    key_hash    BYTEA NOT NULL UNIQUE,
    prefix      TEXT NOT NULL,                           -- first characters, to tell keys apart
    created_at  BIGINT NOT NULL,
    revoked_at  BIGINT
);
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
    attribution_window_hours BIGINT CHECK (attribution_window_hours BETWEEN 1 AND 2160),
    created_at               BIGINT NOT NULL,
    updated_at               BIGINT NOT NULL,
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
    attribution_window_hours BIGINT CHECK (attribution_window_hours BETWEEN 1 AND 2160),
    append_click_id          BOOLEAN NOT NULL DEFAULT false,
    expires_at               BIGINT,
    max_clicks               BIGINT,
    click_count              BIGINT NOT NULL DEFAULT 0,
    active                   BOOLEAN NOT NULL DEFAULT true,
    external_user_id         TEXT,
    options_hash             TEXT,                       -- deduplication of SDK-created links
    created_at               BIGINT NOT NULL,
    updated_at               BIGINT NOT NULL
);
CREATE TABLE clicks (
    id               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    click_id         TEXT NOT NULL UNIQUE,
    project_id       TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    link_id          TEXT REFERENCES links(id) ON DELETE SET NULL,
    source           TEXT NOT NULL DEFAULT 'link' CHECK (source IN ('link', 'resolve', 'app')),
    created_at       BIGINT NOT NULL,
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
    is_bot           BOOLEAN NOT NULL DEFAULT false,
    screen_width     DOUBLE PRECISION,                               -- points (CSS pixels)
    screen_height    DOUBLE PRECISION,
    pixel_ratio      DOUBLE PRECISION,
    timezone         TEXT,
    utc_offset_min   BIGINT,                            -- minutes east of UTC
    languages        TEXT,                               -- JSON array
    beacon_at        BIGINT,
    idfv             TEXT,
    advertising_id   TEXT,
    install_id       TEXT,                               -- the install this click attributed (single use)
    claimed_at       BIGINT,
    network_click_id TEXT,
    network_click_parameter TEXT
);
CREATE TABLE installs (
    id                  TEXT PRIMARY KEY,
    project_id          TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    api                 TEXT NOT NULL CHECK (api IN ('linkrunner', 'linkforty', 'warplink')),
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
    utc_offset_min      BIGINT,
    languages           TEXT,
    screen_width        DOUBLE PRECISION,
    screen_height       DOUBLE PRECISION,
    created_at          BIGINT NOT NULL,
    last_seen_at        BIGINT NOT NULL,
    match_type          TEXT NOT NULL DEFAULT 'none' CHECK (match_type IN ('deterministic', 'probabilistic', 'none')),
    attributed          BOOLEAN NOT NULL DEFAULT false,
    confidence          DOUBLE PRECISION NOT NULL DEFAULT 0,
    matched_factors     TEXT NOT NULL DEFAULT '[]',
    click_id            TEXT,
    link_id             TEXT REFERENCES links(id) ON DELETE SET NULL,
    clicked_at          BIGINT,
    reinstall           BOOLEAN NOT NULL DEFAULT false,
    user_id             TEXT,
    push_token          TEXT,
    integrations        TEXT,
    deeplink_opened_at  BIGINT,
    country TEXT
);
CREATE TABLE users (
    project_id  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    user_id     TEXT NOT NULL,
    install_id  TEXT REFERENCES installs(id) ON DELETE SET NULL,
    name        TEXT,
    email       TEXT,
    phone       TEXT,
    attributes  TEXT,                                    -- JSON of the remaining user_data keys
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
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
    revenue      DOUBLE PRECISION,
    currency     TEXT,
    occurred_at  BIGINT NOT NULL,
    received_at  BIGINT NOT NULL,
    content_key TEXT);
CREATE TABLE payments (
    id           TEXT PRIMARY KEY,
    project_id   TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    install_id   TEXT NOT NULL REFERENCES installs(id) ON DELETE CASCADE,
    payment_id   TEXT NOT NULL,
    user_id      TEXT NOT NULL,
    amount       DOUBLE PRECISION NOT NULL,
    currency     TEXT NOT NULL,
    type         TEXT NOT NULL DEFAULT 'DEFAULT',
    status       TEXT NOT NULL DEFAULT 'PAYMENT_COMPLETED',
    data         TEXT,
    created_at   BIGINT NOT NULL,
    removed_at   BIGINT,                                -- kept for audit, excluded from revenue
    UNIQUE (project_id, payment_id)
);
CREATE TABLE skan_state (
    install_id   TEXT NOT NULL REFERENCES installs(id) ON DELETE CASCADE,
    "window"       BIGINT NOT NULL CHECK ("window" BETWEEN 1 AND 3),
    fine         BIGINT CHECK (fine BETWEEN 0 AND 63),
    coarse       TEXT CHECK (coarse IN ('low', 'medium', 'high')),
    locked       BOOLEAN NOT NULL DEFAULT false,
    updated_at   BIGINT NOT NULL,
    PRIMARY KEY (install_id, "window")
);
CREATE TABLE signing_keys (
    id          TEXT PRIMARY KEY,
    project_id  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    secret      TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    revoked_at  BIGINT
);
CREATE TABLE user_event_installs (
    project_id  TEXT NOT NULL,
    user_id     TEXT NOT NULL,
    install_id  TEXT NOT NULL,
    PRIMARY KEY (project_id, user_id, install_id)
);
CREATE TABLE webhook_endpoints (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    -- JSON array of event types; NULL: every type.
    events TEXT,
    enabled BOOLEAN NOT NULL DEFAULT true,
    -- whsec_<base64>: kept (not hashed) because every delivery is signed with it.
    secret TEXT NOT NULL,
    -- After a rotation the old secret signs too, until previous_secret_until.
    previous_secret TEXT,
    previous_secret_until BIGINT,
    -- Why the server turned the endpoint off (a 410 Gone answer); NULL when enabled by hand.
    disabled_reason TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE TABLE outbox_jobs (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    -- webhook | postback | apple_ads
    kind TEXT NOT NULL,
    -- The webhook endpoint (or postback template) the job is for.
    target_id TEXT,
    target_url TEXT NOT NULL,
    -- Stable across retries and replays (webhook-id), so receivers can drop repeats.
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    payload TEXT NOT NULL,
    -- pending | delivered | failed
    status TEXT NOT NULL DEFAULT 'pending',
    attempts BIGINT NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    lease_until BIGINT,
    last_status_code BIGINT,
    last_error TEXT,
    -- The first kilobyte of the last answer's body.
    last_response TEXT,
    created_at BIGINT NOT NULL,
    delivered_at BIGINT,
    install_id TEXT
);
CREATE TABLE outbox_new (
    seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    target_id TEXT,
    target_url TEXT NOT NULL,
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    install_id TEXT
);
CREATE TABLE postback_templates (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    -- Matched against the utm_source of the click an install was attributed to (case-insensitive).
    network TEXT NOT NULL,
    -- `install`, `payment`, or an event name.
    trigger TEXT NOT NULL,
    method TEXT NOT NULL DEFAULT 'GET',
    url TEXT NOT NULL,
    body TEXT,
    enabled BOOLEAN NOT NULL DEFAULT true,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE TABLE apple_ads_claims (
    install_id TEXT PRIMARY KEY REFERENCES installs (id) ON DELETE CASCADE,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    -- Kept only until Apple answers for good or the token is 24 h old (it is not valid longer).
    token TEXT,
    token_received_at BIGINT NOT NULL,
    -- pending: not answered yet; attributed / not_attributed: Apple's answer; failed: a final
    -- refusal (400, a malformed answer, or no answer before the token expired).
    status TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'attributed', 'not_attributed', 'failed')),
    -- 404s answered so far (Apple: not available yet).
    not_found_answers BIGINT NOT NULL DEFAULT 0,
    -- Apple's answer as it came (JSON), and its fields.
    payload TEXT,
    org_id TEXT,
    campaign_id TEXT,
    ad_group_id TEXT,
    keyword_id TEXT,
    ad_id TEXT,
    conversion_type TEXT,
    claim_type TEXT,
    claimed_at BIGINT,
    country TEXT,
    supply_placement TEXT,
    -- Apple's developer-mode answer (ids 1234567890): kept, never counted as a paid install.
    is_test BOOLEAN NOT NULL DEFAULT false,
    -- Whether the claim became the install's attribution (precedence against a link match).
    won BOOLEAN NOT NULL DEFAULT false,
    answered_at BIGINT
);
CREATE TABLE apple_ads_credentials (
    project_id TEXT PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
    client_id TEXT NOT NULL,
    team_id TEXT NOT NULL,
    key_id TEXT NOT NULL,
    org_id TEXT NOT NULL,
    -- The EC P-256 private key (PEM) that signs the OAuth client secret: kept, not hashed, because
    -- every token request is signed with it (as webhook secrets are).
    private_key TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE TABLE apple_ads_names (
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('campaign', 'ad_group', 'keyword')),
    id TEXT NOT NULL,
    name TEXT NOT NULL,
    fetched_at BIGINT NOT NULL,
    PRIMARY KEY (project_id, kind, id)
);
CREATE TABLE rollup_project_hours (
    project_id TEXT NOT NULL,
    hour BIGINT NOT NULL,
    clicks BIGINT NOT NULL DEFAULT 0,
    bot_clicks BIGINT NOT NULL DEFAULT 0,
    installs BIGINT NOT NULL DEFAULT 0,
    attributed_installs BIGINT NOT NULL DEFAULT 0,
    apple_ads_installs BIGINT NOT NULL DEFAULT 0,
    deterministic_installs BIGINT NOT NULL DEFAULT 0,
    probabilistic_installs BIGINT NOT NULL DEFAULT 0,
    organic_installs BIGINT NOT NULL DEFAULT 0,
    events BIGINT NOT NULL DEFAULT 0,
    signups BIGINT NOT NULL DEFAULT 0,
    paying_installs BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (project_id, hour)
);
CREATE TABLE rollup_link_days (
    project_id TEXT NOT NULL,
    day BIGINT NOT NULL,
    link_id TEXT NOT NULL,
    clicks BIGINT NOT NULL DEFAULT 0,
    bot_clicks BIGINT NOT NULL DEFAULT 0,
    installs BIGINT NOT NULL DEFAULT 0,
    attributed_installs BIGINT NOT NULL DEFAULT 0,
    apple_ads_installs BIGINT NOT NULL DEFAULT 0,
    deterministic_installs BIGINT NOT NULL DEFAULT 0,
    probabilistic_installs BIGINT NOT NULL DEFAULT 0,
    organic_installs BIGINT NOT NULL DEFAULT 0,
    events BIGINT NOT NULL DEFAULT 0,
    signups BIGINT NOT NULL DEFAULT 0,
    paying_installs BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (project_id, day, link_id)
);
CREATE TABLE rollup_money (
    project_id TEXT NOT NULL,
    scope TEXT NOT NULL CHECK (scope IN ('hour', 'day')),
    period BIGINT NOT NULL,
    -- always '' for scope 'hour' (project totals)
    link_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('payment', 'event')),
    currency TEXT NOT NULL,
    amount DOUBLE PRECISION NOT NULL,
    -- rows summed: a currency with rows shows even when they add up to 0, as the query over rows shows it
    entries BIGINT NOT NULL,
    PRIMARY KEY (project_id, scope, period, link_id, kind, currency)
);
CREATE TABLE dashboard_users (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    email TEXT NOT NULL,  -- compared case-insensitively: lower(email) below
    -- pbkdf2-sha256$<iterations>$<salt, base64>$<key, base64> (docs/dashboard.md).
    password_hash TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('admin', 'viewer')),
    created_at BIGINT NOT NULL
);
CREATE TABLE dashboard_sessions (
    token_hash BYTEA PRIMARY KEY,
    user_id TEXT REFERENCES dashboard_users (id) ON DELETE CASCADE,
    csrf_token TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    revoked_at BIGINT
);
CREATE TABLE rollup_link_hours (
    project_id TEXT NOT NULL,
    hour BIGINT NOT NULL,
    link_id TEXT NOT NULL,
    clicks BIGINT NOT NULL DEFAULT 0,
    bot_clicks BIGINT NOT NULL DEFAULT 0,
    installs BIGINT NOT NULL DEFAULT 0,
    attributed_installs BIGINT NOT NULL DEFAULT 0,
    apple_ads_installs BIGINT NOT NULL DEFAULT 0,
    deterministic_installs BIGINT NOT NULL DEFAULT 0,
    probabilistic_installs BIGINT NOT NULL DEFAULT 0,
    organic_installs BIGINT NOT NULL DEFAULT 0,
    events BIGINT NOT NULL DEFAULT 0,
    signups BIGINT NOT NULL DEFAULT 0,
    paying_installs BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (project_id, hour, link_id)
);
CREATE TABLE rollup_link_hour_money (
    project_id TEXT NOT NULL,
    hour BIGINT NOT NULL,
    link_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('payment', 'event')),
    currency TEXT NOT NULL,
    amount DOUBLE PRECISION NOT NULL,
    entries BIGINT NOT NULL,
    PRIMARY KEY (project_id, hour, link_id, kind, currency)
);
CREATE TABLE rollup_tallies (
    project_id TEXT NOT NULL,
    dimension TEXT NOT NULL,
    hour BIGINT NOT NULL,
    value TEXT NOT NULL,
    installs BIGINT NOT NULL,
    PRIMARY KEY (project_id, dimension, hour, value)
);
CREATE INDEX api_keys_by_project ON api_keys(project_id);
CREATE INDEX links_by_project ON links(project_id, created_at);
CREATE INDEX links_by_external_user ON links(project_id, external_user_id, options_hash) WHERE external_user_id IS NOT NULL;
CREATE INDEX clicks_by_ip ON clicks(project_id, ip_key, created_at);
CREATE INDEX clicks_by_link ON clicks(link_id, created_at);
CREATE UNIQUE INDEX installs_by_instance ON installs(project_id, install_instance_id) WHERE install_instance_id IS NOT NULL;
CREATE INDEX installs_by_idfv ON installs(project_id, idfv) WHERE idfv IS NOT NULL;
CREATE INDEX installs_by_advertising_id ON installs(project_id, advertising_id) WHERE advertising_id IS NOT NULL;
CREATE INDEX installs_by_fingerprint ON installs(project_id, fingerprint, created_at) WHERE fingerprint IS NOT NULL;
CREATE INDEX installs_by_user ON installs(project_id, user_id) WHERE user_id IS NOT NULL;
CREATE INDEX installs_by_time ON installs(project_id, created_at);
CREATE UNIQUE INDEX events_by_client_id ON events(project_id, client_event_id) WHERE client_event_id IS NOT NULL;
CREATE INDEX events_by_project ON events(project_id, received_at);
CREATE INDEX payments_by_install ON payments(install_id, created_at);
CREATE INDEX payments_by_user ON payments(project_id, user_id);
CREATE INDEX signing_keys_by_project ON signing_keys(project_id);
CREATE INDEX clicks_by_idfv ON clicks(project_id, idfv, created_at) WHERE idfv IS NOT NULL;
CREATE INDEX clicks_by_advertising_id ON clicks(project_id, advertising_id, created_at) WHERE advertising_id IS NOT NULL;
CREATE INDEX installs_by_device ON installs(project_id, device_id, created_at) WHERE device_id IS NOT NULL;
CREATE INDEX installs_by_link ON installs(link_id) WHERE link_id IS NOT NULL;
CREATE INDEX users_by_install ON users(install_id) WHERE install_id IS NOT NULL;
CREATE INDEX links_by_template ON links(template_id) WHERE template_id IS NOT NULL;
CREATE INDEX clicks_by_install ON clicks(install_id) WHERE install_id IS NOT NULL;
CREATE INDEX user_event_installs_by_install ON user_event_installs(install_id);
CREATE INDEX events_by_install ON events(install_id, occurred_at, content_key);
CREATE INDEX webhook_endpoints_by_project ON webhook_endpoints (project_id, created_at);
CREATE INDEX outbox_jobs_due ON outbox_jobs (status, next_attempt_at);
CREATE INDEX outbox_jobs_by_project ON outbox_jobs (project_id, created_at);
CREATE INDEX postback_templates_by_project ON postback_templates (project_id, network);
CREATE INDEX apple_ads_claims_by_campaign ON apple_ads_claims (project_id, campaign_id, ad_group_id, keyword_id);
CREATE INDEX apple_ads_claims_tokens ON apple_ads_claims (token_received_at) WHERE token IS NOT NULL;
CREATE UNIQUE INDEX dashboard_users_by_project_email ON dashboard_users (project_id, lower(email));
CREATE INDEX dashboard_users_by_email ON dashboard_users (lower(email));
CREATE INDEX dashboard_sessions_by_user ON dashboard_sessions (user_id) WHERE user_id IS NOT NULL;
CREATE INDEX outbox_jobs_by_install ON outbox_jobs (install_id, created_at) WHERE install_id IS NOT NULL;
